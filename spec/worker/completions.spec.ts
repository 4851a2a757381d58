import type { Completion, CompletionOutcome } from '../../lib/engine/runtime.js';
import { filterList, noFilters } from '../../lib/engine/filters.js';
import type { Task } from '../../lib/task/task.js';
import { Completions } from '../../lib/worker/completions.js';

/** A fake engine call: records each batch and answers when the test says so. */
function fakeSend() {
  const calls: {
    batch: Completion[];
    answer(outcomes?: CompletionOutcome[]): void;
    fail(error: unknown): void;
  }[] = [];
  const send = (batch: Completion[]) =>
    new Promise<CompletionOutcome[]>((resolve, reject) => {
      calls.push({
        batch,
        answer: (outcomes) =>
          resolve(outcomes ?? batch.map(({ task }) => ({ deleted: true, next: next(task) }))),
        fail: reject,
      });
    });
  return { send, calls };
}

const task = (n: number): Task => ({ meta: { n: String(n) } });
const next = (done: Task): Task => ({ meta: { after: done.meta?.['n'] ?? '' } });
const names = (batch: Completion[]) => batch.map(({ task: done }) => done.meta?.['n']);
/** A turn of the event loop: completions of one turn go together. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('Completions', () => {
  it('sends each completion at once, alone, when the worker has few slots', async () => {
    const { send, calls } = fakeSend();
    const completions = new Completions(send, 3);
    const outcomes = [0, 1, 2].map((n) =>
      completions.complete({ task: task(n), filters: noFilters }, n),
    );
    expect(calls.map(({ batch }) => names(batch))).toEqual([['0'], ['1'], ['2']]);
    for (const call of calls) call.answer();
    expect(await Promise.all(outcomes)).toEqual(
      [0, 1, 2].map((n) => ({ deleted: true, next: next(task(n)) })),
    );
  });

  it('folds the completions of a lane that come in one turn into one call, with many slots', async () => {
    const { send, calls } = fakeSend();
    const completions = new Completions(send, 30);
    // three lanes: slots 0 and 3 share one, 1 and 4 another, 2 is alone in the third
    const outcomes = [0, 1, 2, 3, 4].map((slot) =>
      completions.complete(
        { task: task(slot), filters: filterList([{ meta: { slot: String(slot) } }]) },
        slot,
      ),
    );
    expect(calls).toHaveLength(0); // not before the turn ends
    await turn();
    expect(calls.map(({ batch }) => names(batch))).toEqual([['0', '3'], ['1', '4'], ['2']]);
    expect(calls[0]?.batch.map(({ filters }) => filters)).toEqual(
      [0, 3].map((slot) => filterList([{ meta: { slot: String(slot) } }])),
    );
    for (const call of calls) call.answer();
    expect(await Promise.all(outcomes)).toEqual(
      [0, 1, 2, 3, 4].map((n) => ({ deleted: true, next: next(task(n)) })),
    );
  });

  it('keeps two calls per lane under way: what comes meanwhile goes in the next call', async () => {
    const { send, calls } = fakeSend();
    const completions = new Completions(send, 30);
    const first = completions.complete({ task: task(0), filters: noFilters }, 0);
    await turn();
    expect(calls).toHaveLength(1);
    const second = [3, 6].map((slot) =>
      completions.complete({ task: task(slot), filters: noFilters }, slot),
    );
    await turn();
    expect(calls).toHaveLength(2); // a second call of lane 0 while the first is under way
    const later = [9, 12].map((slot) =>
      completions.complete({ task: task(slot), filters: noFilters }, slot),
    );
    await turn();
    expect(calls).toHaveLength(2); // lane 0 has two under way
    calls[0]?.answer();
    await first;
    await turn();
    expect(calls.map(({ batch }) => names(batch))).toEqual([['0'], ['3', '6'], ['9', '12']]);
    calls[1]?.answer();
    calls[2]?.answer();
    expect(await Promise.all([...second, ...later])).toHaveLength(4);
  });

  it('rejects every completion of a call that failed, and the lane goes on with the next one', async () => {
    const { send, calls } = fakeSend();
    const completions = new Completions(send, 30);
    const failing = [0, 3].map((slot) =>
      completions.complete({ task: task(slot), filters: noFilters }, slot),
    );
    await turn();
    const after = completions.complete({ task: task(6), filters: noFilters }, 6);
    const down = new Error('Redis is away');
    calls[0]?.fail(down);
    await expect(Promise.all(failing)).rejects.toBe(down);
    await turn();
    expect(calls.map(({ batch }) => names(batch))).toEqual([['0', '3'], ['6']]);
    calls[1]?.answer([{ deleted: false, error: down }]);
    expect(await after).toEqual({ deleted: false, error: down });
  });

  it('gives each completion its own outcome, and an error when the engine answered too few', async () => {
    const { send, calls } = fakeSend();
    const completions = new Completions(send, 30);
    const outcomes = [0, 3].map((slot) =>
      completions.complete({ task: task(slot), filters: noFilters }, slot),
    );
    await turn();
    const lost = new Error('lost');
    calls[0]?.answer([{ deleted: false, error: lost }]);
    const [first, second] = await Promise.all(outcomes);
    expect(first).toEqual({ deleted: false, error: lost });
    expect(second?.deleted).toBe(false);
    expect(second?.deleted === false && (second.error as Error).message).toBe(
      'Completions: the engine answered fewer completions than it was sent',
    );
  });

  it('carries at most 16 completions in one call', async () => {
    const { send, calls } = fakeSend();
    const completions = new Completions(send, 400);
    const outcomes = Array.from({ length: 140 }, (_, index) =>
      completions.complete({ task: task(index), filters: noFilters }, index * 3),
    );
    await turn();
    // two calls under way at once, each of at most 16; the rest waits for them
    expect(calls.map(({ batch }) => batch.length)).toEqual([16, 16]);
    for (let answered = 0; answered < calls.length; answered++) {
      calls[answered]?.answer();
      await turn();
    }
    expect(calls.map(({ batch }) => batch.length)).toEqual([16, 16, 16, 16, 16, 16, 16, 16, 12]);
    expect(await Promise.all(outcomes)).toHaveLength(140);
  });
});
