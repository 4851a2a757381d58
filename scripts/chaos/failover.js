// The failover scenario of the chaos suite (npm run chaos -- --scenario
// failover): acknowledged writes lost when the primary dies and its replica
// is promoted under load.
//
// Each round: a primary P, its replica R attached through a link that holds
// what P sends for --lag ms (lib/links.js), so R lags for real, and a
// replica R2 of R (direct), which R keeps once promoted; every engine
// connects through a service address that forwards to the current primary.
// Worker processes complete tasks and a producer creates them; in the middle
// of production P is killed with SIGKILL while the link drops what it holds,
// R is promoted (REPLICAOF NO ONE) and the service address points at it. The
// queue drains and the records are counted: acknowledged creates lost (no
// task completed, none left), and completions lost (the worker's delete was
// acknowledged, task:ensured, and the task came back: it ran again or was
// left in the queue). Everything on loopback; each server without
// persistence, its directory in the run's temporary directory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { Engine, Label } from '../../dist/index.js';
import { startRedisServer } from '../../dist/testing/index.js';
import { number, table } from '../bench/lib/report.js';
import { analyze } from './lib/analyze.js';
import { sameClockWorkers, startFleet } from './lib/fleet.js';
import { startLagLink, startServiceAddress } from './lib/links.js';
import { now, openLog, readLogs } from './lib/log.js';
import { produce } from './lib/producer.js';

/** replicate makes `replica` a replica of host:port and waits until it is in sync. */
async function replicate(replica, host, port) {
  const admin = new Redis(replica.url);
  try {
    await admin.call('REPLICAOF', host, String(port));
    const deadline = performance.now() + 20_000;
    while (!/master_link_status:up/.test(await admin.info('replication'))) {
      if (performance.now() > deadline) throw new Error(`replica ${replica.url} did not sync`);
      await sleep(20);
    }
  } finally {
    admin.disconnect();
  }
}

/**
 * lostCompletions counts tasks whose completion was acknowledged (task:ensured)
 * and that came back after it: a run started later, or the task was left.
 */
export function lostCompletions(records) {
  const doneAt = new Map();
  for (const record of records) {
    if (record.t === 'done' && !(doneAt.get(record.id) <= record.at))
      doneAt.set(record.id, record.at);
  }
  const back = new Set();
  for (const record of records) {
    const at = doneAt.get(record.id);
    if (at === undefined) continue;
    if ((record.t === 'start' && record.at > at) || record.t === 'left') back.add(record.id);
  }
  return { completions: doneAt.size, lost: back.size };
}

/** runRound runs one failover; returns its counts. */
async function runRound(round, options, settings) {
  const dir = mkdtempSync(join(tmpdir(), `rescue-chaos-failover-`));
  const log = openLog(dir, 'chaos');
  const producerLog = openLog(dir, 'producer');
  const chaos = `failover-${round}`;
  const servers = [];
  const start = async (name) => {
    const server = await startRedisServer({ env: {}, dir: join(dir, name) });
    servers.push(server);
    return server;
  };
  const primary = await start('p');
  const replica = await start('r');
  const chained = await start('r2');
  const link = await startLagLink(primary, options.lagMs);
  await replicate(replica, link.host, link.port);
  await replicate(chained, replica.host, replica.port);
  const service = await startServiceAddress(primary);
  const { durability } = options;
  const fleet = await startFleet(
    settings.workers,
    sameClockWorkers(settings, { url: service.url, chaos, dir }, { durability }),
    log,
  );
  const producer = new Engine({ redis: service.url, queue: chaos, worker: 'producer', durability });
  const monitor = new Engine({ redis: service.url, queue: chaos, worker: 'monitor' });
  const promoter = new Redis(replica.url);

  const started = performance.now();
  const productionMs = (settings.tasks / settings.rate) * 1000;
  const fault = (async () => {
    await sleep(productionMs * (0.3 + 0.4 * Math.random()));
    const held = link.held();
    // in one turn: the bytes the link holds are gone with the primary
    link.sever();
    process.kill(primary.pid, 'SIGKILL');
    log.write({ t: 'primary-kill', at: now(), held });
    await promoter.call('REPLICAOF', 'NO', 'ONE');
    service.pointTo(replica);
    log.write({ t: 'promoted', at: now() });
    return held;
  })();
  await produce(producer, { ...settings, count: settings.tasks, chaos }, producerLog);
  const held = await fault;
  const deadline = performance.now() + 60_000;
  let drained = false;
  while (performance.now() < deadline) {
    if (!(await monitor.exists({ meta: { chaos } }).catch(() => true))) {
      drained = true;
      break;
    }
    await sleep(250);
  }
  await fleet.stop();
  for (const task of await monitor.lister({ meta: { chaos } })) {
    log.write({
      t: 'left',
      id: task.core[Label.Object],
      n: task.meta.n,
      core: task.core,
      at: now(),
    });
  }
  const seconds = (performance.now() - started) / 1000;
  await Promise.all([producer.close(), monitor.close()]);
  promoter.disconnect();
  await service.close();
  await link.close();
  for (const server of servers) await server.stop();
  log.close();
  producerLog.close();
  const records = readLogs(dir);
  rmSync(dir, { recursive: true, force: true });
  const counts = analyze(records);
  const completions = lostCompletions(records);
  const createErrors = records.filter((record) => record.t === 'create-error');
  return {
    held,
    drained,
    seconds,
    created: counts.created,
    lost: counts.lost,
    completions: completions.completions,
    completionsLost: completions.lost,
    createErrors: createErrors.length,
    replicaTimeouts: createErrors.filter((record) => /no replica took/.test(record.error)).length,
    overlaps: counts.overlaps,
    rerunsAfterDone: counts.rerunsAfterDone,
  };
}

