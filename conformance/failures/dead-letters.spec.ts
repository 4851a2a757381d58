import type { Engine } from '../../lib/engine/engine.js';
import { UnrecoverableError } from '../../lib/errors.js';
import { Label } from '../../lib/task/label.js';
import type { Handler } from '../../lib/worker/handler.js';
import { Worker } from '../../lib/worker/worker.js';
import { useQueue } from '../harness/queue.js';
import { idOf, until } from '../harness/worker.js';

// Dead letters: the tasks the circuit breaker halted. tasks({ state:
// 'halted' }) lists them with the outcome each halt recorded (the error,
// its stack, the log), and resetTasks / removeTasks / cancelTasks act on
// every task of a state that a label query matches.

describe('dead letters', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');
  const workers: Worker[] = [];
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((worker) => worker.stop()));
  });

  /** deadLetters: `count` tasks of kind `kind` halted by an UnrecoverableError, their ids. */
  async function deadLetters(engine: Engine, kind: string, count: number): Promise<string[]> {
    const handler: Handler = {
      filter: (task) => task.meta?.['kind'] === kind,
      ensure: (_task, context) => {
        context.log('about to fail');
        return Promise.reject(new UnrecoverableError(`no such customer (${kind})`));
      },
    };
    const worker = new Worker(engine, [handler], { background: false, pollInterval: 50 });
    workers.push(worker);
    await worker.start();
    const ids: string[] = [];
    for (let n = 0; n < count; n++)
      ids.push(idOf(await engine.create({ meta: { kind, n: `${n}` } })));
    await until(
      async () =>
        (await engine.tasks({ state: 'halted', query: { meta: { kind } } })).tasks.length === count,
      5_000,
      `${count} ${kind} tasks halted`,
    );
    await worker.stop();
    return ids;
  }

  it('tasks({ state: halted }) carries the error, stack and log of each halt', async () => {
    const eon = queue().engine('eon');
    const [id = ''] = await deadLetters(eon, 'mail', 1);
    const page = await eon.tasks({ state: 'halted' });
    expect(page.tasks.map(idOf)).toEqual([id]);
    expect(page.outcomes?.[id]).toMatchObject({
      state: 'failed',
      cycles: 1,
      log: ['about to fail'],
      error: { message: 'no such customer (mail)', code: 'UNRECOVERABLE' },
    });
    expect(page.outcomes?.[id]?.error?.stack).toMatch(
      /^UnrecoverableError: no such customer \(mail\)\n\s+at /,
    );
    // other states carry none
    expect((await eon.tasks({ state: 'all' })).outcomes).toBeUndefined();
  });

  it('resetTasks hands the halted tasks a query matches out again, and leaves the others', async () => {
    const eon = queue().engine('eon');
    const mail = await deadLetters(eon, 'mail', 3);
    const [report = ''] = await deadLetters(eon, 'report', 1);
    const listed = await eon.resetTasks({ query: { meta: { kind: 'mail' } }, dryRun: true });
    expect(listed).toEqual({ ids: mail, skipped: [], more: false });
    expect((await eon.stats()).halted).toBe(4); // a dry run changes nothing
    const done = await eon.resetTasks({ query: { meta: { kind: 'mail' } } });
    expect([...done.ids].sort()).toEqual([...mail].sort());
    const halted = await eon.tasks({ state: 'halted' });
    expect(halted.tasks.map(idOf)).toEqual([report]);
    const claimed = await eon.search({ meta: { kind: 'mail' } });
    expect(mail).toContain(idOf(claimed));
    expect(claimed?.core?.[Label.Cycles]).toBeUndefined();
  });

  it('removeTasks removes the dead letters a query matches (outcome removed); most bounds a call', async () => {
    const eon = queue().engine('eon');
    const mail = await deadLetters(eon, 'mail', 3);
    const first = await eon.removeTasks({
      state: 'halted',
      query: { meta: { kind: 'mail' } },
      most: 2,
    });
    expect(first.ids).toHaveLength(2);
    expect(first.more).toBe(true);
    const rest = await eon.removeTasks({ state: 'halted' });
    expect([...first.ids, ...rest.ids].sort()).toEqual([...mail].sort());
    expect((await eon.stats()).halted).toBe(0);
    expect(await eon.status(mail[0] ?? '')).toMatchObject({ state: 'removed' });
  });

  it('cancelTasks cancels the queued tasks a query matches; resetTasks skips tasks without a breaker', async () => {
    const eon = queue().engine('eon');
    const a = await eon.create({ meta: { kind: 'sync', n: '1' } });
    const b = await eon.create({ meta: { kind: 'sync', n: '2' } });
    const other = await eon.create({ meta: { kind: 'other' } });
    expect(await eon.resetTasks({ state: 'claimable', query: { meta: { kind: 'sync' } } })).toEqual(
      {
        ids: [],
        skipped: [
          { id: idOf(a), reason: 'no circuit breaker (core cancel) to reset' },
          { id: idOf(b), reason: 'no circuit breaker (core cancel) to reset' },
        ],
        more: false,
      },
    );
    const cancelled = await eon.cancelTasks({ query: { meta: { kind: 'sync' } } });
    expect([...cancelled.ids].sort()).toEqual([idOf(a), idOf(b)].sort());
    expect(await eon.status(idOf(a))).toMatchObject({ state: 'cancelled' });
    expect((await eon.tasks({ state: 'all' })).tasks.map(idOf)).toEqual([idOf(other)]);
  });

  it('keeps the outcome of a halt for failedOutcomeRetention, apart from the other outcomes', async () => {
    const q = queue();
    const options = { outcomeRetention: 1_000, failedOutcomeRetention: 60_000 };
    const eon = q.engine('eon', options);
    const [unrecoverable = ''] = await deadLetters(eon, 'mail', 1); // halted by the worker (retry.lua)
    const revoked = await eon.create({ core: { [Label.Cancel]: '1' }, meta: { kind: 'lease' } });
    await q.engine('claimer', { ...options, expiry: 1_000 }).search({ meta: { kind: 'lease' } });
    const done = await eon.create({ meta: { kind: 'done' } });
    await eon.delete((await q.engine('owner', options).search({ meta: { kind: 'done' } })) ?? {});
    q.clock.advance(1_500);
    await eon.expire(); // the lease ended: the breaker halts it (expire.lua)
    expect(await eon.status(idOf(revoked))).toMatchObject({
      state: 'halted',
      outcome: { state: 'failed' },
    });
    q.clock.advance(2_000);
    await eon.expire();
    expect(await eon.status(idOf(done))).toBeUndefined(); // 1 s: gone
    const page = await eon.tasks({ state: 'halted' });
    expect(Object.keys(page.outcomes ?? {}).sort()).toEqual([unrecoverable, idOf(revoked)].sort());
    q.clock.advance(60_000);
    await eon.expire();
    expect((await eon.tasks({ state: 'halted' })).outcomes).toEqual({});
    expect(() => q.engine('bad', { failedOutcomeRetention: -1 })).toThrow(
      /Engine option "failedOutcomeRetention"/,
    );
  });

  /** halt: a task with cancel 1 whose lease ends; expire's revocation halts it now. */
  async function halt(q: ReturnType<typeof queue>, engine: Engine, kind: string): Promise<string> {
    const id = idOf(await engine.create({ core: { [Label.Cancel]: '1' }, meta: { kind } }));
    await q.engine(`claimer-${kind}`, { expiry: 1_000 }).search({ meta: { kind } });
    q.clock.advance(1_000);
    await engine.expire();
    expect((await engine.status(id))?.state).toBe('halted');
    return id;
  }

  it('haltedRetention: keeps a halted task that long after it halted, whenever it was created, then removes it', async () => {
    const q = queue();
    const eon = q.engine('eon', {
      cleanup: 10_000,
      haltedRetention: 60_000,
      failedOutcomeRetention: 120_000,
    });
    const plain = idOf(await eon.create({ meta: { kind: 'plain' } }));
    q.clock.advance(5_000);
    const id = await halt(q, eon, 'mail'); // created at :06, halted at :07
    expect(await q.redis.zscore(q.key['halted-since'], id)).toBe(String(q.clock().getTime()));
    const halted = q.clock().getTime();
    q.clock.advance(20_000); // past cleanup from creation
    await eon.expire();
    expect(await eon.status(plain)).toBeUndefined(); // cleanup: gone
    expect((await eon.status(id))?.state).toBe('halted'); // a dead letter: kept
    q.clock.set(new Date(halted + 60_000).toISOString());
    await eon.expire();
    expect((await eon.status(id))?.state).toBe('halted');
    q.clock.set(new Date(halted + 60_001).toISOString());
    await eon.expire();
    // the task is gone; the outcome its halt recorded stays for failedOutcomeRetention
    expect(await eon.tasks({ state: 'halted' })).toMatchObject({ tasks: [] });
    expect(await eon.status(id)).toMatchObject({ outcome: { state: 'failed' } });
    expect(await q.redis.zcard(q.key['halted-since'])).toBe(0);
    expect(await q.redis.zcard(q.key.halted)).toBe(0);
  });

  it('haltedRetention defaults to cleanup, from when the task halted; a reset task leaves halted-since; a halted cron task stays', async () => {
    const q = queue();
    const eon = q.engine('eon', { cleanup: 10_000 });
    const exact = idOf(
      await eon.create({
        core: { [Label.Cancel]: '1' },
        cron: { [Label.Exact]: '2023-10-20T00:00:02Z' },
        meta: { kind: 'exact' },
      }),
    );
    q.clock.advance(1_000);
    await q.engine('claimer-exact', { expiry: 1_000 }).search({ meta: { kind: 'exact' } });
    q.clock.advance(4_000);
    const first = await halt(q, eon, 'a'); // created at :06, halted at :07
    const second = await halt(q, eon, 'b'); // halted at :08
    expect((await eon.status(exact))?.state).toBe('halted');
    // halted tasks retention may delete: by when they halted, not in `retention`
    expect(await q.redis.zrange(q.key['halted-since'], 0, -1)).toEqual([first, second]);
    expect(await q.redis.zcard(q.key.retention)).toBe(0);
    expect(await eon.resetTasks({ query: { meta: { kind: 'b' } } })).toMatchObject({
      ids: [second],
    });
    expect(await q.redis.zrange(q.key['halted-since'], 0, -1)).toEqual([first]);
    q.clock.set('2023-10-20T00:00:17Z'); // created 11 s ago, halted 10 s ago: kept
    await eon.expire();
    expect((await eon.status(first))?.state).toBe('halted');
    q.clock.set('2023-10-20T00:00:17.001Z');
    await eon.expire();
    expect(await eon.status(first)).toMatchObject({ outcome: { state: 'failed' } });
    expect(await q.redis.zcard(q.key['halted-since'])).toBe(0);
    q.clock.advance(3_600_000);
    await eon.expire();
    // a halted task with a cron map is never retention's, as before
    expect((await eon.tasks({ state: 'halted' })).tasks.map(idOf)).toEqual([exact]);
  });

  it('refuses a haltedRetention that is not whole ms from 0', () => {
    const q = queue();
    expect(() => q.engine('bad', { haltedRetention: -1 })).toThrow(
      /Engine option "haltedRetention"/,
    );
    expect(() => q.engine('bad', { haltedRetention: 1.5 })).toThrow(
      /Engine option "haltedRetention"/,
    );
  });

  it('refuses a remove or cancel without a query or a state, and a state or most it does not know', async () => {
    const eon = queue().engine('eon');
    await expect(eon.removeTasks({})).rejects.toThrow(/give a "query", or a "state"/);
    await expect(eon.resetTasks({ state: 'nope' as never })).rejects.toThrow(TypeError);
    await expect(eon.cancelTasks({ state: 'all', most: 0 })).rejects.toThrow(TypeError);
    await expect(eon.cancelTasks({ state: 'all', most: 2_000_000 })).rejects.toThrow(RangeError);
  });
});
