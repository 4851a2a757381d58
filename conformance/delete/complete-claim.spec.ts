import type { Engine } from '../../lib/engine/engine.js';
import {
  claimTasks,
  deleteThenSearch,
  filterList,
  searchFor,
  type CompletionOutcome,
  type FilterList,
} from '../../lib/engine/runtime.js';
import { leanClaimOf } from '../../lib/engine/search.js';
import { TaskOutdatedError } from '../../lib/errors.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { maxBatch } from '../../lib/worker/options.js';
import { Worker } from '../../lib/worker/worker.js';
import { queueContents } from '../harness/queue-state.js';
import { monitorQueue } from '../harness/redis.js';
import { useQueue, type TestQueue } from '../harness/queue.js';
import { idOf, until, useWorkerQueue } from '../harness/worker.js';

// The worker runtime's common step is complete-claim.lua: a lean path for
// plain tasks in a plain queue (include/lean.lua), the general delete and
// search for the rest, in the same call. Claims of several free slots go in
// one call too (claimTasks, the Worker option `batch`). Each story runs twice,
// on two queues with the same clock: with the runtime's calls, and with
// public calls one after another; answers and every key must agree
// (docs/semantics.md §3.2, §3.3).

const everything: Task = { meta: { '*': '*' } };
const parked = (slot: number) => ({ slot: String(slot), forMs: 15_000 });

/** next: the task a completion or claim answered, or its error's class name. */
function answerOf(outcome: CompletionOutcome): unknown {
  if (!outcome.deleted) return (outcome.error as Error).constructor.name;
  return outcome.next === undefined ? undefined : [idOf(outcome.next), outcome.next.meta];
}

