import type { Engine } from '../../lib/engine/engine.js';
import type { EngineOptions } from '../../lib/engine/options.js';
import { deleteThenSearch, type CompletionOutcome, filterList } from '../../lib/engine/runtime.js';
import { TaskNotFoundError, TaskOutdatedError } from '../../lib/errors.js';
import { Gate, Label, Method } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { queueContents } from '../harness/queue-state.js';
import { idOf, type TestQueue, useQueue } from '../harness/queue.js';
import { failTask } from '../../lib/engine/runtime.js';

// The worker runtime completes tasks and claims the next ones with
// deleteThenSearch: for each completion in order, delete(task) then
// search(filter), as one atomic step for all of them. These tests run the
// same story twice, on two queues with the same clock: once with one
// deleteThenSearch call, once with the public calls one after another. The
// queues and the answers must be the same, down to every index entry: the
// script's plain path (include/plain.lua) must leave what delete() and
// search() would.

const everything: Task = { meta: { '*': '*' } };

/** A completion: the copy to delete (changed as the worker left it) and the filter of the next search. */
interface Step {
  copy: Task;
  filter?: Task;
}

/** serially runs delete then search for each step with the public API, as deleteThenSearch answers. */
async function serially(engine: Engine, steps: Step[]): Promise<CompletionOutcome[]> {
  const outcomes: CompletionOutcome[] = [];
  for (const { copy, filter } of steps) {
    try {
      await engine.delete(copy);
    } catch (error) {
      outcomes.push({ deleted: false, error });
      continue;
    }
    outcomes.push({ deleted: true, next: await engine.search(filter) });
  }
  return outcomes;
}

/** summary makes outcomes comparable: the next task's id and meta, or the error's class and message. */
function summary(outcomes: CompletionOutcome[]): unknown[] {
  return outcomes.map((outcome) =>
    outcome.deleted
      ? { next: outcome.next === undefined ? undefined : [idOf(outcome.next), outcome.next.meta] }
      : { error: [(outcome.error as Error).constructor.name, (outcome.error as Error).message] },
  );
}

