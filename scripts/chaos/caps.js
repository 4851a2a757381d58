// The caps scenario of the chaos suite (npm run chaos -- --scenario caps):
// concurrency caps (docs/semantics.md §3.15) declared for the whole queue and
// per tenant, while a worker process is killed with SIGKILL every
// --kill-every ms and Redis (AOF, appendfsync always) is killed and started
// again every 5 s. The producer creates tasks of a hot tenant (3 in 10), of
// four others and without a tenant (1 in 10); each runs 100 ms in 5 ms steps
// (one in 100 runs 1.2 leases, renewed while it runs). Counted:
//
//   runs over a cap      instants at which more runs of a tenant (or of the
//                        queue) were live than its cap, from the workers'
//                        records: a run is live from its start (after its
//                        claim) until it ended, aborted, was told it lost the
//                        task, or its process was killed (its work ended
//                        before its task's ownership did)
//   samples over a cap   samples of the queue, every 100 ms, in which
//                        engine.stats() counted more owned tasks of a value
//                        (or of the queue) than its cap, or the owned tasks
//                        (engine.tasks({ state: 'owned' })) were more, per
//                        tenant or in all
//   slots left           once the queue drained and the workers stopped: the
//                        fields of `cap-counts` and `cap-holders`, and the
//                        owned count of each cap in stats()
//   tasks lost           acknowledged creates no run of which ended (a
//                        process killed after its delete may not have logged
//                        it done), and tasks left in the queue after the drain
//
// Each must be 0; the scenario fails otherwise. The most runs live at once
// and the most owned in a sample are printed beside, to show the caps were
// reached.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { Engine, Label } from '../../dist/index.js';
import { queueKeys } from '../../dist/engine/keys.js';
import { table } from '../bench/lib/report.js';
import { analyzeCaps, tenantKey, tenantOf } from './lib/caps-analyze.js';
import { sameClockWorkers, startFleet } from './lib/fleet.js';
import { now, openLog, readLogs } from './lib/log.js';
import { startRedis } from './lib/redis.js';

