// The README's example: a producer, a Worker with two handlers, a cron template,
// `run` with its result and `cancel` of a running task. Needs a Redis 7 at
// REDIS_URL (default redis://127.0.0.1:6379). Run: node examples/readme.js
import { Engine, Label, Worker, has } from 'rescue-engine';

const engine = new Engine({ queue: 'readme' }); // REDIS_URL, else redis://127.0.0.1:6379
let started = () => {};
const running = new Promise((resolve) => (started = resolve));

const worker = new Worker(engine, [
  {
    labels: { meta: { action: 'resize' } },
    filter: (task) => has(task.meta, { action: 'resize', width: '*' }),
    ensure: async (task) => ({ width: Number(task.meta?.width) / 2 }), // the outcome's result
  },
  {
    labels: { meta: { action: 'sleep' } },
    filter: (task) => has(task.meta, { action: 'sleep' }),
    ensure: (task, { signal }) => {
      started();
      return new Promise((_, reject) =>
        signal.addEventListener('abort', () => reject(signal.reason)),
      );
    },
  },
]);
await worker.start(); // claims, runs, completes; renews leases; runs expire and ticker

const report = await engine.create({
  cron: { [Label.Every]: 'day at 08:00 in Europe/Berlin' }, // a template: a child every morning
  meta: { action: 'report' },
});
const outcome = await engine.run({ meta: { action: 'resize', width: '640' } }, { timeout: 10_000 });
console.log(outcome.state, outcome.result); // completed { width: 320 }

const sleeper = await engine.create({ meta: { action: 'sleep' } });
await running;
console.log(await engine.cancel(sleeper.core[Label.Object])); // true: its signal aborted

await worker.stop();
await engine.delete({ ...report, core: { ...report.core, [Label.Bypass]: 'true' } }); // remove the template
await engine.close();