describe('deleteThenSearch (complete and claim, several at once)', () => {
  const batched = useQueue('2023-10-20T00:00:01Z');
  const serial = useQueue('2023-10-20T00:00:01Z');

  /**
   * both builds the same queue twice with `setUp` (which returns the steps),
   * runs the steps in one deleteThenSearch call on one queue and serially on
   * the other, and checks that answers and queues agree.
   */
  async function both(
    setUp: (q: TestQueue, eon: Engine) => Promise<Step[]>,
    options: EngineOptions = {},
  ): Promise<{ outcomes: CompletionOutcome[]; queue: Task[] }> {
    const [a, b] = [batched(), serial()];
    const [eonA, eonB] = [a.engine('eon', options), b.engine('eon', options)];
    const [stepsA, stepsB] = [await setUp(a, eonA), await setUp(b, eonB)];
    const outcomes = await deleteThenSearch(
      eonA,
      stepsA.map(({ copy, filter }) => ({
        task: copy,
        filters: filterList(filter === undefined ? [] : [filter]),
      })),
    );
    const expected = await serially(eonB, stepsB);
    expect(summary(outcomes)).toEqual(summary(expected));
    const queue = await eonA.lister(everything);
    expect(queue).toEqual(await eonB.lister(everything));
    // every key but the answers kept for requests (one request against many)
    expect(await queueContents(a.redis, a.prefix, ['requests'])).toEqual(
      await queueContents(b.redis, b.prefix, ['requests']),
    );
    return { outcomes, queue };
  }

  it('keeps a queue’s meta listing (metaIndexes) as delete and search do', async () => {
    const { outcomes } = await both(
      async (q, eon) => {
        expect(await eon.exists({ meta: { n: 'x' } })).toBe(false); // the queue lists n from now on
        for (const n of ['a', 'b', 'c', 'd']) await eon.create({ meta: { n } });
        const a = await eon.search();
        const b = await eon.search();
        return [{ copy: a! }, { copy: b! }];
      },
      { metaIndexes: ['n'] },
    );
    expect(outcomes.map((outcome) => outcome.deleted && outcome.next?.meta)).toEqual([
      { n: 'c' },
      { n: 'd' },
    ]);
    expect(await batched().redis.zcard(batched().key['meta-tasks'])).toBe(2);
  });

  it('deletes each task and claims the next one, in order, for every completion', async () => {
    const { outcomes, queue } = await both(async (q, eon) => {
      for (const n of ['a', 'b', 'c', 'd']) await eon.create({ meta: { n } });
      const a = await eon.search();
      const b = await eon.search();
      return [{ copy: a! }, { copy: b! }];
    });
    expect(outcomes.map((outcome) => outcome.deleted && outcome.next?.meta)).toEqual([
      { n: 'c' },
      { n: 'd' },
    ]);
    expect(queue.map((task) => [task.meta, task.core?.[Label.Worker]])).toEqual([
      [{ n: 'c' }, 'eon'],
      [{ n: 'd' }, 'eon'],
    ]);
  });

  it('searches with each completion its own filter', async () => {
    const { outcomes } = await both(async (q, eon) => {
      for (const k of ['one', 'one', 'x', 'y']) await eon.create({ meta: { k } });
      const first = await eon.search({ meta: { k: 'one' } });
      const second = await eon.search({ meta: { k: 'one' } });
      return [
        { copy: first!, filter: { meta: { k: 'y' } } },
        { copy: second!, filter: { meta: { k: 'x' } } },
      ];
    });
    expect(outcomes.map((outcome) => outcome.deleted && outcome.next?.meta)).toEqual([
      { k: 'y' },
      { k: 'x' },
    ]);
  });

  it('answers a completion whose delete fails with its error and no search, and goes on with the others', async () => {
    const { outcomes, queue } = await both(async (q, eon) => {
      for (const n of ['a', 'b', 'c', 'd']) await eon.create({ meta: { n } });
      const a = await eon.search();
      const b = await eon.search();
      const gone = { ...a!, core: { ...a!.core, [Label.Object]: '1697760000000-000000000999' } };
      const outdated = { ...b!, core: { ...b!.core, [Label.Worker]: 'etw' } };
      return [{ copy: gone }, { copy: outdated }, { copy: a! }];
    });
    const errors = outcomes.map((outcome) => (outcome.deleted ? undefined : outcome.error));
    expect(errors[0]).toBeInstanceOf(TaskNotFoundError);
    expect(errors[1]).toBeInstanceOf(TaskOutdatedError);
    expect(outcomes[2]?.deleted && outcomes[2].next?.meta).toEqual({ n: 'c' });
    // b untouched, a deleted, c claimed, d free
    expect(queue.map((task) => [task.meta, task.core?.[Label.Worker]])).toEqual([
      [{ n: 'b' }, 'eon'],
      [{ n: 'c' }, 'eon'],
      [{ n: 'd' }, undefined],
    ]);
  });

  it('lets each search see what the completions before it did: a requeue, a gate that fires, the share gate', async () => {
    const { queue } = await both(async (q, eon) => {
      const etw = q.engine('etw');
      await eon.create({ gate: { g: Gate.Waiting }, meta: { step: 'merge' } });
      await eon.create({ gate: { g: 'trigger' }, meta: { step: 'leaf' } });
      await eon.create({ meta: { step: 'page' } });
      await eon.create({ meta: { step: 'other' } });
      await etw.create({ meta: { step: 'etw' } });
      const leaf = await eon.search({ meta: { step: 'leaf' } });
      const page = await eon.search({ meta: { step: 'page' } });
      await etw.search({ meta: { step: 'etw' } });
      return [
        { copy: leaf! }, // fires the gate: its task is the newest
        { copy: { ...page!, sync: { [Label.Paging]: '2' } } }, // requeued, one more cycle
        { copy: (await eon.search({ meta: { step: 'other' } }))! },
      ];
    });
    expect(queue.map((task) => task.meta?.['step'])).toEqual([
      'merge',
      'page',
      'other',
      'etw',
      'merge',
    ]);
  });

  it('completes a broadcast copy this engine received without Redis, then searches', async () => {
    const { outcomes } = await both(async (q, eon) => {
      q.clock.set('2023-10-20T00:00:02Z');
      await q.engine('aux').create({ meta: { n: 'all' }, node: { [Label.Method]: Method.All } });
      await q.engine('aux').create({ meta: { n: 'plain' } });
      const broadcast = await eon.search();
      expect(broadcast?.meta).toEqual({ n: 'all' });
      return [{ copy: broadcast! }];
    });
    expect(outcomes[0]?.deleted && outcomes[0].next?.meta).toEqual({ n: 'plain' });
  });

  describe('the plain path (plain tasks, a plain queue) and the general one agree', () => {
    it('completes and claims with other workers owning tasks (the share gate counts them)', async () => {
      const { outcomes } = await both(async (q, eon) => {
        const etw = q.engine('etw');
        for (const n of ['a', 'b', 'c', 'd', 'e', 'f']) await eon.create({ meta: { n } });
        const a = await eon.search();
        await etw.search();
        const c = await eon.search();
        return [{ copy: a! }, { copy: c! }];
      });
      expect(outcomes.map((outcome) => outcome.deleted && outcome.next?.meta)).toEqual([
        { n: 'd' },
        { n: 'e' },
      ]);
    });

    it('keeps the share gate exact over many completions of one call', async () => {
      for (const order of [
        ['eon', 'etw', 'aux'],
        ['aux', 'etw', 'eon'],
      ]) {
        const { outcomes } = await both(async (q) => {
          const [first, second, third] = order.map((worker) => q.engine(worker));
          const eon =
            order.indexOf('eon') === 0 ? first! : order.indexOf('eon') === 1 ? second! : third!;
          for (let n = 0; n < 9; n++) await eon.create({ meta: { n: String(n) } });
          const claimed = [];
          for (const engine of [first!, second!, third!, eon, eon])
            claimed.push(await engine.search());
          const mine = claimed.filter((task) => task?.core?.[Label.Worker] === 'eon');
          return mine.map((task) => ({ copy: task! }));
        });
        expect(outcomes.length).toBeGreaterThanOrEqual(3);
      }
    });

    it('claims nothing when the share gate refuses, and parks nothing without a slot', async () => {
      const { outcomes } = await both(async (q, eon) => {
        const etw = q.engine('etw');
        for (const n of ['a', 'b', 'c']) await eon.create({ meta: { n } });
        const a = await eon.search();
        const b = await eon.search();
        await etw.search();
        return [{ copy: a! }, { copy: b! }];
      });
      expect(outcomes.map((outcome) => outcome.deleted && outcome.next)).toEqual([
        undefined,
        undefined,
      ]);
    });

    it('removes the failed attempt a completed task had', async () => {
      await both(async (q, eon) => {
        for (const n of ['a', 'b']) await eon.create({ meta: { n } });
        const a = await eon.search();
        expect(await failTask(eon, a!, 'failed', '{"error":{"message":"no"}}')).toBe(true);
        return [{ copy: a! }];
      });
    });

    it('keeps no outcome when the retention is 0', async () => {
      const { outcomes } = await both(
        async (q, eon) => {
          for (const n of ['a', 'b', 'c']) await eon.create({ meta: { n } });
          return [{ copy: (await eon.search())! }, { copy: (await eon.search())! }];
        },
        { outcomeRetention: 0 },
      );
      expect(outcomes.map((outcome) => outcome.deleted && outcome.next?.meta)).toEqual([
        { n: 'c' },
        undefined,
      ]);
    });

    it('writes the same events while someone tails the queue', async () => {
      let tail: Engine | undefined;
      await both(async (q, eon) => {
        tail = eon;
        await eon.events(); // makes the stream: scripts write events while it exists
        for (const n of ['a', 'b', 'c']) await eon.create({ meta: { n } });
        return [{ copy: (await eon.search())! }, { copy: (await eon.search())! }];
      });
      // the serial queue's (set up last), which both() found equal to the other's
      const events = await tail!.events();
      expect(events.map((event) => event.kind)).toEqual([
        ...['created', 'created', 'created', 'claimed', 'claimed'],
        ...['completed', 'claimed', 'completed'], // a; c; b, and nothing left to claim
      ]);
    });

    it('hands over to the general path for tasks and queues that are not plain', async () => {
      const { outcomes } = await both(async (q, eon) => {
        await eon.create({ meta: { n: 'plain-1' } });
        await eon.create({ meta: { n: 'leaf' }, root: { r: '1' } });
        await eon.create({ meta: { n: 'plain-2' } });
        await eon.create({
          meta: { n: 'uni' },
          node: { [Label.Method]: Method.Uni, [Label.Worker]: 'eon' },
        });
        await eon.create({ meta: { n: 'plain-3' } });
        const first = await eon.search({ meta: { n: 'plain-1' } });
        const leaf = await eon.search({ meta: { n: 'leaf' } });
        return [
          { copy: first! },
          { copy: leaf! },
          { copy: (await eon.search({ meta: { n: 'uni' } }))! },
        ];
      });
      expect(outcomes.map((outcome) => outcome.deleted && outcome.next?.meta?.['n'])).toEqual([
        'plain-2',
        'plain-3',
        undefined,
      ]);
    });

    it('deletes a plain task whose copy a bypass names, owned by another worker', async () => {
      const { outcomes, queue } = await both(async (q, eon) => {
        const etw = q.engine('etw');
        for (const n of ['a', 'b']) await eon.create({ meta: { n } });
        const a = await etw.search();
        return [{ copy: { ...a!, core: { ...a!.core, [Label.Bypass]: 'true' } } }];
      });
      expect(outcomes[0]?.deleted && outcomes[0].next?.meta).toEqual({ n: 'b' });
      expect(queue.map((task) => [task.meta, task.core?.[Label.Worker]])).toEqual([
        [{ n: 'b' }, 'eon'],
      ]);
    });
  });
});
