// Another process's engine for the wait, run and cancel tests: runs one
// operation on a task and prints its answer as one JSON line ({ value } or
// { error: code or message }), then exits. Uses the built package.
//   node engine-call.js <target> <queue> wait <id> [timeout ms]   (target: childTarget())
//   node engine-call.js <redis> <queue> cancel <id>
import { Engine } from '../../dist/index.js';
import { engineRedis } from './connect.js';

const [target, queue, operation, id, timeout] = process.argv.slice(2);
const redis = engineRedis(target); // a URL, or a Cluster of the harness's nodes
const engine = new Engine({ redis, queue, worker: `call-${process.pid}` });
let answer;
const startedAt = Date.now(); // the cancel latency test reads when the call began
try {
  const value =
    operation === 'wait'
      ? await engine.wait(id, timeout === undefined ? {} : { timeout: Number(timeout) })
      : await engine.cancel(id);
  answer = { value, startedAt };
} catch (error) {
  answer = { error: error.code ?? error.message };
}
process.stdout.write(`${JSON.stringify(answer)}\n`);
await engine.close();
if (typeof redis !== 'string') await redis.quit();
