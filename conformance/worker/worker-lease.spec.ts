import { TaskNotFoundError, TaskOutdatedError } from '../../lib/errors.js';
import { has } from '../../lib/matcher/matcher.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { parseTime } from '../../lib/task/time.js';
import type { EnsureContext } from '../../lib/worker/handler.js';
import {
  aborted,
  idOf,
  laterMillisecond,
  next,
  signal,
  stored,
  until,
  useWorkerQueue,
  within,
  resolved,
} from '../harness/worker.js';

const kind = (name: string) => (task: Task) => has(task.meta, { kind: name });

describe('Worker leases', () => {
  const queue = useWorkerQueue();

  it('keeps a long ensure owned by auto-extending, while expire runs all the time and another worker waits', async () => {
    const expiry = 300;
    const eon = queue().live('eon', { expiry });
    const etw = queue().live('etw', { expiry });
    const expiries = new Set<string>();
    let aborts = 0;
    const holder = queue().worker(
      eon,
      [
        {
          filter: kind('long'),
          ensure: async (task, context) => {
            context.signal.addEventListener('abort', () => aborts++);
            // run until the lease was renewed five times: longer than two expiries
            await until(
              async () => {
                const expiryLabel = (await stored(eon, idOf(task)))?.core?.[Label.Expiry];
                if (expiryLabel !== undefined) expiries.add(expiryLabel);
                return expiries.size >= 6;
              },
              4_000,
              'five lease renewals',
            );
          },
        },
      ],
      { background: true, expireInterval: 25 },
    );
    const otherCalls: string[] = [];
    const other = queue().worker(
      etw,
      [{ filter: kind('long'), ensure: (task) => resolved(otherCalls.push(idOf(task))) }],
      { background: true, expireInterval: 25, pollInterval: 20 },
    );
    await holder.start();
    const ensured = next(holder, 'task:ensured', 4_000);
    const created = await eon.create({ meta: { kind: 'long' } });
    // the other worker starts once the holder owns the task, and searches every 20 ms
    await until(
      async () => (await stored(eon, idOf(created)))?.core?.[Label.Worker] === 'eon',
      2_000,
      'eon claimed',
    );
    await other.start();
    const [task] = await ensured;

    expect(idOf(task)).toBe(idOf(created));
    expect(aborts).toBe(0);
    expect(otherCalls).toEqual([]);
    expect(queue().log(holder).lost).toEqual([]);
    // expire ran during the ensure (on one of the two workers) and revoked nothing
    expect(queue().log(holder).expireDone + queue().log(other).expireDone).toBeGreaterThan(5);
    expect(task.core?.[Label.Cycles]).toBeUndefined();
    expect(await eon.exists({ meta: { '*': '*' } })).toBe(false);
  });

  it('renews the lease from now when a handler calls context.extend()', async () => {
    const expiry = 60_000;
    const eon = queue().live('eon', { expiry });
    const leases: { claimed: string; extended: string; extendedAt: number }[] = [];
    const worker = queue().worker(
      eon,
      [
        {
          filter: kind('a'),
          ensure: async (task, context) => {
            const claimed = task.core?.[Label.Expiry] ?? '';
            await laterMillisecond(parseTime(claimed).getTime() - expiry);
            const extendedAt = Date.now();
            await context.extend();
            const extended = (await stored(eon, idOf(task)))?.core?.[Label.Expiry] ?? '';
            leases.push({ claimed, extended, extendedAt });
          },
        },
      ],
      { autoExtend: false },
    );
    await worker.start();
    const ensured = next(worker, 'task:ensured', 3_000);
    await eon.create({ meta: { kind: 'a' } });
    await ensured;

    const [lease] = leases;
    expect(parseTime(lease!.extended).getTime()).toBeGreaterThan(
      parseTime(lease!.claimed).getTime(),
    );
    expect(parseTime(lease!.extended).getTime()).toBeGreaterThanOrEqual(lease!.extendedAt + expiry);
  });

  it('keeps a task owned past several expiries by explicit extends alone (autoExtend off)', async () => {
    // an extend every two expire runs (about 200 ms) against a 600 ms lease: six
    // extends outlive two leases, with room for a late timer on a loaded machine
    const expiry = 600;
    const eon = queue().live('eon', { expiry });
    const etw = queue().live('etw', { expiry });
    const extended: string[] = [];
    const holder = queue().worker(
      eon,
      [
        {
          filter: kind('a'),
          ensure: async (task, context) => {
            while (extended.length < 6) {
              await next(holder, 'expire:done', 2_000);
              await next(holder, 'expire:done', 2_000);
              await context.extend();
              extended.push((await stored(eon, idOf(task)))?.core?.[Label.Expiry] ?? '');
            }
          },
        },
      ],
      { autoExtend: false, background: true, expireInterval: 100 },
    );
    const otherCalls: string[] = [];
    const other = queue().worker(
      etw,
      [{ filter: kind('a'), ensure: (task) => resolved(otherCalls.push(idOf(task))) }],
      { pollInterval: 20 },
    );
    await holder.start();
    const ensured = next(holder, 'task:ensured', 8_000);
    const created = await eon.create({ meta: { kind: 'a' } });
    await until(
      async () => (await stored(eon, idOf(created)))?.core?.[Label.Worker] === 'eon',
      2_000,
      'eon claimed',
    );
    await other.start();
    const [task] = await ensured;

    expect(otherCalls).toEqual([]);
    expect(task.core?.[Label.Cycles]).toBeUndefined();
    expect(new Set(extended).size).toBe(6);
    expect(queue().log(holder).lost).toEqual([]);
  });

  it('aborts the signal and emits task:lost when context.extend() finds the lease reset by cycles()', async () => {
    const eon = queue().live('eon', { expiry: 60_000 });
    const started = signal<Task>();
    const go = signal();
    let extendError: unknown;
    let abortedRightAfter: boolean | undefined;
    let abortReason: unknown;
    const worker = queue().worker(
      eon,
      [
        {
          filter: kind('a'),
          ensure: async (task, context) => {
            started.resolve(task);
            await go.promise;
            try {
              await context.extend();
            } catch (error) {
              extendError = error;
            }
            abortedRightAfter = context.signal.aborted;
            abortReason = context.signal.reason;
          },
        },
      ],
      { autoExtend: false },
    );
    await worker.start();
    await eon.create({ core: { [Label.Cancel]: '5' }, meta: { kind: 'a' } });
    const task = await within(started.promise, 3_000, 'ensure started');
    const lost = next(worker, 'task:lost', 3_000);
    await eon.cycles(task);
    go.resolve();
    const [lostTask, lostError] = await lost;

    expect(extendError).toBeInstanceOf(TaskOutdatedError);
    expect(abortedRightAfter).toBe(true);
    expect(abortReason).toBe(extendError);
    expect(idOf(lostTask)).toBe(idOf(task));
    expect(lostError).toBe(extendError);
  });

  it('aborts the signal and does not delete when auto-extend finds the lease reset by cycles() during ensure', async () => {
    const expiry = 300;
    const eon = queue().live('eon', { expiry });
    const visits: { task: Task; reason?: unknown }[] = [];
    const started = signal<Task>();
    const worker = queue().worker(eon, [
      {
        filter: kind('a'),
        ensure: async (task, context: EnsureContext) => {
          const visit: { task: Task; reason?: unknown } = { task: structuredClone(task) };
          visits.push(visit);
          if (visits.length > 1) return; // the second visit completes the task
          started.resolve(task);
          visit.reason = await within(aborted(context.signal), 3_000, 'signal aborted');
        },
      },
    ]);
    await worker.start();
    const created = await eon.create({ core: { [Label.Cancel]: '5' }, meta: { kind: 'a' } });
    const task = await within(started.promise, 3_000, 'ensure started');
    const [ensured] = await Promise.all([next(worker, 'task:ensured', 3_000), eon.cycles(task)]);

    const { lost } = queue().log(worker);
    expect(lost).toHaveLength(1);
    expect(lost[0]!.error).toBeInstanceOf(TaskOutdatedError);
    expect(visits[0]!.reason).toBe(lost[0]!.error);
    // the lost task was not deleted: it was still in the queue to be claimed again
    expect(visits).toHaveLength(2);
    expect(idOf(visits[1]!.task)).toBe(idOf(created));
    expect(visits[1]!.task.core?.[Label.Cycles]).toBeUndefined();
    expect(idOf(ensured[0])).toBe(idOf(created));
  });

  it('aborts the signal with TaskNotFoundError when the task is deleted with bypass during ensure, and goes on', async () => {
    const expiry = 300;
    const eon = queue().live('eon', { expiry });
    const started = signal<Task>();
    let reason: unknown;
    const worker = queue().worker(eon, [
      {
        filter: kind('a'),
        ensure: async (task, context) => {
          started.resolve(task);
          reason = await within(aborted(context.signal), 3_000, 'signal aborted');
        },
      },
      { filter: kind('b'), ensure: () => Promise.resolve() },
    ]);
    await worker.start();
    await eon.create({ meta: { kind: 'a' } });
    const task = await within(started.promise, 3_000, 'ensure started');
    const lost = next(worker, 'task:lost', 3_000);
    await eon.delete({ ...task, core: { ...task.core, [Label.Bypass]: 'true' } });
    const [, error] = await lost;

    expect(error).toBeInstanceOf(TaskNotFoundError);
    await until(() => reason !== undefined, 3_000, 'ensure saw the abort');
    expect(reason).toBe(error);
    const b = next(worker, 'task:ensured', 3_000);
    await eon.create({ meta: { kind: 'b' } });
    const [ensured] = await b;
    expect(ensured.meta).toEqual({ kind: 'b' });
    expect(
      queue()
        .log(worker)
        .ensured.map((t) => t.meta?.['kind']),
    ).toEqual(['b']);
  });

  it('aborts the signal, emits task:lost and does not delete when a handler outlives its lease without extending', async () => {
    const expiry = 300;
    const eon = queue().live('eon', { expiry });
    const etw = queue().live('etw', { expiry });
    const etwStarted = signal<Task>();
    const eonLost = signal();
    let eonSignal: AbortSignal | undefined;
    const slow = queue().worker(
      eon,
      [
        {
          filter: kind('a'),
          // outlives its lease: runs until another worker has taken the task over
          ensure: async (_task, context) => {
            eonSignal = context.signal;
            await within(etwStarted.promise, 3_000, 'etw took the task over');
          },
        },
      ],
      { autoExtend: false, background: true, expireInterval: 25 },
    );
    slow.on('task:lost', () => eonLost.resolve());
    await slow.start();
    const created = await eon.create({ meta: { kind: 'a' } });
    await until(() => eonSignal !== undefined, 3_000, 'eon started ensure');

    let etwSaw: Task | undefined;
    const taker = queue().worker(etw, [
      {
        filter: kind('a'),
        ensure: async (task) => {
          etwSaw = structuredClone(task);
          etwStarted.resolve(task);
          // finish only after eon's worker gave up, so its delete finds the task owned by etw
          await within(eonLost.promise, 3_000, 'eon lost the task');
        },
      },
    ]);
    const ensured = next(taker, 'task:ensured', 4_000);
    await taker.start();
    const [done] = await ensured;

    expect(idOf(done)).toBe(idOf(created));
    expect(etwSaw?.core?.[Label.Worker]).toBe('etw');
    expect(etwSaw?.core?.[Label.Cycles]).toBe('1');
    const { lost, ensured: eonEnsured } = queue().log(slow);
    expect(lost).toHaveLength(1);
    expect(lost[0]!.error).toBeInstanceOf(TaskOutdatedError);
    expect(eonSignal?.aborted).toBe(true);
    expect(eonEnsured).toEqual([]);
    expect(await eon.exists({ meta: { '*': '*' } })).toBe(false);
  });

  it('emits task:lost instead of task:ensured when the final delete finds the task gone (autoExtend off)', async () => {
    const eon = queue().live('eon', { expiry: 60_000 });
    const started = signal<Task>();
    const go = signal();
    let signalOfEnsure: AbortSignal | undefined;
    const worker = queue().worker(
      eon,
      [
        {
          filter: kind('a'),
          ensure: async (task, context) => {
            signalOfEnsure = context.signal;
            started.resolve(task);
            await go.promise;
          },
        },
      ],
      { autoExtend: false },
    );
    await worker.start();
    await eon.create({ meta: { kind: 'a' } });
    const task = await within(started.promise, 3_000, 'ensure started');
    await eon.delete({ ...task, core: { ...task.core, [Label.Bypass]: 'true' } });
    const lost = next(worker, 'task:lost', 3_000);
    go.resolve();
    const [lostTask, error] = await lost;

    expect(idOf(lostTask)).toBe(idOf(task));
    expect(error).toBeInstanceOf(TaskNotFoundError);
    expect(signalOfEnsure?.aborted).toBe(true);
    expect(queue().log(worker).ensured).toEqual([]);
    expect(queue().log(worker).errors).toEqual([]);
  });

  it('aborts the signal at the lease end while a handler that does not extend still runs, and does not delete', async () => {
    const eon = queue().live('eon', { expiry: 300 });
    let abortedWhileRunning = false;
    const finished = signal();
    const worker = queue().worker(
      eon,
      [
        {
          filter: kind('a'),
          ensure: async (_task, context) => {
            // nobody runs expire here: only the lease end can abort the signal
            await within(aborted(context.signal), 3_000, 'the signal aborted');
            abortedWhileRunning = true;
            finished.resolve();
          },
        },
      ],
      { autoExtend: false },
    );
    const lost = next(worker, 'task:lost', 3_000);
    await worker.start();
    const created = await eon.create({ meta: { kind: 'a' } });
    const [lostTask, error] = await lost;
    await within(finished.promise, 3_000, 'ensure returned');

    expect(abortedWhileRunning).toBe(true);
    expect(idOf(lostTask)).toBe(idOf(created));
    expect(error).toBeInstanceOf(TaskOutdatedError);
    expect((error as Error).message).toMatch(
      /^Worker: the lease of task \S+ ends at \S+ without renewal$/,
    );
    // not deleted: expire revokes it once someone runs it, and the task runs again
    const left = await stored(eon, idOf(created));
    expect(left?.core?.[Label.Worker]).toBe('eon');
    expect(queue().log(worker).ensured).toEqual([]);
  });

  it('does not claim a task again while its lapsed run still goes on, and runs it again after that run ended', async () => {
    const eon = queue().live('eon', { expiry: 300 });
    let calls = 0;
    let running = 0;
    let mostAtOnce = 0;
    let ownerAfterRevocation: string | undefined = 'not looked at';
    const firstSignal = signal<AbortSignal>();
    const worker = queue().worker(
      eon,
      [
        {
          filter: kind('a'),
          ensure: async (task, context) => {
            calls++;
            running++;
            mostAtOnce = Math.max(mostAtOnce, running);
            try {
              if (calls === 1) {
                firstSignal.resolve(context.signal);
                // outlive the lease and the revocation, with a slot free to claim it again
                await within(aborted(context.signal), 3_000, 'the first run lost its lease');
                await until(
                  async () => (await stored(eon, idOf(task)))?.core?.[Label.Cycles] === '1',
                  3_000,
                  'the lapsed lease revoked',
                );
                // three more expire runs while the idle slot keeps searching: it must not claim it
                const runs = queue().log(worker).expireDone;
                await until(
                  () => queue().log(worker).expireDone >= runs + 3,
                  3_000,
                  'three expire runs',
                );
                ownerAfterRevocation = (await stored(eon, idOf(task)))?.core?.[Label.Worker];
              }
            } finally {
              running--;
            }
          },
        },
      ],
      { concurrency: 2, autoExtend: false, background: true, expireInterval: 25, pollInterval: 20 },
    );
    await worker.start();
    const created = await eon.create({ meta: { kind: 'a' } });
    await until(() => queue().log(worker).ensured.length === 1, 4_000, 'the task ensured');

    expect((await firstSignal.promise).aborted).toBe(true);
    expect(ownerAfterRevocation).toBeUndefined(); // nobody claimed it while the first run went on
    expect(calls).toBe(2);
    expect(mostAtOnce).toBe(1);
    expect(queue().log(worker).failed).toEqual([]);
    expect(queue().log(worker).ensured.map(idOf)).toEqual([idOf(created)]);
    expect(await eon.exists({ meta: { '*': '*' } })).toBe(false);
  });
});
