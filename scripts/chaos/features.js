// The features scenario of the chaos suite (npm run chaos -- --scenario
// features): producers `run`, `wait` and `cancel`, handlers `spawn`, tasks
// held `after` another, while a worker process is killed with SIGKILL every
// second and Redis (AOF, appendfsync always) is killed and started again
// every 5 s. Counted from the records of every process (lib/log.js):
//
//   endedAfterCancel   runs of a task whose cancel returned true that reached
//                      their end more than `graceMs` after cancel returned
//   unresolvedWaits    run / wait calls that had not settled within waitBoundMs
//   followersEarly     runs of a follower (created `after` a lead) that began
//                      before any run of its lead ended, or whose lead was
//                      cancelled (cancel returned true)
//   childrenLost       completed parents with no child; childrenDuplicated:
//                      children beyond one per parent
//
// Each must be 0; the scenario fails otherwise.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Engine, Label } from '../../dist/index.js';
import { table } from '../bench/lib/report.js';
import { sameClockWorkers, startFleet } from './lib/fleet.js';
import { now, openLog, readLogs } from './lib/log.js';
import { startRedis } from './lib/redis.js';

/** How long after cancel returned true a run may still reach its end (the abort is a message away). */
export const graceMs = 50;
/** How long a run or wait may take before it counts as never resolved. */
export const waitBoundMs = 60_000;

/** analyzeFeatures counts the scenario's failures from its records (pure). */
export function analyzeFeatures(records) {
  const cancelledAt = new Map(); // id -> when cancel returned true
  const ends = new Map(); // id -> ends of its runs
  const starts = new Map(); // id -> starts of its runs
  const leadOf = new Map(); // follower id -> lead id
  const parents = new Map(); // parent n -> its id
  const childIds = new Map(); // parent n -> child ids
  const completedIds = new Set();
  const left = new Set();
  let unresolvedWaits = 0;
  let waits = 0;
  const waitErrors = new Map();
  const push = (map, key, value) => map.set(key, [...(map.get(key) ?? []), value]);
  // a child's n is its parent's and `.child` (worker.js)
  const parentOf = (record) =>
    typeof record.n === 'string' && record.n.endsWith('.child') ? record.n.slice(0, -6) : undefined;
  for (const record of records) {
    if (record.t === 'cancelled' && record.result === true) cancelledAt.set(record.id, record.at);
    else if (record.t === 'end') push(ends, record.id, record.at);
    else if (record.t === 'start') {
      push(starts, record.id, record.at);
      if (parentOf(record) !== undefined) push(childIds, parentOf(record), record.id);
    } else if (record.t === 'follower') leadOf.set(record.id, record.lead);
    else if (record.t === 'parent') parents.set(record.n, record.id);
    else if (record.t === 'done') completedIds.add(record.id);
    else if (record.t === 'left') {
      left.add(record.id);
      if (parentOf(record) !== undefined) push(childIds, parentOf(record), record.id);
    } else if (record.t === 'wait') {
      waits++;
      if (record.outcome === 'unresolved') unresolvedWaits++;
      else if (record.outcome === 'error')
        waitErrors.set(record.error, (waitErrors.get(record.error) ?? 0) + 1);
    }
  }
  let endedAfterCancel = 0;
  for (const [id, at] of cancelledAt) {
    endedAfterCancel += (ends.get(id) ?? []).filter((end) => end > at + graceMs).length;
  }
  let followersEarly = 0;
  for (const [follower, lead] of leadOf) {
    const firstEnd = Math.min(...(ends.get(lead) ?? [Infinity]));
    for (const start of starts.get(follower) ?? []) {
      if (start < firstEnd || cancelledAt.has(lead)) followersEarly++;
    }
  }
  let childrenLost = 0;
  let childrenDuplicated = 0;
  for (const [n, id] of parents) {
    const children = new Set(childIds.get(n) ?? []).size;
    if (completedIds.has(id) && !left.has(id) && children === 0) childrenLost++;
    childrenDuplicated += Math.max(0, children - 1);
  }
  return {
    cancels: cancelledAt.size,
    endedAfterCancel,
    waits,
    unresolvedWaits,
    waitErrors: [...waitErrors].map(([error, count]) => `${error}: ${count}`).join('; ') || 'none',
    followers: leadOf.size,
    followersEarly,
    parents: parents.size,
    childrenLost,
    childrenDuplicated,
  };
}

