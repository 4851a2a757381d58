// A producer and a worker. The producer creates tasks; a Worker with two
// handlers, one per kind of work, claims each task, runs the handler that
// takes it and deletes it when `ensure` resolves; `engine.wait` hears each
// task's outcome, with the handler's result and log, from any process.
// Run: npm run examples (or, after npm run build, compile it and set REDIS_URL).
import { setTimeout as sleep } from 'node:timers/promises';
import { Engine, Label, Worker, has, type Handler } from 'rescue-engine';

const engine = new Engine({
  redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  queue: `example-producer-${process.pid}`, // a queue of its own
});

const resize: Handler = {
  labels: { meta: { 'x.api.io/action': 'resize' } }, // the worker searches with these
  filter: (task) => has(task.meta, { 'x.api.io/action': 'resize', 'x.api.io/image': '*' }),
  ensure: async (task, context) => {
    context.log(`resizing ${task.meta?.['x.api.io/image'] ?? ''}`); // kept with the outcome
    await sleep(50, undefined, { signal: context.signal }); // the work; stop when the signal aborts
    return { width: 640, height: 480 };
  },
};
const notify: Handler = {
  labels: { meta: { 'x.api.io/action': 'notify' } },
  filter: (task) => has(task.meta, { 'x.api.io/action': 'notify' }),
  ensure: async (task, { signal }) => {
    await sleep(10, undefined, { signal });
    return { sent: task.meta?.['x.api.io/user'] };
  },
};

const worker = new Worker(engine, [resize, notify]);
await worker.start();

// the producer: any process with an engine on the same queue
const tasks = await Promise.all([
  engine.create({ meta: { 'x.api.io/action': 'resize', 'x.api.io/image': 'a.png' } }),
  engine.create({ meta: { 'x.api.io/action': 'resize', 'x.api.io/image': 'b.png' } }),
  engine.create({ meta: { 'x.api.io/action': 'notify', 'x.api.io/user': 'ada' } }),
]);
for (const task of tasks) {
  const id = task.core?.[Label.Object]; // create answers the task with its id
  if (id === undefined) throw new Error('create returned no id');
  const outcome = await engine.wait(id, { timeout: 10_000 });
  console.log(id, outcome.state, JSON.stringify(outcome.result), outcome.log);
  if (outcome.state !== 'completed') throw new Error(`task ${id}: ${outcome.state}`);
}

await worker.stop(); // lets running handlers finish
await engine.close();