/** runFailovers runs the rounds of one durability setting and prints each and their sum. */
export async function runFailovers(options, settings) {
  const rounds = [];
  for (let round = 0; round < options.failovers; round++) {
    const result = await runRound(round, options, settings);
    rounds.push(result);
    console.log(
      `failover ${round + 1}/${options.failovers} (durability ${options.durability}, lag ${options.lagMs} ms): ` +
        `${number(result.held)} bytes held at the kill, ${number(result.created)} creates acknowledged, ` +
        `${result.lost} lost; ${number(result.completions)} completions acknowledged, ${result.completionsLost} lost; ` +
        `${result.createErrors} create errors${result.drained ? '' : ', did not drain'}; ${result.seconds.toFixed(1)} s`,
    );
  }
  const sum = (key) => rounds.reduce((total, round) => total + round[key], 0);
  const roundsLosing = (key) => rounds.filter((round) => round[key] > 0).length;
  return {
    name: `failover, durability ${options.durability}`,
    durability: options.durability,
    failovers: rounds.length,
    lagMs: options.lagMs,
    held: sum('held'),
    created: sum('created'),
    lost: sum('lost'),
    roundsLosingCreates: roundsLosing('lost'),
    completions: sum('completions'),
    completionsLost: sum('completionsLost'),
    roundsLosingCompletions: roundsLosing('completionsLost'),
    createErrors: sum('createErrors'),
    replicaTimeouts: sum('replicaTimeouts'),
    overlaps: sum('overlaps'),
    rerunsAfterDone: sum('rerunsAfterDone'),
    undrained: rounds.filter((round) => !round.drained).length,
    seconds: sum('seconds'),
  };
}

/** failoverTable renders the results of runFailovers, a column per durability setting. */
export function failoverTable(results) {
  const rows = [
    ['failovers', (r) => number(r.failovers)],
    ['replication lag held on the link', (r) => `${number(r.lagMs)} ms`],
    ['bytes the link held at the kills (dropped)', (r) => number(r.held)],
    ['creates acknowledged', (r) => number(r.created)],
    [
      'acknowledged creates lost',
      (r) => `${number(r.lost)} (in ${r.roundsLosingCreates} failovers)`,
    ],
    ['completions acknowledged', (r) => number(r.completions)],
    [
      'acknowledged completions lost (task came back)',
      (r) => `${number(r.completionsLost)} (in ${r.roundsLosingCompletions} failovers)`,
    ],
    [
      'create errors (not acknowledged)',
      (r) => `${number(r.createErrors)} (${number(r.replicaTimeouts)} ReplicaTimeoutError)`,
    ],
    ['overlapping live runs', (r) => number(r.overlaps)],
    ['runs after the delete was acknowledged', (r) => number(r.rerunsAfterDone)],
    ['rounds that did not drain', (r) => number(r.undrained)],
    ['duration', (r) => `${number(r.seconds)} s`],
  ];
  return table(
    ['', ...results.map(({ durability }) => `durability '${durability}'`)],
    rows.map(([label, cell]) => [label, ...results.map(cell)]),
  );
}
