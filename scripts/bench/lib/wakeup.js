// Wake-up latency: an idle worker, tasks created one at a time with a gap;
// the time from the create call to the start of the handler, per task.
import { Engine, Worker } from '../../../dist/index.js';

/** percentiles of a list of ms figures */
export function percentiles(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), max: sorted[sorted.length - 1] };
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * rescueWakeup measures rescue-engine: a Worker with one no-op handler waits
 * on an empty queue; `count` tasks are created one at a time, `gapMs` apart.
 */
export async function rescueWakeup(
  redisUrl,
  { count = 1_000, gapMs = 5, queue = `bench-wakeup-${process.pid}` } = {},
) {
  const engine = new Engine({ redis: redisUrl, queue, worker: 'bench-worker' });
  const producer = new Engine({ redis: redisUrl, queue, worker: 'bench-producer' });
  const startedAt = new Map();
  let waiting;
  const worker = new Worker(
    engine,
    [
      {
        filter: () => true,
        ensure: async (task) => {
          startedAt.set(task.meta.n, performance.now());
          waiting?.();
        },
      },
    ],
    { pollInterval: 60_000, background: false },
  );
  worker.on('error', (error) => console.error(error));
  await worker.start();
  const latencies = [];
  for (let index = 0; index < count; index++) {
    const n = String(index);
    const started = new Promise((resolve) => (waiting = resolve));
    const createdAt = performance.now();
    await producer.create({ meta: { n } });
    await started;
    latencies.push(startedAt.get(n) - createdAt);
    await pause(gapMs);
  }
  await worker.stop();
  await engine.close();
  await producer.close();
  return percentiles(latencies);
}
