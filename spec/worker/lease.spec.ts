import { jest } from '@jest/globals';
import { TaskNotFoundError, TaskOutdatedError } from '../../lib/errors.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { formatTime } from '../../lib/task/time.js';
import { Lease, type LeaseTerms } from '../../lib/worker/lease.js';

// Jest's fake timers move the timers and the Date the clock reads together:
// engine time is the fake wall clock, and `advance` plays real time forward.

const startMs = Date.parse('2023-10-20T00:00:00Z');
const expiryMs = 2_000;
const marginMs = 200;

/** A fake engine: records each extend and answers when the test says so. */
function fakeRenewer() {
  const calls: { atMs: number; answer(): void; fail(error: unknown): void }[] = [];
  const engine = {
    extend: () =>
      new Promise<void>((resolve, reject) => {
        calls.push({ atMs: Date.now(), answer: resolve, fail: reject });
      }),
  };
  return { engine, calls };
}

function terms(overrides: Partial<LeaseTerms> = {}): LeaseTerms {
  return {
    expiryMs,
    marginMs,
    autoExtend: true,
    timeScale: 1,
    clock: () => new Date(),
    ...overrides,
  };
}

const task = (core: Record<string, string> = {}): Task => ({
  core: { [Label.Object]: '1697760000000-000000000001', [Label.Worker]: 'eon', ...core },
  meta: { kind: 'a' },
});

function lease(overrides: Partial<LeaseTerms> = {}, claimed: Task = task()) {
  const { engine, calls } = fakeRenewer();
  const lost: unknown[] = [];
  const errors: unknown[] = [];
  const made = new Lease(
    engine,
    claimed,
    terms(overrides),
    (error) => lost.push(error),
    (error) => errors.push(error),
  );
  return { lease: made, calls, lost, errors };
}

/** advance plays `ms` of time forward, running the timers due and the promises they settle. */
const advance = (ms: number) => jest.advanceTimersByTimeAsync(ms);

/** expectRenewalIn checks that the next renewal is asked `ms` from now, not a millisecond sooner. */
async function expectRenewalIn(calls: unknown[], ms: number): Promise<void> {
  const before = calls.length;
  await advance(ms - 1);
  expect(calls).toHaveLength(before);
  await advance(1);
  expect(calls).toHaveLength(before + 1);
}

/**
 * beganLate begins a lease whose claim's reply came 1,500 ms after its `now`
 * (300 ms to the abort point): `ready` waits for the renewal asked first.
 */
async function beganLate() {
  const made = lease();
  await advance(1_500);
  // a late claim is renewed first: its answer comes as a promise
  const ready = Promise.resolve(made.lease.begin(startMs + expiryMs));
  await advance(0);
  return { ...made, ready };
}

