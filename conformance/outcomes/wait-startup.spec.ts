import type { Redis } from 'ioredis';
import { engineContext } from '../../lib/engine/runtime.js';
import { WaitTimeoutError } from '../../lib/errors.js';
import { idOf, until, useWorkerQueue, within } from '../harness/worker.js';

// The subscriber connection of wait and run opens on first use: subscribing
// before it is ready would mix the channel subscriptions with the
// connection's handshake (its ready check), and some waits would reject
// with a raw ioredis or Redis error.

describe('waits started together on a fresh engine', () => {
  const queue = useWorkerQueue();

  it('each times out with WaitTimeoutError, 40 started one tick apart', async () => {
    const q = queue();
    const producer = q.live('producer');
    const ids = await Promise.all(
      Array.from({ length: 40 }, async (_, n) =>
        idOf(await producer.create({ meta: { k: String(n) } })),
      ),
    );
    for (let round = 0; round < 3; round++) {
      const fresh = q.live(`fresh-${round}`);
      const waits: Promise<unknown>[] = [];
      for (const id of ids) {
        waits.push(
          fresh.wait(id, { timeout: 500 }).then(
            () => 'resolved',
            (error: unknown) => (error instanceof WaitTimeoutError ? 'timeout' : String(error)),
          ),
        );
        await new Promise((resolve) => setImmediate(resolve));
      }
      const answers = await within(Promise.all(waits), 10_000, 'the waits');
      expect(answers.filter((answer) => answer !== 'timeout')).toEqual([]);
      await fresh.close();
    }
  });

  it('several runs right after start-up hear their tasks finish', async () => {
    const q = queue();
    const runner = q.live('runner');
    const worker = q.worker(runner, [{ filter: () => true, ensure: () => Promise.resolve(1) }], {
      concurrency: 4,
    });
    await worker.start();
    const fresh = q.live('fresh');
    const runs: Promise<unknown>[] = [];
    for (let n = 0; n < 20; n++) {
      runs.push(
        fresh.run({ meta: { k: String(n) } }, { timeout: 5_000 }).then(
          (outcome) => outcome.state,
          (error: unknown) => String(error),
        ),
      );
      await new Promise((resolve) => setImmediate(resolve));
    }
    const states = await within(Promise.all(runs), 10_000, 'the runs');
    expect(states.filter((state) => state !== 'completed')).toEqual([]);
  });

  it('40 waits started before the subscriber is ready share its listeners (no MaxListenersExceededWarning)', async () => {
    const q = queue();
    const producer = q.live('producer');
    const ids = await Promise.all(
      Array.from({ length: 40 }, async (_, n) =>
        idOf(await producer.create({ meta: { k: String(n) } })),
      ),
    );
    const fresh = q.live('fresh');
    await fresh.stats(); // the command connection is ready, the subscriber not yet opened
    const waits = ids.map((id) =>
      fresh.wait(id, { timeout: 300 }).then(
        () => 'resolved',
        (error: unknown) => (error instanceof WaitTimeoutError ? 'timeout' : String(error)),
      ),
    );
    await until(() => engineContext(fresh).watcher !== undefined, 3_000, 'the subscriber opens');
    const subscriber = Reflect.get(engineContext(fresh).watcher as object, 'subscriber') as Redis;
    expect(subscriber.status).not.toBe('ready');
    // Node warns of a possible leak once an event has more listeners than this
    const crowded = ['ready', 'end', 'error'].filter(
      (event) => subscriber.listenerCount(event) > subscriber.getMaxListeners(),
    );
    expect(crowded).toEqual([]);
    const answers = await within(Promise.all(waits), 10_000, 'the waits');
    expect(answers.filter((answer) => answer !== 'timeout')).toEqual([]);
  });
});