/** runCaps runs the scenario once and returns its counts. */
export async function runCaps(settings) {
  const caps = { queue: settings.capQueue, tenant: settings.capTenant };
  const dir = mkdtempSync(join(tmpdir(), 'rescue-chaos-caps-'));
  const log = openLog(dir, 'chaos');
  const producerLog = openLog(dir, 'producer');
  const chaos = `caps-${Date.now()}`;
  const redis = await startRedis(
    { config: { appendonly: 'yes', appendfsync: 'always' }, dir: join(dir, 'redis') },
    log,
  );
  const producer = new Engine({ redis: redis.url, queue: chaos, worker: 'producer' });
  const monitor = new Engine({ redis: redis.url, queue: chaos, worker: 'monitor' });
  await producer.setCap({ concurrency: caps.queue });
  await producer.setCap({ key: tenantKey, concurrency: caps.tenant });
  const capSteps = Math.ceil(settings.capTaskMs / settings.stepMs);
  const fleet = await startFleet(
    settings.workers,
    sameClockWorkers(
      settings,
      { url: redis.url, chaos, dir },
      {
        stepsOf: { ...settings.stepsOf, cap: capSteps },
      },
    ),
    log,
  );
  const faults = { kills: 0, 'redis restarts': 0 };
  let faulting = true;
  const injecting = Promise.all([
    (async () => {
      while (faulting) {
        await sleep(settings.killEvery);
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

  // the sampler: what the engine counts, and what is owned, against the caps
  const sampled = { samples: 0, failed: 0, overCap: 0, mostOwned: { queue: 0 } };
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      await sleep(100);
      try {
        const [stats, page] = await Promise.all([
          monitor.stats(),
          monitor.tasks({ state: 'owned', limit: 500 }),
        ]);
        sampled.samples++;
        const owned = new Map();
        for (const task of page.tasks) {
          const tenant = task.meta?.[tenantKey];
          if (tenant !== undefined) owned.set(tenant, (owned.get(tenant) ?? 0) + 1);
        }
        let over = page.tasks.length > caps.queue;
        const most = sampled.mostOwned;
        most.queue = Math.max(most.queue, page.tasks.length);
        for (const [tenant, count] of owned) {
          most[tenant] = Math.max(most[tenant] ?? 0, count);
          if (count > caps.tenant) over = true;
        }
        for (const cap of stats.caps) {
          if (cap.key === undefined) over ||= cap.owned > cap.concurrency;
          else over ||= cap.values.some((value) => value.owned > cap.concurrency);
        }
        if (over) {
          sampled.overCap++;
          log.write({ t: 'over-cap', at: now(), owned: [...owned], caps: stats.caps });
        }
      } catch {
        sampled.failed++; // Redis is being restarted
      }
    }
  })();

  const started = performance.now();
  const calls = [];
  for (let i = 0; i < settings.tasks; i++) {
    while (performance.now() - started < (i / settings.rate) * 1000) await sleep(5);
    const n = String(i);
    const tenant = tenantOf(i);
    const size = i % 100 === 0 ? 'long' : 'cap';
    calls.push(
      producer
        .create({
          meta: { chaos, n, size, ...(tenant === undefined ? {} : { [tenantKey]: tenant }) },
        })
        .then(
          (task) => producerLog.write({ t: 'ack', n, id: task.core[Label.Object], at: now() }),
          (error) =>
            producerLog.write({ t: 'create-error', n, at: now(), error: String(error?.message) }),
        ),
    );
  }
  await Promise.all(calls);
  faulting = false;
  await injecting;
  const producedMs = performance.now() - started;
  const deadline = performance.now() + 180_000;
  let drained = false;
  while (performance.now() < deadline) {
    if (!(await monitor.exists({ meta: { chaos } }).catch(() => true))) {
      drained = true;
      break;
    }
    await sleep(250);
  }
  const drainedMs = performance.now() - started;
  sampling = false;
  await sampler;
  await fleet.stop();
  for (const task of await monitor.lister({ meta: { chaos } })) {
    log.write({ t: 'left', id: task.core[Label.Object], n: task.meta.n, at: now() });
  }
  // the slots: none may be left once nothing is owned
  const keys = queueKeys(chaos);
  const admin = new Redis(redis.url);
  const slotsLeft = {
    capCounts: await admin.hlen(keys['cap-counts']),
    capHolders: await admin.hlen(keys['cap-holders']),
    owned: await admin.zcard(keys.owned),
    capsOwned: (await monitor.stats()).caps.reduce((sum, cap) => sum + cap.owned, 0),
  };
  await admin.quit();
  await Promise.all([producer.close(), monitor.close()]);
  await redis.stop();
  log.close();
  producerLog.close();
  const records = readLogs(dir);
  if (settings.keep) console.log(`records of caps: ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
  return {
    caps,
    faults,
    drained,
    producedSeconds: producedMs / 1000,
    seconds: drainedMs / 1000,
    ...sampled,
    slotsLeft,
    ...analyzeCaps(records, caps),
  };
}

const mostOf = (most) =>
  Object.entries(most)
    .map(([name, count]) => `${name} ${count}`)
    .join(', ');

/** capsTable renders the counts; the rows marked "must be 0" decide the exit code. */
export function capsTable(result) {
  const leftSlots =
    result.slotsLeft.capCounts +
    result.slotsLeft.capHolders +
    result.slotsLeft.owned +
    result.slotsLeft.capsOwned;
  return table(
    ['count', 'value'],
    [
      [
        'faults injected',
        Object.entries(result.faults)
          .map(([kind, count]) => `${count} ${kind}`)
          .join(', '),
      ],
      ['caps', `whole queue ${result.caps.queue}, per ${tenantKey} ${result.caps.tenant}`],
      ['creates acknowledged', result.created],
      ['runs', result.runs],
      ['most runs live at once', mostOf(result.mostRuns)],
      ['runs over the whole-queue cap (must be 0)', result.runsOverQueueCap],
      [`runs over the ${tenantKey} cap (must be 0)`, result.runsOverTenantCap],
      [
        'samples (stats() and the owned tasks; failed while Redis restarted)',
        `${result.samples} (${result.failed} failed)`,
      ],
      ['most owned in a sample', mostOf(result.mostOwned)],
      ['samples over a cap (must be 0)', result.overCap],
      [
        'slots left after the drain: cap-counts, cap-holders, owned members, stats() owned (must be 0)',
        `${leftSlots} (${result.slotsLeft.capCounts}, ${result.slotsLeft.capHolders}, ${result.slotsLeft.owned}, ${result.slotsLeft.capsOwned})`,
      ],
      ['acknowledged creates no run of which ended, not left (must be 0)', result.lost],
      ['tasks left in the queue (must be 0)', result.left],
      [
        'duration',
        `${Math.round(result.seconds)} s (created in ${Math.round(result.producedSeconds)} s)${result.drained ? '' : ', did not drain (must drain)'}`,
      ],
    ],
  );
}

/** capsFailed: a count that must be 0 is not, or the queue did not drain. */
export const capsFailed = (result) =>
  !result.drained ||
  result.runsOverQueueCap +
    result.runsOverTenantCap +
    result.overCap +
    result.slotsLeft.capCounts +
    result.slotsLeft.capHolders +
    result.slotsLeft.owned +
    result.slotsLeft.capsOwned +
    result.lost +
    result.left >
    0;
