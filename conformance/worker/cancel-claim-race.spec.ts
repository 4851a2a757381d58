import type { Task } from '../../lib/task/task.js';
import { EarlyCancels } from '../../lib/worker/early-cancels.js';
import { aborted, idOf, useWorkerQueue, within } from '../harness/worker.js';

// A cancel's message reaches the worker on its subscriber connection, the
// claim's reply on its command connection: the message can come first. The
// worker keeps such a cancel and applies it when the claim arrives, so a
// cancel that answered true never lets the handler run to its end.

describe('engine.cancel racing a claim', () => {
  const queue = useWorkerQueue();

  it('no handler reaches its end after cancel returned true, cancelled 0-2 ms after the create', async () => {
    const q = queue();
    const runner = q.live('runner');
    const producer = q.live('producer');
    // id -> when the handler reached its end with its signal never aborted
    const ended = new Map<string, number>();
    const worker = q.worker(
      runner,
      [
        {
          filter: () => true,
          // long enough for any cancel message to arrive, however late
          ensure: async (task: Task, context: { signal: AbortSignal }) => {
            await Promise.race([
              new Promise((resolve) => setTimeout(resolve, 500)),
              aborted(context.signal),
            ]);
            if (!context.signal.aborted) ended.set(idOf(task), performance.now());
          },
        },
      ],
      { concurrency: 16 },
    );
    await worker.start();
    // id -> when cancel answered true
    const cancelled = new Map<string, number>();
    const rounds = 300;
    const lanes = 6;
    await within(
      Promise.all(
        Array.from({ length: lanes }, async (_, lane) => {
          for (let round = lane; round < rounds; round += lanes) {
            const task = await producer.create({ meta: { k: String(round) } });
            await new Promise((resolve) => setTimeout(resolve, round % 3));
            if (await producer.cancel(idOf(task))) cancelled.set(idOf(task), performance.now());
          }
        }),
      ),
      60_000,
      'the creates and cancels',
    );
    await within(worker.stop(), 10_000, 'the handlers ended');
    const overrun = [...cancelled].filter(([id, at]) => (ended.get(id) ?? -Infinity) > at);
    expect(cancelled.size).toBeGreaterThan(rounds / 2);
    expect(overrun).toEqual([]);
  }, 90_000);
});

describe('EarlyCancels', () => {
  it('keeps a cancel for a short while, and at most so many, the oldest forgotten first', () => {
    let now = 0;
    const cancels = new EarlyCancels(1_000, 3, () => now);
    cancels.heard('a');
    expect(cancels.take('a')).toBe(true);
    expect(cancels.take('a')).toBe(false); // applied once
    cancels.heard('b');
    now = 1_000;
    expect(cancels.take('b')).toBe(false); // kept long enough
    for (const id of ['c', 'd', 'e', 'f']) cancels.heard(id);
    expect(cancels.size).toBe(3);
    expect(cancels.take('c')).toBe(false);
    expect(['d', 'e', 'f'].map((id) => cancels.take(id))).toEqual([true, true, true]);
  });
});
