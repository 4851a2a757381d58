import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { Engine } from '../../lib/engine/engine.js';
import { noFilters } from '../../lib/engine/filters.js';
import { claimedLeaseEnd, deleteThenSearch } from '../../lib/engine/runtime.js';
import { TaskOutdatedError } from '../../lib/errors.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { parseTime } from '../../lib/task/time.js';
import { startRedisServer } from '../../lib/testing/redis-server.js';
import type { Handler } from '../../lib/worker/handler.js';
import { Worker } from '../../lib/worker/worker.js';
import {
  aborted,
  idOf,
  next,
  signal,
  stored,
  until,
  useWorkerQueue,
  within,
} from '../harness/worker.js';

// Real time on purpose: Redis is paused in real time (CLIENT PAUSE), so the
// engines run on the system clock, and the handlers' work is real time too.
// A redis-server of its own: a paused shared server would stall other files.

/** Run is one execution of the task's handler, as that handler saw it (engine ms = wall ms). */
interface Run {
  worker: string;
  startMs: number;
  /** the end of the lease the claim carried (the task's expiry label as handed out) */
  claimedEndMs: number;
  ownerAtStart?: string;
  leaseEndAtStartMs?: number;
  endMs?: number;
  ownerAtEnd?: string;
  leaseEndAtEndMs?: number;
  aborted?: boolean;
  done?: boolean;
}

interface Scenario {
  expiry: number;
  /** how long the handler works when nothing aborts it (real ms) */
  workMs: number;
  /** how eon's claim is held back: it starts eon, creates the task, starts etw */
  holdBack: (stage: Stage) => Promise<void>;
}

/** Stage is what a scenario's choreography plays with. */
interface Stage {
  producer: Engine;
  eonEngine: Engine;
  eon: Worker;
  etw: Worker;
  admin: Redis;
  /** the connections of eon's engine go through it */
  proxy: Proxy;
}

interface Outcome {
  runs: Run[];
  /** task:lost of the late claimant: the task as it claimed it, the error, when */
  lateLost: { task: Task; error: unknown; atMs: number }[];
  ensuredBy: string[];
}

const leaseEndOf = (task: Task | undefined) => {
  const label = task?.core?.[Label.Expiry];
  return label === undefined ? undefined : parseTime(label).getTime();
};

/** postponedScripts counts the clients whose script call waits for CLIENT PAUSE to end. */
async function postponedScripts(admin: Redis): Promise<number> {
  const clients = (await admin.call('CLIENT', 'LIST')) as string;
  return clients
    .split('\n')
    .filter((line) => /\bflags=\S*b/.test(line) && /\bcmd=(eval(sha)?|fcall)\b/.test(line)).length;
}

