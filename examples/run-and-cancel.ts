// Dispatch and cancel. `engine.run` creates a task and waits for its outcome:
// the result of the handler, like a remote call. `engine.cancel` stops a task
// from any process: here a long task, cancelled once a worker claimed it,
// whose handler sees its signal abort with TaskCancelledError.
import { Engine, Label, TaskCancelledError, Worker, has, type Handler } from 'rescue-engine';

const engine = new Engine({
  redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  queue: `example-run-${process.pid}`,
});

const add: Handler = {
  filter: (task) => has(task.meta, { 'x.api.io/action': 'add' }),
  ensure: (task) =>
    Promise.resolve({ sum: Number(task.meta?.['x.api.io/a']) + Number(task.meta?.['x.api.io/b']) }),
};
let started = (): void => undefined;
const running = new Promise<void>((resolve) => (started = resolve));
let aborted: unknown;
const render: Handler = {
  filter: (task) => has(task.meta, { 'x.api.io/action': 'render' }),
  timeout: 60_000, // no render may run longer (its signal aborts with TaskTimeoutError)
  ensure: (_task, { signal }) =>
    new Promise((resolve, reject) => {
      started();
      const timer = setTimeout(() => resolve({ frames: 1000 }), 30_000); // long work
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        aborted = signal.reason;
        reject(signal.reason as Error);
      });
    }),
};
const worker = new Worker(engine, [add, render]);
await worker.start();

// run: create, then wait for the outcome
const sum = await engine.run({
  meta: { 'x.api.io/action': 'add', 'x.api.io/a': '2', 'x.api.io/b': '3' },
});
console.log('run:', sum.state, sum.result); // completed { sum: 5 }
if (sum.state !== 'completed') throw new Error(`run: ${sum.state}`);

// cancel: a running task stops, and its outcome says so
const task = await engine.create({ meta: { 'x.api.io/action': 'render' } });
const id = task.core?.[Label.Object] ?? '';
await running; // a worker claimed it and its handler runs
console.log('cancelled now:', await engine.cancel(id)); // true (false: it had finished)
const outcome = await engine.wait(id, { timeout: 10_000 });
console.log('cancel:', outcome.state, aborted instanceof TaskCancelledError); // cancelled true
if (outcome.state !== 'cancelled') throw new Error(`cancel: ${outcome.state}`);

await worker.stop();
await engine.close();