describe('Lease', () => {
  beforeEach(() => {
    jest.useFakeTimers({ now: startMs });
  });

  afterEach(() => {
    jest.useRealTimers();
  });

  it('starts a claim with plenty of lease left at once, and renews halfway to its abort point', async () => {
    const { lease: held, calls } = lease();
    // the claim's reply came 100 ms after the engine read `now`
    await advance(100);
    expect(await held.begin(startMs + expiryMs)).toBe(true);
    expect(calls).toHaveLength(0);

    // abort point: 2,000 - 200 = 1,800; left at 100: 1,700; renewal 850 ms later
    await expectRenewalIn(calls, 850);
    expect(calls.map(({ atMs }) => atMs - startMs)).toEqual([950]);
    calls[0]!.answer();
    await advance(0);
    // the renewal asked at 950 grants until 2,950: next one halfway to 2,750
    await expectRenewalIn(calls, 900);
    expect(calls.map(({ atMs }) => atMs - startMs)).toEqual([950, 1_850]);
    expect(held.controller.isAborted).toBe(false);
  });

  it('renews a claim with less than half the expiry left before its handler starts', async () => {
    // the claim executed 1,500 ms after its `now` (Redis paused): 300 ms to the abort point
    const { calls, lost, ready } = await beganLate();
    let started: boolean | undefined;
    void ready.then((value) => (started = value));
    await advance(0);
    expect(calls.map(({ atMs }) => atMs - startMs)).toEqual([1_500]);
    expect(started).toBeUndefined(); // not before the renewal answered

    await advance(20);
    calls[0]!.answer();
    await advance(0);
    expect(started).toBe(true);
    expect(lost).toEqual([]);
    // the fresh lease ends at 3,500: the next renewal halfway to 3,300 from 1,520
    await expectRenewalIn(calls, 890);
  });

  it('does not start a claim whose renewal before the start finds the task lost', async () => {
    const { lease: held, calls, lost, errors, ready } = await beganLate();
    const revoked = new TaskOutdatedError('revoked meanwhile');
    calls[0]!.fail(revoked);

    await expect(ready).resolves.toBe(false);
    expect(lost).toEqual([revoked]);
    expect(held.controller.signal.reason).toBe(revoked);
    expect(errors).toEqual([]);
  });

  it('does not start a claim whose renewal before the start fails with a Redis error, and reports it', async () => {
    const { calls, lost, errors, ready } = await beganLate();
    const redisDown = new Error('Connection is closed.');
    calls[0]!.fail(redisDown);

    await expect(ready).resolves.toBe(false);
    expect(errors).toEqual([redisDown]);
    expect(lost).toEqual([]);
    // nothing is planned for a lease that was not taken up
    await advance(10_000);
    expect(calls).toHaveLength(1);
  });

  it('does not start a claim whose renewal answered past the abort point', async () => {
    const { calls, lost, ready } = await beganLate();
    // the renewal itself waited 1,900 ms: its lease (from 1,500) ends at 3,500, less 200
    await advance(1_900);
    calls[0]!.answer();

    await expect(ready).resolves.toBe(false);
    expect(lost).toEqual([expect.any(TaskOutdatedError)]);
  });

  it.each([
    ['ended before the reply came', startMs + 1_000],
    ['ends within the lease margin', startMs + 1_500 + marginMs],
  ])(
    'does not start (nor renew) a claim whose lease %s: the task is lost',
    async (_name, claimedEndMs) => {
      const { lease: held, calls, lost } = lease();
      await advance(1_500);

      expect(await held.begin(claimedEndMs)).toBe(false);
      expect(calls).toEqual([]);
      expect(lost).toHaveLength(1);
      expect(lost[0]).toBeInstanceOf(TaskOutdatedError);
      expect((lost[0] as Error).message).toBe(
        `Worker: the claim of task 1697760000000-000000000001 came too late to start: ` +
          `its lease ends at ${formatTime(new Date(claimedEndMs))} (lease margin 200 ms)`,
      );
      expect(held.controller.isAborted).toBe(true);
    },
  );

  it('renews sooner than half the expiry when a claim came with a short lease', async () => {
    const { lease: held, calls } = lease();
    // 900 ms late: 900 ms to the abort point, more than half the expiry, so no renewal first
    await advance(900);
    expect(await held.begin(startMs + expiryMs + 100)).toBe(true);
    expect(calls).toHaveLength(0);
    // halfway to the abort point: 500 ms from now, where half the expiry would be 1,000
    await expectRenewalIn(calls, 500);
    expect(calls.map(({ atMs }) => atMs - startMs)).toEqual([1_400]);
  });

  it('renews sooner after a renewal that answered late, from the lease end it granted', async () => {
    const { lease: held, calls } = lease();
    expect(await held.begin(startMs + expiryMs)).toBe(true);
    await advance(900); // first renewal, asked at 900: grants until 2,900
    expect(calls).toHaveLength(1);
    await advance(800); // its answer comes at 1,700: 1,000 ms left to 2,700
    calls[0]!.answer();
    await advance(0);
    // halfway: 500 ms on, where half the expiry from the answer would be 1,000
    await expectRenewalIn(calls, 500);
    expect(calls.map(({ atMs }) => atMs - startMs)).toEqual([900, 2_200]);
  });

  it('aborts the signal at the lease end less the margin when auto-extend is off', async () => {
    const { lease: held, calls, lost } = lease({ autoExtend: false });
    expect(await held.begin(startMs + expiryMs)).toBe(true);

    await advance(expiryMs - marginMs - 1);
    expect(held.controller.isAborted).toBe(false);
    await advance(1);
    expect(held.controller.isAborted).toBe(true);
    expect(calls).toEqual([]);
    expect(lost).toHaveLength(1);
    expect((lost[0] as Error).message).toBe(
      `Worker: the lease of task 1697760000000-000000000001 ends at ` +
        `${formatTime(new Date(startMs + expiryMs))} without renewal`,
    );
  });

  it('aborts the signal at the lease end less the margin while a renewal hangs', async () => {
    const { lease: held, calls, lost } = lease();
    expect(await held.begin(startMs + expiryMs)).toBe(true);
    await advance(900);
    expect(calls).toHaveLength(1); // and it never answers

    await advance(expiryMs - marginMs - 900 - 1);
    expect(held.controller.isAborted).toBe(false);
    await advance(1);
    expect(held.controller.isAborted).toBe(true);
    expect(lost).toEqual([expect.any(TaskOutdatedError)]);
  });

  it('retries a renewal that failed with a Redis error, and still aborts at the abort point', async () => {
    const { lease: held, calls, errors, lost } = lease();
    expect(await held.begin(startMs + expiryMs)).toBe(true);
    await advance(900);
    calls[0]!.fail(new Error('Connection is closed.'));
    await advance(0);
    expect(errors).toHaveLength(1);
    // again a tenth of the expiry later
    await expectRenewalIn(calls, 200);
    await advance(expiryMs - marginMs - 1_100);
    expect(lost).toEqual([expect.any(TaskOutdatedError)]);
  });

  it('loses the task when a renewal says so, and rethrows to a handler that extends', async () => {
    const { lease: held, calls, lost } = lease();
    expect(await held.begin(startMs + expiryMs)).toBe(true);
    const extended = held.extend();
    const gone = new TaskNotFoundError('deleted meanwhile');
    calls[0]!.fail(gone);

    await expect(extended).rejects.toBe(gone);
    expect(lost).toEqual([gone]);
    await expect(held.extend()).rejects.toBe(gone);
    expect(calls).toHaveLength(1);
  });

  it("reads the lease end from the task's expiry label when the claim's is not known", async () => {
    const end = formatTime(new Date(startMs + 600));
    const { lease: held, calls, lost } = lease({}, task({ [Label.Expiry]: end }));

    // 400 ms to the abort point: renewed first
    const ready = held.begin(undefined);
    await advance(0);
    expect(calls).toHaveLength(1);
    calls[0]!.answer();
    await expect(ready).resolves.toBe(true);
    expect(lost).toEqual([]);
  });

  it('counts a claim without a lease end as ended, as expire does', async () => {
    const { lease: held, calls, lost } = lease();

    expect(await held.begin(undefined)).toBe(false);
    expect(calls).toEqual([]);
    expect(lost).toEqual([expect.any(TaskOutdatedError)]);
  });

  it('plans nothing more once stopped, and a renewal that answers after the stop loses nothing', async () => {
    const { lease: held, calls, lost } = lease();
    expect(await held.begin(startMs + expiryMs)).toBe(true);
    await advance(900);
    held.stop();
    await advance(2_000); // past the abort point: the answer comes too late to matter
    calls[0]!.answer();
    await advance(10_000);

    expect(calls).toHaveLength(1);
    expect(lost).toEqual([]);
    expect(held.controller.isAborted).toBe(false);
  });

  it('times its timers in real ms from engine ms (timeScale)', async () => {
    // an engine clock that runs 10 times as fast as the (fake) wall clock
    const clock = () => new Date(startMs + (Date.now() - startMs) * 10);
    const { lease: held, calls } = lease({ clock, timeScale: 10 });
    expect(await held.begin(startMs + expiryMs)).toBe(true);

    // 1,800 engine ms to the abort point: the renewal 900 engine ms on, 90 real ms
    await expectRenewalIn(calls, 90);
  });

  it('aborts the signal as it is read past the abort point, before any overdue timer ran (a process frozen past its lease)', async () => {
    const { lease: held, lost } = lease();
    expect(await held.begin(startMs + expiryMs)).toBe(true);
    const { signal } = held.controller;
    expect(signal.aborted).toBe(false);

    // the clock jumps past the abort point, no timer runs: as after SIGCONT
    jest.setSystemTime(startMs + expiryMs - marginMs);
    expect(signal.aborted).toBe(true);
    expect(lost).toHaveLength(1);
    expect(() => signal.throwIfAborted()).toThrow(TaskOutdatedError);
  });

  it('checks the abort point in throwIfAborted() too, and not before it', async () => {
    const { lease: held, lost } = lease();
    expect(await held.begin(startMs + expiryMs)).toBe(true);
    const { signal } = held.controller;
    jest.setSystemTime(startMs + expiryMs - marginMs - 1);
    expect(() => signal.throwIfAborted()).not.toThrow();
    jest.setSystemTime(startMs + expiryMs - marginMs);
    expect(() => signal.throwIfAborted()).toThrow(TaskOutdatedError);
    expect(lost).toHaveLength(1);
  });
});