/** Proxy forwards TCP connections to Redis; cut() drops them and refuses new ones until restore(). */
interface Proxy {
  readonly url: string;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

async function startProxy(port: number): Promise<Proxy> {
  const sockets = new Set<Socket>();
  let open = true;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
  };
  const server = createServer((client) => {
    track(client);
    if (!open) {
      client.destroy();
      return;
    }
    const upstream = createConnection(port, '127.0.0.1');
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: proxyPort } = server.address() as AddressInfo;
  const dropAll = () => sockets.forEach((socket) => socket.destroy());
  return {
    url: `redis://127.0.0.1:${proxyPort}`,
    cut() {
      open = false;
      dropAll();
    },
    restore() {
      open = true;
    },
    close: () => {
      dropAll();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * lateClaim plays a late claim (one whose lease is partly or wholly gone by
 * the time its reply arrives): worker eon claims the task with a search that
 * executes long after the engine read `now` (how, the scenario says), and
 * worker etw, which runs `expire` every 100 ms, takes the task if its lease
 * is revoked or released. Every run of the handler records what it held.
 */
async function lateClaim({ expiry, workMs, holdBack }: Scenario): Promise<Outcome> {
  const server = await startRedisServer({ env: {} });
  const proxy = await startProxy(server.port);
  const queue = 'late-claim';
  const producer = new Engine({ redis: server.url, queue, worker: 'producer', expiry });
  const eonEngine = new Engine({ redis: proxy.url, queue, worker: 'eon', expiry });
  const etwEngine = new Engine({ redis: server.url, queue, worker: 'etw', expiry });
  const admin = new Redis(server.url);
  const runs: Run[] = [];
  const handler = (worker: string, engine: Engine): Handler => ({
    filter: () => true,
    ensure: async (task, context) => {
      const run: Run = { worker, startMs: Date.now(), claimedEndMs: leaseEndOf(task) ?? 0 };
      runs.push(run);
      const atStart = await stored(engine, idOf(task));
      run.ownerAtStart = atStart?.core?.[Label.Worker];
      run.leaseEndAtStartMs = leaseEndOf(atStart);
      await Promise.race([aborted(context.signal), delay(workMs)]);
      run.endMs = Date.now();
      run.aborted = context.signal.aborted;
      const atEnd = await stored(engine, idOf(task));
      run.ownerAtEnd = atEnd?.core?.[Label.Worker];
      run.leaseEndAtEndMs = leaseEndOf(atEnd);
      run.done = true;
    },
  });
  const eon = new Worker(eonEngine, [handler('eon', eonEngine)], {
    background: false,
    pollInterval: 100,
  });
  const etw = new Worker(etwEngine, [handler('etw', etwEngine)], {
    expireInterval: 100,
    tickerInterval: 60_000,
  });
  const lateLost: Outcome['lateLost'] = [];
  const ensuredBy: string[] = [];
  eon.on('task:lost', (task, error) => lateLost.push({ task, error, atMs: Date.now() }));
  eon.on('task:ensured', () => ensuredBy.push('eon'));
  etw.on('task:ensured', () => ensuredBy.push('etw'));
  for (const worker of [eon, etw]) worker.on('error', () => {});
  try {
    // load the search script now: the call held back is the claim itself
    await eonEngine.search({ meta: { kind: 'none' } });
    await holdBack({ producer, eonEngine, eon, etw, admin, proxy });
    await until(
      async () =>
        !(await producer.exists({ meta: { kind: 'late' } })) &&
        runs.every((run) => run.done === true),
      8_000,
      'the task was ensured and every run ended',
    );
    return { runs, lateLost, ensuredBy };
  } finally {
    proxy.restore();
    await Promise.all([eon.stop(), etw.stop()]);
    await Promise.all([producer, eonEngine, etwEngine].map((engine) => engine.close()));
    await admin.quit();
    await proxy.close();
    await server.stop();
  }
}

/** pausedForWrites: eon's search is sent while Redis is paused for writes (CLIENT PAUSE). */
const pausedForWrites =
  (pauseMs: number) =>
  async ({ producer, eon, etw, admin }: Stage): Promise<void> => {
    await producer.create({ meta: { kind: 'late' } });
    await admin.call('CLIENT', 'PAUSE', String(pauseMs), 'WRITE');
    await eon.start();
    await until(async () => (await postponedScripts(admin)) >= 1, 1_000, "eon's search waits");
    // etw's first search waits behind eon's, so eon claims the task
    await etw.start();
  };

/**
 * unreachable: Redis is out of eon's reach for `outageMs` (its connections
 * dropped, new ones refused); the search its poll sends meanwhile waits in
 * ioredis's offline queue and runs after the reconnect.
 */
const unreachable =
  (outageMs: number) =>
  async ({ producer, eon, etw, proxy }: Stage): Promise<void> => {
    await eon.start();
    proxy.cut();
    const created = await producer.create({ meta: { kind: 'late' } });
    await delay(outageMs); // the outage itself: real time is the point
    proxy.restore();
    await until(
      async () => (await stored(producer, idOf(created)))?.core?.[Label.Worker] === 'eon',
      5_000,
      'eon claimed after its reconnect',
    );
    await etw.start();
  };

/** overlapping lists the pairs of runs, on different workers, that ran at the same time. */
function overlapping(runs: Run[]): string[] {
  const pairs: string[] = [];
  runs.forEach((a, i) =>
    runs.slice(i + 1).forEach((b) => {
      if (a.startMs < (b.endMs ?? Infinity) && b.startMs < (a.endMs ?? Infinity))
        pairs.push(
          `${a.worker} [${a.startMs}, ${a.endMs}] and ${b.worker} [${b.startMs}, ${b.endMs}]`,
        );
    }),
  );
  return pairs;
}

/** heldThroughout says how a run kept (or did not keep) its lease from start to end. */
function heldThroughout(run: Run): string {
  if (run.ownerAtStart !== run.worker) return `${run.worker} started without owning the task`;
  if ((run.leaseEndAtStartMs ?? 0) <= run.startMs) return `${run.worker} started on an ended lease`;
  if (run.ownerAtEnd !== run.worker) return `${run.worker} ended after losing the task`;
  if ((run.leaseEndAtEndMs ?? 0) <= (run.endMs ?? Infinity))
    return `${run.worker} ran past its lease`;
  return 'held';
}

/**
 * expectSafeLateClaim checks an outcome where eon's claim came with less than
 * half its lease left: no two runs overlapped, every run held its lease from
 * start to end, the task was ensured once; and eon either renewed the late
 * claim before starting it, or (a machine stalled past the abort point) gave
 * it up unstarted.
 */
function expectSafeLateClaim({ runs, lateLost, ensuredBy }: Outcome, expiry: number): void {
  expect(overlapping(runs)).toEqual([]);
  expect(runs.map(heldThroughout)).toEqual(runs.map(() => 'held'));
  expect(ensuredBy).toHaveLength(1);
  if (lateLost.length === 0) {
    // eon ran its late claim, renewed first: the claim came with less than
    // half its lease left, and the handler started with more than half an expiry
    expect(runs.map((run) => run.worker)).toEqual(['eon']);
    const [run] = runs;
    expect(run!.claimedEndMs - run!.startMs).toBeLessThan(expiry / 2);
    expect(run!.leaseEndAtStartMs! - run!.startMs).toBeGreaterThan(expiry / 2);
  } else {
    expect(lateLost).toHaveLength(1);
    expect(lateLost[0]!.error).toBeInstanceOf(TaskOutdatedError);
    expect(leaseEndOf(lateLost[0]!.task)! - lateLost[0]!.atMs).toBeLessThan(expiry / 2);
    expect(runs.map((run) => run.claimedEndMs)).not.toContain(leaseEndOf(lateLost[0]!.task));
  }
}

describe('Worker: a claim that executes long after its `now`', () => {
  it('renews a claim with little lease left before starting it (Redis paused for writes): no two runs overlap, no run outlives its lease', async () => {
    const expiry = 2_000;
    const outcome = await lateClaim({ expiry, workMs: 1_200, holdBack: pausedForWrites(1_500) });
    expectSafeLateClaim(outcome, expiry);
  });

  it('does not start a claim whose lease ended before it arrived; it is released and runs once, on a fresh claim', async () => {
    const { runs, lateLost, ensuredBy } = await lateClaim({
      expiry: 1_000,
      workMs: 600,
      holdBack: pausedForWrites(1_500),
    });

    expect(overlapping(runs)).toEqual([]);
    expect(runs.map(heldThroughout)).toEqual(runs.map(() => 'held'));
    expect(lateLost).toHaveLength(1);
    expect(lateLost[0]!.error).toBeInstanceOf(TaskOutdatedError);
    expect((lateLost[0]!.error as Error).message).toMatch(/came too late to start/);
    const lateEndMs = leaseEndOf(lateLost[0]!.task)!;
    expect(lateEndMs).toBeLessThanOrEqual(lateLost[0]!.atMs);
    // one run, on a claim after the late one (by either worker: eon released it)
    expect(runs).toHaveLength(1);
    expect(runs[0]!.claimedEndMs).toBeGreaterThan(lateEndMs);
    expect(ensuredBy).toHaveLength(1);
  });

  it("handles a claim that waited in ioredis's offline queue while Redis was unreachable the same way", async () => {
    const expiry = 2_000;
    const outcome = await lateClaim({ expiry, workMs: 800, holdBack: unreachable(1_500) });
    expectSafeLateClaim(outcome, expiry);
  });
});

describe('Worker option leaseMargin', () => {
  const queue = useWorkerQueue();

  it("is checked against the engine's expiry when the worker is made: less than half of it", () => {
    const eon = queue().live('eon', { expiry: 2_000 });
    expect(() => new Worker(eon, [], { leaseMargin: 1_000 })).toThrow(RangeError);
    expect(() => new Worker(eon, [], { leaseMargin: 1_000 })).toThrow(/leaseMargin/);
    expect(() => new Worker(eon, [], { leaseMargin: -1 })).toThrow(TypeError);
    expect(() => new Worker(eon, [], { leaseMargin: 999 })).not.toThrow();
    // the default follows the expiry: a tenth of 15 ms is fine where 1 000 ms would not be
    expect(() => new Worker(queue().live('etw', { expiry: 15 }), [])).not.toThrow();
  });
});

describe('Worker: a task it claims again while a run of it goes on', () => {
  const queue = useWorkerQueue();

  it('stops the run under way at once: a fresh claim proves its lease was revoked, though its renewals (same worker id) would pass', async () => {
    // a long expiry: the run's next renewal is 30 s away, and would pass
    const eon = queue().live('eon', { expiry: 60_000 });
    const first = signal<Task>();
    const visits: { aborted?: unknown }[] = [];
    const worker = queue().worker(
      eon,
      [
        {
          filter: () => true,
          ensure: async (task, context) => {
            const visit: { aborted?: unknown } = {};
            visits.push(visit);
            if (visits.length > 1) return; // a later visit completes the task
            first.resolve(task);
            visit.aborted = await within(aborted(context.signal), 3_000, 'the first run aborted');
          },
        },
      ],
      { concurrency: 2, pollInterval: 50 },
    );
    await worker.start();
    const created = await eon.create({ core: { [Label.Cancel]: '5' }, meta: { kind: 'a' } });
    const task = await within(first.promise, 3_000, 'the first run started');
    const lost = next(worker, 'task:lost', 3_000);
    const ensured = next(worker, 'task:ensured', 3_000);
    await eon.cycles(task); // an operator resets it: no owner, so the idle slot claims it
    const [lostTask, error] = await lost;

    expect(idOf(lostTask)).toBe(idOf(created));
    expect(error).toBeInstanceOf(TaskOutdatedError);
    expect((error as Error).message).toMatch(/was claimed again while it ran$/);
    expect(visits[0]!.aborted).toBe(error);
    // the second claim was given back; once the first run returned, the task ran again
    const [done] = await ensured;
    expect(idOf(done)).toBe(idOf(created));
    expect(visits).toHaveLength(2);
    expect(await eon.exists({ meta: { '*': '*' } })).toBe(false);
  });
});

describe('claimedLeaseEnd: the lease end the worker plans from', () => {
  const queue = useWorkerQueue();

  it('is the one the claim stored, from the `now` the call read: by search and by delete-search', async () => {
    const expiry = 30_000;
    const eon = queue().engine('eon', { expiry });
    const first = await eon.create({ meta: { kind: 'a' } });
    const second = await eon.create({ meta: { kind: 'a' } });
    const claimedAtMs = queue().clock().getTime();
    const claimed = await eon.search();
    queue().clock.advance(5_000);
    const [outcome] = await deleteThenSearch(eon, [{ task: claimed!, filters: noFilters }]);
    const next = outcome?.deleted === true ? outcome.next : undefined;

    expect(idOf(claimed)).toBe(idOf(first));
    expect(claimedLeaseEnd(claimed!)).toBe(claimedAtMs + expiry);
    expect(claimedLeaseEnd(claimed!)).toBe(leaseEndOf(claimed));
    expect(idOf(next)).toBe(idOf(second));
    expect(claimedLeaseEnd(next!)).toBe(claimedAtMs + 5_000 + expiry);
    expect(claimedLeaseEnd(next!)).toBe(leaseEndOf(await stored(eon, idOf(second))));
    // a task object the engine did not hand out has none: the worker then reads the label
    expect(claimedLeaseEnd(structuredClone(next!))).toBeUndefined();
  });
});