/** runFeatures runs the scenario once and returns its counts. */
export async function runFeatures(settings) {
  const dir = mkdtempSync(join(tmpdir(), 'rescue-chaos-features-'));
  const log = openLog(dir, 'chaos');
  const producerLog = openLog(dir, 'producer');
  const chaos = `features-${Date.now()}`;
  const redis = await startRedis(
    { config: { appendonly: 'yes', appendfsync: 'always' }, dir: join(dir, 'redis') },
    log,
  );
  const fleet = await startFleet(
    settings.workers,
    sameClockWorkers(settings, { url: redis.url, chaos, dir }),
    log,
  );
  const producer = new Engine({ redis: redis.url, queue: chaos, worker: 'producer' });
  const monitor = new Engine({ redis: redis.url, queue: chaos, worker: 'monitor' });
  const faults = { kills: 0, 'redis restarts': 0 };
  let faulting = true;
  const injecting = Promise.all([
    (async () => {
      while (faulting) {
        await sleep(1_000);
        if (faulting) await fleet.killOne().then(() => faults.kills++);
      }
    })(),
    (async () => {
      while (faulting) {
        await sleep(5_000);
        if (faulting) await redis.crash().then(() => faults['redis restarts']++);
      }
    })(),
  ]);

  const waits = [];
  /** watched logs how a run or wait settled, or that it had not within the bound. */
  const watched = (kind, n, promise) => {
    const bound = sleep(waitBoundMs, 'unresolved', { ref: false });
    waits.push(
      Promise.race([
        promise.then(
          () => 'resolved',
          (error) => ({ error }),
        ),
        bound,
      ]).then((result) =>
        producerLog.write({
          t: 'wait',
          kind,
          n,
          at: now(),
          outcome: typeof result === 'string' ? result : 'error',
          error:
            typeof result === 'string'
              ? undefined
              : String(result.error?.code ?? result.error?.message).slice(0, 80),
        }),
      ),
    );
  };
  const cancel = async (id) => {
    await sleep(Math.random() * 3);
    const result = await producer
      .cancel(id)
      .catch((error) => String(error?.code ?? error?.message));
    producerLog.write({ t: 'cancelled', id, result, at: now() });
  };
  const idOf = (task) => task.core[Label.Object];
  const createOne = async (i) => {
    const n = String(i);
    const meta = { chaos, n };
    switch (i % 5) {
      case 0: // cancelled 0–3 ms after its create; runs long
        return cancel(idOf(await producer.create({ meta: { ...meta, size: 'long' } })));
      case 1:
        return watched('run', n, producer.run({ meta }));
      case 2: {
        const parent = await producer.create({ meta: { ...meta, spawn: '1' } });
        return producerLog.write({ t: 'parent', n, id: idOf(parent), at: now() });
      }
      case 3: {
        const lead = await producer.create({ meta: { ...meta, size: 'half' } });
        const follower = await producer.create(
          { meta: { chaos, n: `${n}.after` } },
          { after: idOf(lead) },
        );
        producerLog.write({ t: 'follower', id: idOf(follower), lead: idOf(lead), at: now() });
        if (i % 20 === 3) await cancel(idOf(lead));
        return undefined;
      }
      default:
        return watched(
          'wait',
          n,
          producer.create({ meta }).then((task) => producer.wait(idOf(task))),
        );
    }
  };
  const started = performance.now();
  const calls = [];
  for (let i = 0; i < settings.tasks; i++) {
    while (performance.now() - started < (i / settings.rate) * 1000) await sleep(5);
    calls.push(
      createOne(i).catch((error) =>
        producerLog.write({ t: 'producer-error', at: now(), error: String(error?.message) }),
      ),
    );
  }
  await Promise.all(calls);
  faulting = false;
  await injecting;
  await Promise.all(waits);
  const deadline = performance.now() + 60_000;
  while (performance.now() < deadline) {
    // held followers are not listed by exists: wait for the runnable ones
    if (!(await monitor.exists({ meta: { chaos } }).catch(() => true))) break;
    await sleep(250);
  }
  await fleet.stop();
  for (const task of await monitor.lister({ meta: { chaos } })) {
    log.write({ t: 'left', id: idOf(task), n: task.meta.n, at: now() });
  }
  await Promise.all([producer.close(), monitor.close()]);
  await redis.stop();
  log.close();
  producerLog.close();
  const records = readLogs(dir);
  rmSync(dir, { recursive: true, force: true });
  return { faults, seconds: (performance.now() - started) / 1000, ...analyzeFeatures(records) };
}

/** featuresTable renders the counts; the rows marked "must be 0" decide the exit code. */
export function featuresTable(result) {
  return table(
    ['count', 'value'],
    [
      [
        'faults injected',
        Object.entries(result.faults)
          .map(([kind, count]) => `${count} ${kind}`)
          .join(', '),
      ],
      ['cancels that returned true', result.cancels],
      [
        `runs that reached their end > ${graceMs} ms after cancel returned true (must be 0)`,
        result.endedAfterCancel,
      ],
      ['run / wait calls', result.waits],
      [
        `run / wait calls unresolved after ${waitBoundMs / 1000} s (must be 0)`,
        result.unresolvedWaits,
      ],
      ['run / wait calls that rejected', result.waitErrors],
      ['followers (created after a lead)', result.followers],
      ['follower runs without a completed lead (must be 0)', result.followersEarly],
      ['parents (spawn one child)', result.parents],
      ['children lost (must be 0)', result.childrenLost],
      ['children duplicated (must be 0)', result.childrenDuplicated],
      ['duration', `${Math.round(result.seconds)} s`],
    ],
  );
}

/** featuresFailed: a count that must be 0 is not. */
export const featuresFailed = (result) =>
  result.endedAfterCancel +
    result.unresolvedWaits +
    result.followersEarly +
    result.childrenLost +
    result.childrenDuplicated >
  0;
