// The README's example: a typed task with a payload, a Worker with two
// handlers, a named cron schedule, `run` with its result and `cancel` of a
// running task. Needs a Redis 7 at REDIS_URL (default redis://127.0.0.1:6379).
// Run: node examples/readme.js
import { Engine, Label, Worker, defineTask, has } from 'rescue-engine';

const engine = new Engine({ queue: 'readme' }); // REDIS_URL, else redis://127.0.0.1:6379

// a kind of work with a payload and a result (in TypeScript: defineTask<Payload, Result>)
/** @type {import('rescue-engine').TypedTask<{ width: number }, { width: number }>} */
const resize = defineTask({ meta: { action: 'resize' } });

let started = () => {};
const running = new Promise((resolve) => (started = resolve));
const worker = new Worker(engine, [
  resize.handler(async ({ width }) => ({ width: width / 2 })), // the payload in, the result out
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

await engine.schedule('morning-report', {
  cron: { [Label.Every]: 'day at 08:00 in Europe/Berlin' }, // a child every morning
  meta: { action: 'report' }, // one template of this name, however often this runs
});
const outcome = await resize.run(engine, { width: 640 }, { timeout: 10_000 });
console.log(outcome.state, outcome.result); // completed { width: 320 }

const sleeper = await engine.create({ meta: { action: 'sleep' } });
await running;
console.log(await engine.cancel(sleeper.core[Label.Object])); // true: its signal aborted

await worker.stop();
await engine.unschedule('morning-report');
await engine.close();
