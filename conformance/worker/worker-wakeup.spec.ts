import type { RedisClient } from '../../lib/engine/connection.js';
import type { Engine } from '../../lib/engine/engine.js';
import type { EngineOptions } from '../../lib/engine/options.js';
import { releaseTask } from '../../lib/engine/runtime.js';
import { has } from '../../lib/matcher/matcher.js';
import { Label, Method } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { formatTime, parseTime } from '../../lib/task/time.js';
import type { Handler } from '../../lib/worker/handler.js';
import type { WorkerOptions } from '../../lib/worker/options.js';
import { fakeClock } from '../../spec/helpers/clock.js';
import { engineRedis, primaries } from '../harness/redis.js';
import { idOf, next, resolved, signal, until, useWorkerQueue } from '../harness/worker.js';

// Every worker here polls once a minute: within the few seconds a test may
// take, only a wake-up explains a claim.
const idle: WorkerOptions = { pollInterval: 60_000 };

const kind = (name: string) => (task: Task) => has(task.meta, { kind: name });

function handlerFor(name: string, seen: Task[] = [], labels = true): Handler {
  return {
    filter: kind(name),
    ensure: (task) => resolved(seen.push(structuredClone(task))),
    ...(labels ? { labels: { meta: { kind: name } } } : {}),
  };
}

/**
 * searchedOnce resolves once Redis has run a script for the engine's own
 * connection (named `<queue>-<worker>`, see `named`): a worker without
 * background loops runs none before its first search, so from then on a
 * task it has not seen can reach it only by a wake-up (or a poll a minute away).
 */
async function searchedOnce(redis: RedisClient, name: string): Promise<void> {
  await until(
    async () => {
      const lists = await Promise.all(primaries(redis).map((node) => node.client('LIST')));
      return lists
        .join('\n')
        .split('\n')
        .some(
          (line) => line.includes(` name=${name} `) && / cmd=(eval(sha)?|fcall)(_ro)? /.test(line),
        );
    },
    3_000,
    `a first search by ${name}`,
  );
}

/** clockBefore is a system clock shifted so that it reads `leadMs` before the instant now. */
function clockBefore(instant: string, leadMs: number): () => Date {
  const offset = Date.parse(instant) - leadMs - Date.now();
  return () => new Date(Date.now() + offset);
}

/** fastClock is a system clock that runs `scale` times faster from now on. */
function fastClock(scale: number): () => Date {
  const startMs = Date.now();
  const startPerf = performance.now();
  return () => new Date(startMs + Math.floor((performance.now() - startPerf) * scale));
}