describe('complete-claim: the lean path and the general one agree', () => {
  const runtime = useQueue('2023-10-20T00:00:01Z');
  const serial = useQueue('2023-10-20T00:00:01Z');

  /** agree checks that both queues hold the same, down to every key (the request answers aside). */
  async function agree(a: TestQueue, b: TestQueue): Promise<void> {
    expect(await a.engine('aux').lister(everything)).toEqual(
      await b.engine('aux').lister(everything),
    );
    expect(await queueContents(a.redis, a.prefix, ['requests'])).toEqual(
      await queueContents(b.redis, b.prefix, ['requests']),
    );
  }

  /** serialClaims claims for each slot in turn with public-equivalent searches (each parks its slot). */
  async function serialClaims(
    engine: Engine,
    filters: FilterList,
    slots: number[],
  ): Promise<(Task | undefined)[]> {
    const claimed: (Task | undefined)[] = [];
    for (const slot of slots) claimed.push(await searchFor(engine, filters, [], parked(slot)));
    return claimed;
  }

  it('claims for several slots in one call as searches one after another would, filters and order kept', async () => {
    const [a, b] = [runtime(), serial()];
    const [eonA, eonB] = [a.engine('eon'), b.engine('eon')];
    for (const q of [a, b]) {
      const maker = q.engine('maker');
      for (const k of ['x', 'y', 'x', 'x', 'y', 'x']) await maker.create({ meta: { k } });
    }
    const filters = filterList([{ meta: { k: 'x' } }]);
    const slots = [0, 1, 2, 3, 4, 5];
    const batch = await claimTasks(eonA, filters, slots.map(parked), []);
    const one = await serialClaims(eonB, filters, slots);
    expect(batch.map(answerOf)).toEqual(
      one.map((task) => (task === undefined ? undefined : [idOf(task), task.meta])),
    );
    // the four x tasks, oldest first; the last two slots found nothing and parked
    expect(batch.map((outcome) => outcome.deleted && outcome.next?.meta?.['k'])).toEqual([
      'x',
      'x',
      'x',
      'x',
      undefined,
      undefined,
    ]);
    await agree(a, b);
  });

  it('claims a batch without filters on the lean path, each task with a token of its own', async () => {
    const [a, b] = [runtime(), serial()];
    const [eonA, eonB] = [a.engine('eon'), b.engine('eon')];
    for (const q of [a, b]) {
      const maker = q.engine('maker');
      for (let n = 0; n < 5; n++) await maker.create({ meta: { n: String(n) } });
    }
    const batch = await claimTasks(eonA, filterList([]), [0, 1, 2].map(parked), []);
    await serialClaims(eonB, filterList([]), [0, 1, 2]);
    const tokens = batch.map((outcome) => outcome.deleted && outcome.next?.core?.[Label.Token]);
    expect(new Set(tokens).size).toBe(3);
    await agree(a, b);
  });

  it('completes what its lean claims answered, and claims again, as delete and search would', async () => {
    const [a, b] = [runtime(), serial()];
    const [eonA, eonB] = [a.engine('eon'), b.engine('eon')];
    for (const q of [a, b]) {
      const maker = q.engine('maker');
      for (let n = 0; n < 8; n++) await maker.create({ meta: { n: String(n) } });
    }
    const noFilters = filterList([]);
    let held = (await claimTasks(eonA, noFilters, [0, 1].map(parked), [])).map((outcome) =>
      outcome.deleted ? outcome.next : undefined,
    );
    let heldB = await serialClaims(eonB, noFilters, [0, 1]);
    for (let round = 0; round < 4; round++) {
      const outcomes = await deleteThenSearch(
        eonA,
        held.map((task, slot) => ({ task: task!, filters: noFilters, parking: parked(slot) })),
      );
      const next: (Task | undefined)[] = [];
      for (const [slot, task] of heldB.entries()) {
        await eonB.delete(task!);
        next.push(await searchFor(eonB, noFilters, [], parked(slot)));
      }
      expect(outcomes.map(answerOf)).toEqual(
        next.map((task) => (task === undefined ? undefined : [idOf(task), task.meta])),
      );
      held = outcomes.map((outcome) => (outcome.deleted ? outcome.next : undefined));
      // the completions took the lean path (one ZREM of the `owned` member
      // their claim wrote, since the instant the engine kept): the claims after them did too
      expect(held.map((task) => task === undefined || leanClaimOf(task) !== undefined)).toEqual(
        held.map(() => true),
      );
      heldB = next;
      await agree(a, b);
      if (held.some((task) => task === undefined)) break;
    }
  });

  it('writes the completions and claims of a call before an entry of it that takes the general path', async () => {
    const [a, b] = [runtime(), serial()];
    const [eonA, eonB] = [a.engine('eon'), b.engine('eon')];
    for (const q of [a, b]) {
      const maker = q.engine('maker');
      for (let n = 0; n < 5; n++) await maker.create({ meta: { n: String(n) } });
      await maker.create({ meta: { n: 'u' } }, { unique: { key: 'u' } });
      await maker.create({ meta: { n: 'after' } });
    }
    const noFilters = filterList([]);
    const held = (await claimTasks(eonA, noFilters, [0, 1, 2].map(parked), [])).map((outcome) =>
      outcome.deleted ? outcome.next : undefined,
    );
    const heldB = await serialClaims(eonB, noFilters, [0, 1, 2]);
    // two entries complete and claim on the lean path (written together),
    // the third meets the unique task: the general search, after them
    const outcomes = await deleteThenSearch(
      eonA,
      held.map((task, slot) => ({ task: task!, filters: noFilters, parking: parked(slot) })),
    );
    const next: (Task | undefined)[] = [];
    for (const [slot, task] of heldB.entries()) {
      await eonB.delete(task!);
      next.push(await searchFor(eonB, noFilters, [], parked(slot)));
    }
    expect(outcomes.map(answerOf)).toEqual(
      next.map((task) => (task === undefined ? undefined : [idOf(task), task.meta])),
    );
    expect(next.map((task) => task?.meta?.['n'])).toEqual(['3', '4', 'u']);
    await agree(a, b);
  });

  /** completeBoth completes each held copy and claims for its slot: in one call on `a`, one after another on `b`. */
  async function completeBoth(
    a: TestQueue,
    b: TestQueue,
    held: (Task | undefined)[],
    heldB: (Task | undefined)[],
  ): Promise<[CompletionOutcome[], (Task | undefined)[]]> {
    const noFilters = filterList([]);
    const outcomes = await deleteThenSearch(
      a.engine('eon'),
      held.map((task, slot) => ({ task: task!, filters: noFilters, parking: parked(slot) })),
    );
    const next: (Task | undefined)[] = [];
    for (const [slot, task] of heldB.entries()) {
      const eonB = b.engine('eon');
      const deleted = await eonB.delete(task!).then(
        () => undefined,
        (error: unknown) => error,
      );
      next.push(
        deleted === undefined ? await searchFor(eonB, noFilters, [], parked(slot)) : undefined,
      );
    }
    expect(outcomes.map(answerOf)).toEqual(
      next.map((task) => (task === undefined ? undefined : [idOf(task), task.meta])),
    );
    return [outcomes, next];
  }

  // each lean completion drops its `owned` member with a ZREM of its own
  // (include/lean.lua lean_complete): it is the holder check, and these
  // stories hold any way of writing it to the same outcome
  it('completes on the general path what follows an entry that took it, with the `owned` members of those completions', async () => {
    const [a, b] = [runtime(), serial()];
    for (const q of [a, b]) {
      const maker = q.engine('maker');
      for (let n = 0; n < 4; n++) await maker.create({ meta: { n: String(n) } });
    }
    const noFilters = filterList([]);
    const held = (await claimTasks(a.engine('eon'), noFilters, [0, 1, 2, 3].map(parked), [])).map(
      (outcome) => (outcome.deleted ? outcome.next : undefined),
    );
    const heldB = await serialClaims(b.engine('eon'), noFilters, [0, 1, 2, 3]);
    for (const q of [a, b]) {
      const maker = q.engine('maker');
      await maker.create({ meta: { n: 'u' } }, { unique: { key: 'u' } });
      await maker.create({ meta: { n: 'after' } });
    }
    // the first entry completes on the lean path and meets the unique task:
    // the general search, and the general delete for the three after it
    const [, next] = await completeBoth(a, b, held, heldB);
    expect(next.map((task) => task?.meta?.['n'])).toEqual(['u', 'after', undefined, undefined]);
    await agree(a, b);
  });

  it.each([
    ['dropped', (member: string) => [member]],
    ['written anew by a repair', (member: string) => [member, member.replace(/:\d+:/, '::')]],
  ])(
    'completes a batch one of whose `owned` members was %s as one entry at a time would',
    async (_how, change) => {
      const [a, b] = [runtime(), serial()];
      for (const q of [a, b]) {
        const maker = q.engine('maker');
        for (let n = 0; n < 8; n++) await maker.create({ meta: { n: String(n) } });
      }
      const noFilters = filterList([]);
      const held = (await claimTasks(a.engine('eon'), noFilters, [0, 1, 2].map(parked), [])).map(
        (outcome) => (outcome.deleted ? outcome.next : undefined),
      );
      const heldB = await serialClaims(b.engine('eon'), noFilters, [0, 1, 2]);
      for (const q of [a, b]) {
        const members = await q.redis.zrange(q.key.owned, 0, -1);
        const member = members.find((text) => text.startsWith(`${idOf(held[1])}:`))!;
        const [gone, added] = change(member) as [string, string | undefined];
        await q.redis.zrem(q.key.owned, gone);
        if (added !== undefined) await q.redis.zadd(q.key.owned, 0, added);
      }
      const [outcomes] = await completeBoth(a, b, held, heldB);
      expect(outcomes).toHaveLength(3);
      await agree(a, b);
    },
  );

  it('leaves a head of `ready` it does not claim (a unique task) where it was, for the general search, on a call of one claim', async () => {
    const [a, b] = [runtime(), serial()];
    const [eonA, eonB] = [a.engine('eon'), b.engine('eon')];
    for (const q of [a, b]) {
      const maker = q.engine('maker');
      await maker.create({ meta: { n: 'u' } }, { unique: { key: 'u' } });
      await maker.create({ meta: { n: 'plain' } });
    }
    const noFilters = filterList([]);
    // the lean claim pops the unique task, puts it back, and the general search claims it
    const [first] = await claimTasks(eonA, noFilters, [parked(0)], []);
    const [firstB] = await serialClaims(eonB, noFilters, [0]);
    expect(answerOf(first!)).toEqual([idOf(firstB), firstB!.meta]);
    expect(firstB!.meta).toEqual({ n: 'u' });
    await agree(a, b);
    // its completion goes the general way; the plain task after it is claimed lean
    const [second] = await deleteThenSearch(eonA, [
      { task: (first as { next: Task }).next, filters: noFilters, parking: parked(0) },
    ]);
    await eonB.delete(firstB!);
    const secondB = await searchFor(eonB, noFilters, [], parked(0));
    expect(answerOf(second!)).toEqual([idOf(secondB), secondB!.meta]);
    await agree(a, b);
  });

  it('passes over a head of `ready` whose record was cut off (not a task: docs/semantics.md §1.10), as search does', async () => {
    const [a, b] = [runtime(), serial()];
    const [eonA, eonB] = [a.engine('eon'), b.engine('eon')];
    for (const q of [a, b]) {
      const maker = q.engine('maker');
      const broken = await maker.create({ meta: { n: 'broken' } });
      await maker.create({ meta: { n: 'plain' } });
      await q.redis.hset(q.key.tasks, idOf(broken), '{"meta": {"n": "bro'); // written by something else
    }
    const noFilters = filterList([]);
    const [first] = await claimTasks(eonA, noFilters, [parked(0)], []);
    const [firstB] = await serialClaims(eonB, noFilters, [0]);
    expect(firstB!.meta).toEqual({ n: 'plain' });
    expect(answerOf(first!)).toEqual([idOf(firstB), firstB!.meta]);
    await agree(a, b);
  });

  it('claims records whose text names a map of four letters, or a label of that shape, as search would (include/lean.lua lean_fresh)', async () => {
    const [a, b] = [runtime(), serial()];
    const [eonA, eonB] = [a.engine('eon'), b.engine('eon')];
    const tasks: Task[] = [
      { meta: { rate: '1', note: 'x' } }, // not a map the lean claim minds: decoded, claimed
      { core: { [Label.Cancel]: '3' }, meta: { k: 'core' } }, // a core: decoded, its labels kept
      { meta: { k: 'plain' }, payload: { core: { a: 1 }, root: 'x' } }, // quotes escaped in the payload
    ];
    for (const q of [a, b]) {
      const maker = q.engine('maker');
      for (const task of tasks) await maker.create(structuredClone(task));
    }
    const noFilters = filterList([]);
    for (let round = 0; round < tasks.length; round++) {
      const [outcome] = await claimTasks(eonA, noFilters, [parked(0)], []);
      const [claimed] = await serialClaims(eonB, noFilters, [0]);
      expect(answerOf(outcome!)).toEqual([idOf(claimed), claimed!.meta]);
      expect((outcome as { next: Task }).next.core).toEqual(claimed!.core);
      await agree(a, b);
      await eonA.delete((outcome as { next: Task }).next);
      await eonB.delete(claimed!);
    }
  });

  it("answers each call with its own engine's values, whatever engines call before it (include/engine-args.lua)", async () => {
    const q = runtime();
    // a worker id of colons and more than ASCII; another engine keeps outcomes
    const [odd, keeper] = [q.engine('w:1:é', { outcomeRetention: 0 }), q.engine('w:2')];
    for (let n = 0; n < 8; n++) await odd.create({ meta: { n: String(n) } });
    const noFilters = filterList([]);
    const first = (outcomes: CompletionOutcome[]) =>
      (outcomes[0]?.deleted === true ? outcomes[0].next : undefined) as Task;
    let [oddTask, keeperTask] = [
      first(await claimTasks(odd, noFilters, [parked(0)], [])),
      first(await claimTasks(keeper, noFilters, [parked(0)], [])),
    ];
    const completed = { odd: [] as string[], keeper: [] as string[] };
    for (let round = 0; round < 3; round++) {
      completed.odd.push(idOf(oddTask));
      oddTask = first(await deleteThenSearch(odd, [{ task: oddTask, filters: noFilters }]));
      completed.keeper.push(idOf(keeperTask));
      keeperTask = first(
        await deleteThenSearch(keeper, [{ task: keeperTask, filters: noFilters }]),
      );
    }
    expect([oddTask.core?.[Label.Worker], keeperTask.core?.[Label.Worker]]).toEqual([
      'w:1:é',
      'w:2',
    ]);
    expect(await q.redis.hgetall(q.key.owners)).toEqual({ 'w:1:é': '1', 'w:2': '1' });
    // only the engine that keeps outcomes kept its completions'
    expect((await q.redis.hkeys(q.key.outcomes)).sort()).toEqual(completed.keeper.sort());
  });

  it.each([
    ['gone (a repair under way)', (): string | undefined => undefined],
    // repair indexed the record anew: it cannot know the claim's instant
    ["written anew by a repair (since '')", (member: string) => member.replace(/:\d+:/, '::')],
  ])(
    'completes a lean claim whose `owned` member is %s as delete and search would',
    async (_case, anew) => {
      const [a, b] = [runtime(), serial()];
      const [eonA, eonB] = [a.engine('eon'), b.engine('eon')];
      for (const q of [a, b]) {
        const maker = q.engine('maker');
        for (let n = 0; n < 3; n++) await maker.create({ meta: { n: String(n) } });
      }
      const noFilters = filterList([]);
      const [claim] = await claimTasks(eonA, noFilters, [parked(0)], []);
      const heldA = (claim?.deleted === true ? claim.next : undefined) as Task;
      const [heldB] = (await serialClaims(eonB, noFilters, [0])) as [Task];
      for (const [q, task] of [
        [a, heldA],
        [b, heldB],
      ] as const) {
        const id = idOf(task);
        const [member] = await q.redis.zrangebylex(q.key.owned, `[${id}:`, `(${id};`);
        expect(member).toMatch(new RegExp(`^${id}:\\d+:eon$`));
        await q.redis.zrem(q.key.owned, member!);
        const written = anew(member!);
        if (written !== undefined) await q.redis.zadd(q.key.owned, 0, written);
      }
      const outcomes = await deleteThenSearch(eonA, [
        { task: heldA, filters: noFilters, parking: parked(0) },
      ]);
      await eonB.delete(heldB);
      const next = await searchFor(eonB, noFilters, [], parked(0));
      expect(outcomes.map(answerOf)).toEqual([[idOf(next), next!.meta]]);
      await agree(a, b);
    },
  );

  it('fails only the completion whose copy is outdated, with TaskOutdatedError, and goes on with the others', async () => {
    const q = runtime();
    const eon = q.engine('eon');
    for (let n = 0; n < 6; n++) await eon.create({ meta: { n: String(n) } });
    const noFilters = filterList([]);
    const claimed = (await claimTasks(eon, noFilters, [0, 1, 2].map(parked), [])).map(
      (outcome) => (outcome.deleted ? outcome.next : undefined) as Task,
    );
    // the second copy's claim ended: its lease ran out and another worker claimed it
    q.clock.set('2023-10-20T00:01:00Z');
    await eon.expire();
    const stolen = await q.engine('etw').search({ meta: { n: '1' } });
    expect(stolen?.core?.[Label.Worker]).toBe('etw');
    const [first, second, third] = claimed as [Task, Task, Task];
    const outcomes = await deleteThenSearch(eon, [
      { task: first, filters: noFilters },
      { task: second, filters: noFilters },
      { task: third, filters: noFilters },
    ]);
    expect(outcomes.map((outcome) => outcome.deleted)).toEqual([false, false, false]);
    // all three leases ran out, only the second was claimed again: each copy is outdated
    // or gone on its own, and the fresh claim of the second stays another worker's
    expect(outcomes[1]?.deleted === false && outcomes[1].error).toBeInstanceOf(TaskOutdatedError);
    expect((await q.engine('aux').lister({ meta: { n: '1' } }))[0]?.core?.[Label.Worker]).toBe(
      'etw',
    );
  });

  it('completes the current copies of a batch and fails the outdated one alone', async () => {
    const q = runtime();
    const eon = q.engine('eon');
    for (let n = 0; n < 6; n++) await eon.create({ meta: { n: String(n) } });
    const noFilters = filterList([]);
    const [first, second, third] = (
      await claimTasks(eon, noFilters, [0, 1, 2].map(parked), [])
    ).map((outcome) => (outcome.deleted ? outcome.next : undefined) as Task) as [Task, Task, Task];
    const outdated = { ...second, core: { ...second.core, [Label.Token]: '999' } };
    const outcomes = await deleteThenSearch(eon, [
      { task: first, filters: noFilters },
      { task: outdated, filters: noFilters },
      { task: third, filters: noFilters },
    ]);
    expect(outcomes.map(answerOf)).toEqual([
      expect.any(Array),
      'TaskOutdatedError',
      expect.any(Array),
    ]);
    const left = await q.engine('aux').lister(everything);
    expect(left.map((task) => [task.meta?.['n'], task.core?.[Label.Worker]])).toEqual([
      ['1', 'eon'], // untouched: still the second claim's
      ['3', 'eon'],
      ['4', 'eon'],
      ['5', undefined],
    ]);
  });

  it('gives every task of a batch whose worker died back once their leases end', async () => {
    const q = runtime();
    const eon = q.engine('eon');
    for (let n = 0; n < 4; n++) await eon.create({ meta: { n: String(n) } });
    await claimTasks(eon, filterList([]), [0, 1, 2].map(parked), []);
    expect(await q.redis.hget(q.key.owners, 'eon')).toBe('3');
    q.clock.set('2023-10-20T00:01:00Z'); // past the 30 s leases
    await q.engine('aux').expire();
    const left = await q.engine('aux').lister(everything);
    expect(left.map((task) => task.core?.[Label.Worker])).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(await q.redis.hlen(q.key.owners)).toBe(0);
    expect(await q.redis.zcard(q.key.leases)).toBe(0);
    // claimable again, by anyone
    expect(idOf(await q.engine('etw').search())).toBe(idOf(left[0]));
  });
});

