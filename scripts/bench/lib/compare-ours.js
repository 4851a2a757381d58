// The rescue-engine side of the comparison: one handle per queue with the
// same shape as compare-theirs.js, so every scenario is written once.
import { Engine, Worker } from '../../../dist/index.js';
import { engineRedis } from './cluster-target.js';
import { inParallel } from './setup.js';
import { rescueWakeup } from './wakeup.js';

const noop = () => Promise.resolve();

/**
 * ours returns the rescue-engine adapter. `url` is a Redis URL or a cluster
 * target (cluster-target.js). `dropQueue` (from startBench) deletes a queue's
 * keys; a child process that only works passes none.
 */
export function ours({ url, dropQueue }) {
  return {
    name: 'rescue-engine',
    kind: 'ours',
    open: (queue) => Promise.resolve(openQueue(url, queue, dropQueue)),
  };
}

function openQueue(url, queue, dropQueue) {
  const { redis, release } = engineRedis(url);
  // outcomeRetention 0: nothing of a completed task is kept, as BullMQ's
  // removeOnComplete: true keeps nothing of a completed job
  const engine = new Engine({ redis, queue, worker: `bench-${process.pid}`, outcomeRetention: 0 });
  const close = async () => {
    await engine.close();
    await release();
  };
  const create = (index) => engine.create({ meta: { n: String(index) } });
  return {
    /** addEach awaits each create before the next. */
    addEach: (count) => inParallel(1, count, create),
    /** fill keeps 1,000 creates in flight on the engine's connection. */
    fill: (count) => inParallel(1_000, count, create),
    /** addBatches awaits each createMany of `size` tasks before the next. */
    async addBatches(count, size) {
      for (let from = 0; from < count; from += size) {
        const length = Math.min(size, count - from);
        await engine.createMany(
          Array.from({ length }, (_, offset) => ({ meta: { n: String(from + offset) } })),
        );
      }
    },
    worker: (options) => Promise.resolve(prepareWorker(engine, options)),
    wakeup: ({ count, gapMs }) => rescueWakeup(url, { count, gapMs, queue }),
    /** claimAndDelete claims (`search`) and deletes `count` tasks, one at a time. */
    async claimAndDelete(count) {
      for (let index = 0; index < count; index++) {
        const task = await engine.search();
        if (task === undefined) throw new Error('the queue ran dry during the benchmark');
        await engine.delete(task);
      }
    },
    close,
    async drop() {
      await dropQueue(engine.keyfmt());
      await close();
    },
  };
}

/** prepareWorker builds an idle Worker with a no-op handler; start() begins taking work. */
function prepareWorker(engine, { concurrency, onCompleted }) {
  const worker = new Worker(engine, [{ filter: () => true, ensure: noop }], {
    concurrency,
    background: false, // no expire / ticker loops: only the work itself is measured
    pollInterval: 60_000, // idle workers wait for wake-ups, not polls
  });
  worker.on('error', (error) => console.error(error));
  worker.on('task:ensured', onCompleted);
  return { start: () => worker.start(), stop: () => worker.stop() };
}