describe('Worker wake-up', () => {
  const queue = useWorkerQueue();

  /** named returns a live engine whose connection is named `<queue>-<worker>` in CLIENT LIST. */
  function named(worker: string, options: EngineOptions = {}): Engine {
    const connectionName = `${queue().name}-${worker}`;
    return queue().live(worker, { redis: engineRedis({ connectionName }), ...options });
  }

  const idleNow = (worker: string) => searchedOnce(queue().redis, `${queue().name}-${worker}`);

  it('wakes an idle worker to claim a newly created task, without waiting for the poll', async () => {
    const eon = named('eon');
    const worker = queue().worker(eon, [handlerFor('a')], idle);
    await worker.start();
    await idleNow('eon');
    const ensured = next(worker, 'task:ensured', 3_000);
    const created = await eon.create({ meta: { kind: 'a' } });
    const [task] = await ensured;
    expect(idOf(task)).toBe(idOf(created));
  });

  it('wakes every idle slot and worker: a burst of tasks is spread without polling', async () => {
    const eon = named('eon');
    const etw = named('etw');
    const release = signal();
    let running = 0;
    const handler: Handler = {
      filter: kind('a'),
      ensure: async () => {
        running++;
        await release.promise;
      },
    };
    const workers = [
      queue().worker(eon, [handler], { ...idle, concurrency: 2 }),
      queue().worker(etw, [handler], { ...idle, concurrency: 2 }),
    ];
    await Promise.all(workers.map((worker) => worker.start()));
    await Promise.all([idleNow('eon'), idleNow('etw')]);
    for (let n = 0; n < 4; n++) await eon.create({ meta: { kind: 'a', n: String(n) } });
    await until(() => running === 4, 3_000, 'four ensures running at once');
    release.resolve();
    await until(
      () => workers.every((worker) => queue().log(worker).ensured.length === 2),
      3_000,
      'two ensured by each worker',
    );
    expect(running).toBe(4);
  });

  it('wakes an idle worker at the due time of an @exact task created while it waits', async () => {
    const eon = named('eon');
    const seen: Task[] = [];
    const worker = queue().worker(eon, [handlerFor('exact', seen)], idle);
    await worker.start();
    await idleNow('eon');
    const due = new Date(Date.now() + 300);
    const ensured = next(worker, 'task:ensured', 3_000);
    await eon.create({ cron: { [Label.Exact]: formatTime(due) }, meta: { kind: 'exact' } });
    await ensured;

    // claimed at or after the due time: its lease began no earlier than due
    const expiry = 30_000;
    expect(parseTime(seen[0]!.core![Label.Expiry]!).getTime() - expiry).toBeGreaterThanOrEqual(
      due.getTime(),
    );
  });

  it('wakes a worker at the due time of an @exact task that was waiting before it started', async () => {
    const eon = queue().live('eon');
    const due = new Date(Date.now() + 300);
    await eon.create({ cron: { [Label.Exact]: formatTime(due) }, meta: { kind: 'exact' } });
    const seen: Task[] = [];
    const worker = queue().worker(eon, [handlerFor('exact', seen)], idle);
    const ensured = next(worker, 'task:ensured', 3_000);
    await worker.start();
    await ensured;
    expect(parseTime(seen[0]!.core![Label.Expiry]!).getTime() - 30_000).toBeGreaterThanOrEqual(
      due.getTime(),
    );
  });

  it('wakes idle workers when expire revokes an abandoned lease', async () => {
    const eon = queue().live('eon', { expiry: 300 });
    const etw = queue().live('etw', { expiry: 300 });
    await eon.create({ meta: { kind: 'a' } });
    const abandoned = await eon.search(); // eon claims it and walks away
    expect(abandoned?.core?.[Label.Worker]).toBe('eon');
    const seen: Task[] = [];
    // the waiting worker runs expire itself, but learns of the revocation only through the queue's channel
    const worker = queue().worker(etw, [handlerFor('a', seen)], {
      ...idle,
      background: true,
      expireInterval: 50,
    });
    await worker.start();
    await next(worker, 'task:ensured', 3_000);
    expect(idOf(seen[0])).toBe(idOf(abandoned));
    expect(seen[0]!.core?.[Label.Cycles]).toBe('1');
  });

  it('wakes idle workers when a delete requeues a paging task', async () => {
    const eon = queue().live('eon');
    const etw = named('etw');
    // eon takes the first page and hands the rest over; etw takes tasks with paging '1' only
    const first: Handler = {
      filter: (task) => task.sync?.[Label.Paging] === '0',
      ensure: (task) => resolved((task.sync = { [Label.Paging]: '1' })),
      labels: { meta: { kind: 'pages' }, sync: { [Label.Paging]: '0' } },
    };
    const seen: Task[] = [];
    const rest: Handler = {
      filter: (task) => task.sync?.[Label.Paging] === '1',
      ensure: async (task) => {
        seen.push(structuredClone(task));
        task.sync = { [Label.Paging]: '0', done: 'yes' };
        await Promise.resolve();
      },
      labels: { meta: { kind: 'pages' }, sync: { [Label.Paging]: '1' } },
    };
    const pager = queue().worker(eon, [first], idle);
    const follower = queue().worker(etw, [rest], idle);
    await Promise.all([pager.start(), follower.start()]);
    await idleNow('etw');
    const ensured = next(follower, 'task:ensured', 3_000);
    const created = await eon.create({ meta: { kind: 'pages' }, sync: { [Label.Paging]: '0' } });
    await ensured;

    expect(idOf(seen[0])).toBe(idOf(created));
    expect(seen[0]!.core?.[Label.Cycles]).toBe('1');
    expect(await eon.exists({ meta: { '*': '*' } })).toBe(false);
  });

  it('wakes idle workers when an owner releases a task it will not work on (as a declining or stopping worker does)', async () => {
    const eon = queue().live('eon', { expiry: 60_000 });
    const etw = named('etw');
    await eon.create({ meta: { kind: 'a' } });
    const claimed = await eon.search(); // eon owns it before etw is idle
    expect(claimed?.core?.[Label.Worker]).toBe('eon');
    const seen: Task[] = [];
    const worker = queue().worker(etw, [handlerFor('a', seen)], idle);
    await worker.start();
    await idleNow('etw');
    const ensured = next(worker, 'task:ensured', 3_000);
    expect(await releaseTask(eon, claimed!)).toBe(true);
    await ensured;

    expect(seen.map(idOf)).toEqual([idOf(claimed)]);
    expect(seen[0]!.core?.[Label.Cycles]).toBeUndefined();
  });

  it('wakes idle workers when cycles() resets a task halted by its circuit breaker', async () => {
    // the operator's engine runs on a clock it moves by hand, two minutes behind
    const clock = fakeClock(new Date(Date.now() - 120_000).toISOString());
    const eon = queue().live('eon', { clock, expiry: 30_000 });
    const etw = named('etw');
    // cancel 1: the first revocation halts the task
    await eon.create({ core: { [Label.Cancel]: '1' }, meta: { kind: 'a' } });
    const abandoned = await eon.search();
    clock.advance(30_001);
    await eon.expire();
    const [halted] = await eon.lister({ meta: { kind: 'a' } });
    expect(halted?.core?.[Label.Cycles]).toBe('1');
    expect(halted?.core?.[Label.Worker]).toBeUndefined();
    const seen: Task[] = [];
    const worker = queue().worker(etw, [handlerFor('a', seen)], idle);
    await worker.start();
    await idleNow('etw');
    // halted: the worker's search found nothing
    expect(queue().log(worker).ensured).toEqual([]);
    const ensured = next(worker, 'task:ensured', 3_000);
    await eon.cycles(abandoned!);
    await ensured;

    expect(seen.map(idOf)).toEqual([idOf(abandoned)]);
    expect(seen[0]!.core?.[Label.Cycles]).toBeUndefined();
  });

  it('wakes only the target of a unicast task, which claims it', async () => {
    const eon = queue().live('eon');
    const etw = named('etw');
    const eonSeen: Task[] = [];
    const etwSeen: Task[] = [];
    const workers = [
      queue().worker(eon, [handlerFor('uni', eonSeen)], idle),
      queue().worker(etw, [handlerFor('uni', etwSeen)], idle),
    ];
    await Promise.all(workers.map((worker) => worker.start()));
    await idleNow('etw');
    const ensured = next(workers[1]!, 'task:ensured', 3_000);
    const created = await eon.create({
      meta: { kind: 'uni' },
      node: { [Label.Method]: Method.Uni, [Label.Worker]: 'etw' },
    });
    await ensured;
    expect(etwSeen.map(idOf)).toEqual([idOf(created)]);
    expect(eonSeen).toEqual([]);
  });

  it('wakes idle workers when a gate template emits its child', async () => {
    const eon = queue().live('eon');
    const etw = named('etw');
    const template = await eon.create({ gate: { g0: 'waiting' }, meta: { kind: 'child' } });
    const triggers = queue().worker(eon, [handlerFor('trigger')], idle);
    const children: Task[] = [];
    const childWorker = queue().worker(etw, [handlerFor('child', children)], idle);
    await Promise.all([triggers.start(), childWorker.start()]);
    await idleNow('etw');
    const ensured = next(childWorker, 'task:ensured', 3_000);
    await eon.create({ gate: { g0: 'trigger' }, meta: { kind: 'trigger' } });
    await ensured;
    expect(children.map((child) => child.root)).toEqual([{ [Label.Object]: idOf(template) }]);
  });

  it('wakes idle workers when ticker emits a child', async () => {
    // engine time 800 ms before a minute boundary: the `minute` template is due in 800 ms
    const clock = clockBefore('2030-01-01T00:00:00Z', 800);
    const eon = queue().live('eon', { clock });
    const etw = named('etw', { clock });
    const template = await eon.create({
      cron: { [Label.Every]: 'minute' },
      meta: { kind: 'tick' },
    });
    const children: Task[] = [];
    const childWorker = queue().worker(etw, [handlerFor('tick', children)], idle);
    await childWorker.start();
    await idleNow('etw');
    // the ticker runs on a worker that takes no tasks; the child reaches etw by wake-up
    const ticking = queue().worker(eon, [handlerFor('none')], {
      ...idle,
      background: true,
      tickerInterval: 60_000,
      expireInterval: 60_000,
    });
    const ensured = next(childWorker, 'task:ensured', 3_000);
    await ticking.start();
    await ensured;
    expect(children.map((child) => child.root)).toEqual([{ [Label.Object]: idOf(template) }]);
    expect(queue().log(ticking).ensured).toEqual([]);
  });

  it('wakes workers at the due time of a deferred task (engine clock 1000× real time, timeScale 1000)', async () => {
    const scale = 1_000;
    const clock = fastClock(scale);
    const eon = queue().live('eon', { clock, expiry: 3_600_000 });
    const visits: Task[] = [];
    const worker = queue().worker(
      eon,
      [
        {
          filter: kind('defer'),
          ensure: async (task) => {
            visits.push(structuredClone(task));
            // first visit: run me again in a minute of engine time (60 ms real)
            if (visits.length === 1) task.cron = { [Label.Defer]: 'minute' };
            await Promise.resolve();
          },
        },
      ],
      { ...idle, timeScale: scale },
    );
    await worker.start();
    const second = next(
      worker,
      'task:ensured',
      3_000,
      (task) => task.cron?.[Label.TickP1] !== undefined,
    );
    await eon.create({ meta: { kind: 'defer' } });
    await second;

    expect(visits).toHaveLength(2);
    const dueMs = parseTime(visits[1]!.cron![Label.TickP1]!).getTime();
    expect(parseTime(visits[1]!.core![Label.Expiry]!).getTime() - 3_600_000).toBeGreaterThanOrEqual(
      dueMs,
    );
  });
});
