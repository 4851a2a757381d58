// The BullMQ side of the comparison (bullmq is a devDependency only): one
// handle per queue with the same shape as compare-ours.js.
import { Queue, Worker } from 'bullmq';
import { percentiles } from './wakeup.js';

const jobOptions = { removeOnComplete: true };
const chunk = 1_000;
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** theirs returns the BullMQ adapter; `obliterate` removes every key of a queue. */
export function theirs({ url }) {
  const connection = { url };
  return {
    name: 'BullMQ',
    kind: 'theirs',
    open: (name) => openQueue(connection, name),
  };
}

async function openQueue(connection, name) {
  const queue = new Queue(name, { connection });
  queue.on('error', (error) => console.error(error));
  await queue.waitUntilReady();
  return {
    /** addEach awaits each add before the next. */
    async addEach(count) {
      for (let index = 0; index < count; index++) await queue.add('job', {}, jobOptions);
    },
    /** fill adds jobs with addBulk, 1,000 per call. */
    async fill(count) {
      for (let from = 0; from < count; from += chunk) {
        const size = Math.min(chunk, count - from);
        await queue.addBulk(
          Array.from({ length: size }, () => ({ name: 'job', data: {}, opts: jobOptions })),
        );
      }
    },
    /** addBatches awaits each addBulk of `size` jobs before the next. */
    async addBatches(count, size) {
      for (let from = 0; from < count; from += size) {
        const length = Math.min(size, count - from);
        await queue.addBulk(
          Array.from({ length }, () => ({ name: 'job', data: {}, opts: jobOptions })),
        );
      }
    },
    worker: (options) => prepareWorker(connection, name, options),
    wakeup: (options) => wakeup(connection, queue, options),
    close: () => queue.close(),
    async drop() {
      await queue.obliterate({ force: true });
      await queue.close();
    },
  };
}

/** prepareWorker builds a connected, not yet running Worker; start() runs it. */
async function prepareWorker(connection, name, { concurrency, onCompleted }) {
  const worker = new Worker(name, () => Promise.resolve(), {
    connection,
    concurrency,
    autorun: false,
  });
  worker.on('error', (error) => console.error(error));
  worker.on('completed', onCompleted);
  await worker.waitUntilReady(); // both connections: connecting is not part of the run
  let running;
  return {
    start() {
      running = worker.run();
    },
    async stop() {
      await worker.close();
      await running;
    },
  };
}

/**
 * wakeup mirrors rescueWakeup (lib/wakeup.js): a Worker with concurrency 1
 * waits on an empty queue; jobs are added one at a time, `gapMs` apart; the
 * latency is from the add call to the start of the processor.
 */
async function wakeup(connection, queue, { count, gapMs }) {
  const startedAt = new Map();
  let waiting;
  const worker = new Worker(
    queue.name,
    (job) => {
      startedAt.set(job.data.n, performance.now());
      waiting?.();
      return Promise.resolve();
    },
    { connection, concurrency: 1, autorun: false },
  );
  worker.on('error', (error) => console.error(error));
  await worker.waitUntilReady();
  const running = worker.run();
  const latencies = [];
  for (let index = 0; index < count; index++) {
    const n = String(index);
    const started = new Promise((resolve) => (waiting = resolve));
    const createdAt = performance.now();
    await queue.add('job', { n }, jobOptions);
    await started;
    latencies.push(startedAt.get(n) - createdAt);
    await pause(gapMs);
  }
  await worker.close();
  await running;
  return percentiles(latencies);
}
