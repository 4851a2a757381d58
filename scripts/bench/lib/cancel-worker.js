// The worker process of the cancel benchmark (scripts/bench/cancel.js): a
// Worker whose handler runs until its signal aborts. It tells the parent over
// IPC when a handler started and when its signal aborted (the epoch in fractions of a ms:
// both processes read the same machine's clock).
import { Engine, Worker } from '../../../dist/index.js';

const [redis, queue] = process.argv.slice(2);
const engine = new Engine({ redis, queue, worker: 'bench-cancel-worker' });
const worker = new Worker(
  engine,
  [
    {
      filter: () => true,
      ensure: (task, { signal }) =>
        new Promise((_, reject) => {
          process.send({ started: task.meta.n });
          signal.addEventListener('abort', () => {
            process.send({ aborted: task.meta.n, at: performance.timeOrigin + performance.now() });
            reject(signal.reason);
          });
        }),
    },
  ],
  { pollInterval: 60_000, background: false },
);
worker.on('error', (error) => console.error(error));
await worker.start();
process.send({ ready: true });
process.on('message', async (message) => {
  if (message !== 'stop') return;
  await worker.stop();
  await engine.close();
  process.disconnect();
});
