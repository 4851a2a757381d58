// Templates. A cron template (`@every`) is never run itself: `engine.ticker()`
// emits a child task at each tick. A gate template waits for its trigger
// tasks and emits a task once every one of them completed. The engine's
// `clock` option lets this example move time instead of waiting for 08:00.
import { Engine, Label, Worker, has, type Handler } from 'rescue-engine';

let now = Date.parse('2026-03-02T07:59:30Z');
const engine = new Engine({
  redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  queue: `example-cron-${process.pid}`,
  clock: () => new Date(now), // the default is the system clock
});

const ran = new Map<string, () => void>();
const finished = (step: string) => new Promise<void>((resolve) => ran.set(step, resolve));
const handler = (step: string): Handler => ({
  labels: { meta: { step } },
  filter: (task) => has(task.meta, { step }),
  ensure: (task) => {
    console.log(`ran ${step} (task ${task.core?.[Label.Object] ?? '?'})`);
    ran.get(step)?.();
    return Promise.resolve();
  },
});
const steps = ['report', 'leaf-0', 'leaf-1', 'merge'];
// background: false, as this example calls ticker() itself (workers run it every few seconds)
const worker = new Worker(engine, steps.map(handler), { background: false });

const report = finished('report');
await engine.create({ cron: { [Label.Every]: 'day at 08:00' }, meta: { step: 'report' } });
now += 60_000; // 08:00:30: the 08:00 tick is due (time moves before the worker starts)
await worker.start();
await engine.ticker(); // emits the template's child, which the worker runs
await report;

const merge = finished('merge');
await engine.create({
  gate: { 'y.api.io/leaf-0': 'waiting', 'y.api.io/leaf-1': 'waiting' },
  meta: { step: 'merge' },
});
await engine.create({ gate: { 'y.api.io/leaf-0': 'trigger' }, meta: { step: 'leaf-0' } });
await engine.create({ gate: { 'y.api.io/leaf-1': 'trigger' }, meta: { step: 'leaf-1' } });
await merge; // both triggers completed: the template emitted its merge task, the worker ran it

await worker.stop();
await engine.close();
