// A worker process for conformance/concurrency.spec.ts: claims and deletes
// tasks with its own Engine until the producer is done and the queue is empty,
// then prints the ids it claimed as one JSON line. Uses the built package.
import { Engine, Label } from '../../dist/index.js';

const [redis, queue, worker, doneKey] = process.argv.slice(2);
const engine = new Engine({ redis, queue, worker });
const claimed = [];
const failures = [];
// The flag the parent sets once it stopped creating tasks.
const { Redis } = await import('ioredis');
const flags = new Redis(redis);

for (;;) {
  const task = await engine.search();
  if (task === undefined) {
    if ((await flags.get(doneKey)) === '1' && !(await engine.exists({ meta: { '*': '*' } }))) break;
    continue;
  }
  claimed.push(task.core[Label.Object]);
  try {
    await engine.delete(task);
  } catch (error) {
    failures.push(`${task.core[Label.Object]}: ${error.message}`);
  }
}
await engine.close();
await flags.quit();
process.stdout.write(`${JSON.stringify({ worker, claimed, failures })}\n`);
