// One worker process of a soak run (forked by scripts/soak/run.js): a Worker
// on an engine of its own whose handler works a few ms, spawns a child for a
// task that asks for one, and answers the coordinator's `heap` message with
// its heap after a full collection (node --expose-gc).
//
// Usage (forked with IPC): worker.js '<settings JSON>'
import { setTimeout as sleep } from 'node:timers/promises';
import { Engine, Worker } from '../../dist/index.js';

const settings = JSON.parse(process.argv[2]);
const engine = new Engine({ redis: settings.url, queue: settings.queue, worker: settings.id });
let ensured = 0;
const worker = new Worker(
  engine,
  [
    {
      filter: (task) => task.meta?.soak === 'yes',
      ensure: async (task, context) => {
        await sleep(settings.workMs);
        if (task.meta.spawn === '1') context.spawn({ meta: { soak: 'yes', kind: 'child' } });
        return { n: task.meta.n ?? '' };
      },
    },
  ],
  { concurrency: settings.concurrency, pollInterval: 1_000 },
);
worker.on('task:ensured', () => ensured++);
worker.on('error', () => {}); // a restart of the fleet is part of the run

process.on('message', (message) => {
  if (message === 'heap') {
    globalThis.gc?.();
    process.send?.({ heap: process.memoryUsage().heapUsed, ensured });
  } else if (message === 'stop') {
    void (async () => {
      await worker.stop();
      await engine.close();
      process.disconnect();
    })();
  }
});
process.on('disconnect', () => process.exit(0));

await worker.start();
process.send?.('ready');