describe('complete-claim: a slot that finds nothing parks on the lean path as on the general one', () => {
  // The same story on two queues with the same clock: the runtime's calls,
  // and the same calls excluding an id no task has (a rare argument: the
  // whole call takes the general path, with the same result). Answers, every
  // key and the answers kept for the calls that claimed nothing must agree
  // (include/lean.lua lean_park).
  const lean = useQueue('2023-10-20T00:00:01Z');
  const general = useQueue('2023-10-20T00:00:01Z');
  const nobody = '0000000000000-000000000000';
  const noFilters = filterList([]);

  interface Calls {
    claim: (engine: Engine, slots: number[]) => Promise<(Task | undefined)[]>;
    /** complete completes the tasks, each searching for the slot beside it (undefined: no slot). */
    complete: (
      engine: Engine,
      tasks: Task[],
      slots: (number | undefined)[],
    ) => Promise<(Task | undefined)[]>;
  }
  type Story = (q: TestQueue, calls: Calls) => Promise<void>;

  interface Run {
    answers: unknown[];
    /** the kept answers of the calls none of whose entries claimed */
    kept: string[];
    /** the general search's probe of optional keys (`EXISTS broadcast ...`), how many times it ran */
    probes: number;
  }

  async function run(q: TestQueue, story: Story, exclude: string[]): Promise<Run> {
    const result: Run = { answers: [], kept: [], probes: 0 };
    const next = (outcomes: CompletionOutcome[]) => {
      result.answers.push(
        ...outcomes.map((outcome) => [answerOf(outcome), outcome.deleted && outcome.next?.core]),
      );
      return outcomes.map((outcome) => (outcome.deleted ? outcome.next : undefined));
    };
    /** keep: the answer a call kept (the request's number aside), when none of its entries claimed */
    const keep = async (call: () => Promise<(Task | undefined)[]>) => {
      const before = await q.redis.hgetall(q.key.requests);
      const tasks = await call();
      if (tasks.every((task) => task === undefined)) {
        for (const [field, value] of Object.entries(await q.redis.hgetall(q.key.requests))) {
          if (before[field] !== value) result.kept.push(value.slice(value.indexOf('|') + 1));
        }
      }
      return tasks;
    };
    const monitor = await monitorQueue(q.redis, (args) => {
      if (args[0]?.toLowerCase() === 'exists' && args[1] === q.key.broadcast) result.probes++;
    });
    try {
      await story(q, {
        claim: (engine, slots) =>
          keep(async () => next(await claimTasks(engine, noFilters, slots.map(parked), exclude))),
        complete: (engine, tasks, slots) =>
          keep(async () => {
            const completions = tasks.map((task, index) => {
              const slot = slots[index];
              return {
                task,
                filters: noFilters,
                ...(slot === undefined ? {} : { parking: parked(slot) }),
              };
            });
            return next(await deleteThenSearch(engine, completions, exclude));
          }),
      });
    } finally {
      await monitor.stop();
    }
    return result;
  }

  /** both runs the story both ways and compares; it answers the lean run's. */
  async function both(story: Story): Promise<Run> {
    const [a, b] = [lean(), general()];
    const leanRun = await run(a, story, []);
    const generalRun = await run(b, story, [nobody]);
    expect(await queueContents(a.redis, a.prefix, ['requests'])).toEqual(
      await queueContents(b.redis, b.prefix, ['requests']),
    );
    expect(leanRun.answers).toEqual(generalRun.answers);
    expect(leanRun.kept).toEqual(generalRun.kept);
    expect(leanRun.kept.length).toBeGreaterThan(0);
    expect(generalRun.probes).toBeGreaterThan(0);
    return leanRun;
  }

  it('parks the slot of a completion that finds `ready` empty without the general search', async () => {
    const { probes } = await both(async (q, { claim, complete }) => {
      const eon = q.engine('eon');
      await eon.create({ meta: { n: 'a' } });
      const [a] = await claim(eon, [0]);
      expect(await complete(eon, [a!], [0])).toEqual([undefined]); // parks
      expect(await q.redis.hkeys(q.key['parked-slots'])).toEqual(['eon\u00000']);
      await eon.create({ meta: { n: 'b' } }); // wakes it
      expect(await q.redis.hlen(q.key['parked-slots'])).toBe(0);
      const [b] = await claim(eon, [0]);
      expect(b?.meta).toEqual({ n: 'b' });
      q.clock.advance(1_000);
      expect(await complete(eon, [b!], [0])).toEqual([undefined]); // parks again
    });
    expect(probes).toBe(0); // the lean run searched with the general search not once
  });

  it('parks every slot of a batch whose claims and completions find nothing left', async () => {
    await both(async (q, { claim, complete }) => {
      const eon = q.engine('eon');
      for (const n of ['a', 'b', 'c']) await eon.create({ meta: { n } });
      const held = await claim(eon, [0, 1, 2, 3]); // the fourth slot parks
      expect(held.map((task) => task?.meta?.['n'])).toEqual(['a', 'b', 'c', undefined]);
      expect(await complete(eon, held.slice(0, 3) as Task[], [0, 1, 2])).toEqual([
        undefined,
        undefined,
        undefined,
      ]);
      expect(await q.redis.hlen(q.key['parked-slots'])).toBe(4);
    });
  });

  it('parks when the share gate is closed and `ready` empty, and leaves a gate closed over tasks to the general search', async () => {
    await both(async (q, { claim, complete }) => {
      const [eon, etw] = [q.engine('eon'), q.engine('etw')];
      for (const n of ['a', 'b', 'c', 'd', 'e', 'f']) await eon.create({ meta: { n } });
      const mine = await claim(eon, [0, 1, 2, 3]); // alone: a, b, c, d
      const theirs = await claim(etw, [0, 1]); // e, f
      expect(await complete(etw, [theirs[0]!], [0])).toEqual([undefined]); // its share is open: parks
      expect(await claim(etw, [2, 3])).toEqual([undefined, undefined]); // park
      expect(await complete(eon, [mine[0]!], [0])).toEqual([undefined]); // its share is closed: parks
      for (const n of ['g', 'h']) await eon.create({ meta: { n } }); // each wakes a slot of the four
      // g; then eon's share closes over h: the general search passes the
      // wake-up on to a slot of etw's, and parks eon's
      const last = await complete(eon, [mine[1]!, mine[2]!], [1, 2]);
      expect(last.map((task) => task?.meta?.['n'])).toEqual(['g', undefined]);
      expect(await q.redis.hlen(q.key['parked-slots'])).toBe(2);
    });
  });

  it('answers a completion without a slot as the general search does, parking nothing', async () => {
    await both(async (q, { claim, complete }) => {
      const eon = q.engine('eon');
      await eon.create({ meta: { n: 'a' } });
      const [a] = await claim(eon, [0]);
      expect(await complete(eon, [a!], [undefined])).toEqual([undefined]);
      expect(await q.redis.exists(q.key['parked-slots'])).toBe(0);
    });
  });
});

