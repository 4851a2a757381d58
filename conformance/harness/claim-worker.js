// A worker process for conformance/engine/concurrency.spec.ts: claims and deletes
// tasks with its own Engine until the producer is done and the queue is empty,
// then prints the ids it claimed as one JSON line. Uses the built package.
// Like the parent's workers, it registers every task it holds in a hash of
// holders (HSETNX on claim, HDEL once it deleted the task), so that a claim of a task
// another worker holds shows up as a failure.
import { Engine, Label } from '../../dist/index.js';
import { client, engineRedis } from './connect.js';

const [target, queue, worker, doneKey, holdersKey] = process.argv.slice(2);
const redis = engineRedis(target);
const engine = new Engine({ redis, queue, worker });
const claimed = [];
const failures = [];
// The flag the parent sets once it stopped creating tasks.
const flags = client(target);

for (;;) {
  const task = await engine.search();
  if (task === undefined) {
    if ((await flags.get(doneKey)) === '1' && !(await engine.exists({ meta: { '*': '*' } }))) break;
    continue;
  }
  const id = task.core[Label.Object];
  claimed.push(id);
  if (task.core[Label.Worker] !== worker)
    failures.push(`${id}: handed out with owner ${task.core[Label.Worker]}`);
  if ((await flags.hsetnx(holdersKey, id, worker)) !== 1)
    failures.push(`${id}: two owners at once (${await flags.hget(holdersKey, id)})`);
  try {
    await engine.delete(task);
  } catch (error) {
    failures.push(`${id}: ${error.message}`);
  }
  await flags.hdel(holdersKey, id);
}
await engine.close();
await flags.quit();
if (typeof redis !== 'string') await redis.quit(); // a Cluster is the caller's to close
process.stdout.write(`${JSON.stringify({ worker, claimed, failures })}\n`);
