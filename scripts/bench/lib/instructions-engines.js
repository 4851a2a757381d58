// The two engines of `npm run bench:instructions`, each behind the same shape:
// create one at a time, create a batch, and a Worker of a given concurrency
// with a no-op handler. Each runs with its defaults but for what a job queue
// without results keeps: BullMQ's jobs `removeOnComplete`, our engine's
// `outcomeRetention: 0`.
import { Queue, Worker as BullWorker } from 'bullmq';
import { Engine, Worker } from '../../../dist/index.js';

/**
 * Under callgrind Redis runs about 50 times slower: a folded delete-search
 * call that ends after the engine's `stepTime` would carry a few completions
 * where it carries tens on a server at full speed, and the rest would be sent
 * again. The bench scales the step by as much, so that a call does the work it
 * does in production.
 */
export const callgrindStepTime = 100;

/** How long a call may wait for the callgrind server, slow to start and to answer (connectTimeout). */
export const callgrindConnectTimeout = 120_000;

/** ours: rescue-engine on the server at `url`, queue `name`. */
export function ours(url, name) {
  const engine = new Engine({
    redis: url,
    queue: name,
    outcomeRetention: 0,
    stepTime: callgrindStepTime,
    connectTimeout: callgrindConnectTimeout,
  });
  let n = 0;
  const task = () => ({ meta: { n: String(n++) } });
  return {
    name: 'rescue-engine',
    createEach: async (count) => {
      for (let index = 0; index < count; index++) await engine.create(task());
    },
    createBatch: async (count, size) => {
      for (let from = 0; from < count; from += size) {
        const chunk = Array.from({ length: Math.min(size, count - from) }, task);
        await (typeof engine.createMany === 'function'
          ? engine.createMany(chunk)
          : Promise.all(chunk.map((each) => engine.create(each))));
      }
    },
    batchKind: typeof engine.createMany === 'function' ? 'createMany' : 'creates in flight',
    /**
     * worker starts a Worker (`batch`: the Worker option); `onDone` is called
     * once a task is ensured; each handler first awaits `hold()` (see
     * instructions.js: the counted window starts and ends with every slot
     * holding a task, no call under way).
     */
    async worker({ concurrency, batch = 1, onDone, hold = () => Promise.resolve() }) {
      const worker = new Worker(engine, [{ filter: () => true, ensure: () => hold() }], {
        concurrency,
        batch,
      });
      worker.on('task:ensured', onDone);
      await worker.start();
      return () => worker.stop();
    },
    close: () => engine.close(),
  };
}

/** theirs: BullMQ on the server at `url`, queue `name`. */
export async function theirs(url, name) {
  const connection = { url };
  const queue = new Queue(name, { connection });
  queue.on('error', (error) => console.error(error));
  await queue.waitUntilReady();
  const options = { removeOnComplete: true };
  return {
    name: 'BullMQ',
    createEach: async (count) => {
      for (let index = 0; index < count; index++) await queue.add('job', {}, options);
    },
    createBatch: async (count, size) => {
      for (let from = 0; from < count; from += size) {
        const length = Math.min(size, count - from);
        await queue.addBulk(
          Array.from({ length }, () => ({ name: 'job', data: {}, opts: options })),
        );
      }
    },
    batchKind: 'addBulk',
    async worker({ concurrency, onDone, hold = () => Promise.resolve() }) {
      const worker = new BullWorker(name, () => hold(), {
        connection,
        concurrency,
        autorun: false,
      });
      worker.on('error', (error) => console.error(error));
      worker.on('completed', onDone);
      await worker.waitUntilReady();
      const running = worker.run();
      return async () => {
        await worker.close();
        await running;
      };
    },
    close: () => queue.close(),
  };
}