describe('Worker option batch', () => {
  const queue = useWorkerQueue();

  it.each([
    [16, 16],
    [50, 16],
    [3, 8],
  ])(
    'ensures every task exactly once at concurrency %i with batch %i',
    async (concurrency, batch) => {
      const eon = queue().live('eon');
      const created = new Set<string>();
      for (let start = 0; start < 300; start += 100) {
        const tasks = await Promise.all(
          Array.from({ length: 100 }, (_, index) =>
            eon.create({ meta: { n: String(start + index) } }),
          ),
        );
        for (const task of tasks) created.add(idOf(task));
      }
      const calls = new Map<string, number>();
      let running = 0;
      let most = 0;
      const worker = queue().worker(
        eon,
        [
          {
            filter: () => true,
            ensure: async (task) => {
              running++;
              most = Math.max(most, running);
              calls.set(idOf(task), (calls.get(idOf(task)) ?? 0) + 1);
              await new Promise((resolve) => setImmediate(resolve));
              running--;
            },
          },
        ],
        { concurrency, batch, pollInterval: 60_000 },
      );
      await worker.start();
      await until(() => queue().log(worker).ensured.length >= 300, 15_000, '300 tasks ensured');
      expect([...calls.keys()].sort()).toEqual([...created].sort());
      expect([...calls.values()].every((count) => count === 1)).toBe(true);
      expect(most).toBeLessThanOrEqual(concurrency); // never more tasks than slots
      const log = queue().log(worker);
      expect({ lost: log.lost, errors: log.errors }).toEqual({ lost: [], errors: [] });
    },
    20_000,
  );

  it('hands back the claims of a batch that stop() overtook', async () => {
    const eon = queue().live('eon');
    for (let n = 0; n < 4; n++) await eon.create({ meta: { n: String(n) } });
    const worker = queue().worker(eon, [{ filter: () => true, ensure: () => Promise.resolve() }], {
      concurrency: 8,
      batch: 8,
      pollInterval: 60_000,
    });
    await worker.start();
    await until(() => queue().log(worker).ensured.length >= 4, 10_000, '4 tasks ensured');
    await worker.stop();
    const aux = queue().live('aux');
    expect(await aux.exists(everything)).toBe(false);
  });

  it('is checked like the other options', () => {
    const eon = queue().live('eon');
    const make = (batch: unknown) =>
      new Worker(eon, [{ filter: () => true, ensure: () => Promise.resolve() }], {
        batch: batch as number,
      });
    expect(() => make(0)).toThrow(TypeError);
    expect(() => make(1.5)).toThrow(TypeError);
    expect(() => make('4')).toThrow(TypeError);
    expect(() => make(maxBatch + 1)).toThrow(RangeError);
    expect(() => make(maxBatch)).not.toThrow();
  });
});
