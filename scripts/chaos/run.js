#!/usr/bin/env node
// The fault-injection suite (npm run chaos): for each scenario, a fresh
// redis-server, worker processes and a producer; faults injected while the
// producer creates its tasks; then the queue drains, the workers stop, and the
// records every process wrote (JSON lines in a temporary directory, never the
// Redis under test) are counted. Prints a table; with --write, also writes it
// into docs/reliability.md.
//
// Usage: node scripts/chaos/run.js [--scenario NAME]... [options]
//   --scenario NAME   kill, stop, redis-always, redis-everysec, drop-replies,
//                     pause, delay, skew, skew-allowed (repeatable; default all
//                     of these), and, only when named: failover (failover.js),
//                     features (features.js: 2,000 tasks at 100/s, 4 workers),
//                     caps (caps.js: 1,500 tasks at 100/s, 4 workers, caps
//                     declared for the whole queue and per tenant)
//   --tasks N         tasks to create (default 20000)
//   --workers N       worker processes (default 6)
//   --concurrency N   slots per worker (default 8)
//   --expiry MS       the lease (default 3000)
//   --rate N          creates per second (default 1000)
//   --skew MS         clock skew of the skew scenarios: offsets from -MS to +MS (default 1000)
//   --quick           2,000 tasks, 3 workers: a smoke run
//   --keep            keep the records (their directory is printed)
//   --write           write the table into docs/reliability.md
//   --help            this text
// The failover scenario (its own table; each round 2,000 tasks at 1,000/s,
// 4 workers of 16 slots unless --tasks, --rate, --workers, --concurrency say):
//   --failovers N     failovers per durability setting (default 20)
//   --durability D    primary or replica (repeatable; default both)
//   --lag MS          how long the replication link holds what the primary sends (default 100)
// The caps scenario:
//   --cap-queue N     the whole-queue cap (default 12)
//   --cap-tenant N    the cap of each tenant (default 2)
//   --kill-every MS   a worker process killed this often (default 2000)
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { Engine, Label } from '../../dist/index.js';
import { machineFacts } from '../bench/lib/setup.js';
import { writeSection } from '../bench/lib/report.js';
import { failoverTable, runFailovers } from './failover.js';
import { capsFailed, capsTable, runCaps } from './caps.js';
import { featuresFailed, featuresTable, runFeatures } from './features.js';
import { analyze } from './lib/analyze.js';
import { startFleet } from './lib/fleet.js';
import { now, openLog, readLogs } from './lib/log.js';
import { produce } from './lib/producer.js';
import { startProxy } from './lib/proxy.js';
import { startRedis } from './lib/redis.js';
import { reportTable, scenarioTable } from './lib/report.js';
import { scenarios } from './lib/scenarios.js';

const { values } = parseArgs({
  options: {
    scenario: { type: 'string', multiple: true },
    tasks: { type: 'string' },
    workers: { type: 'string' },
    concurrency: { type: 'string' },
    expiry: { type: 'string' },
    rate: { type: 'string' },
    skew: { type: 'string' },
    quick: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    write: { type: 'boolean', default: false },
    failovers: { type: 'string' },
    durability: { type: 'string', multiple: true },
    lag: { type: 'string' },
    'cap-queue': { type: 'string' },
    'cap-tenant': { type: 'string' },
    'kill-every': { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  // the usage is the comment this file opens with
  const lines = readFileSync(new URL(import.meta.url), 'utf8').split('\n');
  const usage = lines.slice(
    1,
    lines.findIndex((line) => line.startsWith('import ')),
  );
  console.log(usage.map((line) => line.replace(/^\/\/ ?/, '')).join('\n'));
  process.exit(0);
}
const integer = (text, fallback) => (text === undefined ? fallback : Number.parseInt(text, 10));
const expiry = integer(values.expiry, 3_000);
const stepMs = 5;
// Most tasks take two steps; one in 500 runs for 1.2 leases (renewed while it
// runs), one in 100 for half a lease (what a claim that arrives late, with
// part of its lease gone, may outlast).
const sizes = [
  { name: 'long', every: 500, steps: Math.ceil((1.2 * expiry) / stepMs) },
  { name: 'half', every: 100, steps: Math.ceil((0.5 * expiry) / stepMs) },
];
const settings = {
  tasks: integer(values.tasks, values.quick ? 2_000 : 20_000),
  workers: integer(values.workers, values.quick ? 3 : 6),
  concurrency: integer(values.concurrency, 8),
  expiry,
  rate: integer(values.rate, 1_000),
  skew: integer(values.skew, 1_000),
  inFlight: 64,
  steps: 2,
  stepMs,
  sizes,
  stepsOf: Object.fromEntries(sizes.map(({ name, steps }) => [name, steps])),
  expireInterval: 500,
  pollInterval: 1_000,
};
/** Scenarios of their own kind: run only when named, each with its own table. */
const named = { failover: failoverScenario, features: featuresScenario, caps: capsScenario };
const names = (values.scenario ?? Object.keys(scenarios)).filter((name) => !(name in named));
const namedRuns = (values.scenario ?? []).filter((name) => name in named);
for (const name of names) {
  if (!(name in scenarios))
    throw new Error(
      `unknown scenario "${name}": ${[...Object.keys(scenarios), ...Object.keys(named)].join(', ')}`,
    );
}

// read before the run: what was built and measured, not what changed meanwhile
const code = codeVersion();
let failed = false;
for (const name of namedRuns) failed = (await named[name]()) || failed;
if (names.length === 0) process.exit(failed ? 1 : 0);
const results = [];
let redisVersion = 'unknown';
for (const name of names) {
  const result = { name, ...(await runScenario(name, scenarios[name])) };
  redisVersion = result.redisVersion;
  results.push(result);
  console.log(`${reportTable([result])}\n`);
}

const facts = machineFacts(redisVersion);
const text = reportTable(results);
console.log(`${text}\n\nMeasured ${facts.line}, code ${code}`);
if (values.write) {
  writeSection(
    new URL('../../docs/reliability.md', import.meta.url),
    'chaos',
    `${scenarioTable(names)}\n\nMeasured ${facts.line}, on the code of commit ${code}, with ` +
      `\`${['npm run chaos --', ...process.argv.slice(2).filter((flag) => flag !== '--keep')].join(' ')}\` ` +
      `(${settings.tasks.toLocaleString('en-US')} tasks, ${settings.workers} worker processes of ` +
      `${settings.concurrency} slots, lease ${settings.expiry} ms, ${settings.rate} creates/s).\n\n${text}`,
  );
}

/**
 * failoverScenario runs the failovers of each durability setting asked for
 * and prints their table; says whether a count that must be 0 was not
 * (acknowledged writes lost with durability 'replica').
 */
async function failoverScenario() {
  const durabilities = values.durability ?? ['replica', 'primary'];
  const round = {
    ...settings,
    tasks: integer(values.tasks, 2_000),
    rate: integer(values.rate, 1_000),
    workers: integer(values.workers, 4),
    concurrency: integer(values.concurrency, 16),
  };
  const results = [];
  for (const durability of durabilities) {
    if (durability !== 'primary' && durability !== 'replica')
      throw new Error(`--durability: primary or replica, got "${durability}"`);
    results.push(
      await runFailovers(
        { durability, failovers: integer(values.failovers, 20), lagMs: integer(values.lag, 100) },
        round,
      ),
    );
  }
  const facts = machineFacts(results[0]?.redisVersion ?? (await serverVersion()));
  console.log(
    `\n${failoverTable(results)}\n\nMeasured ${facts.line}, code ${code}; each round ` +
      `${round.tasks.toLocaleString('en-US')} tasks at ${round.rate}/s, ${round.workers} worker processes of ${round.concurrency} slots`,
  );
  const broken = results.some(
    (result) => result.durability === 'replica' && (result.lost > 0 || result.completionsLost > 0),
  );
  if (broken) console.log("FAILED: durability 'replica' lost acknowledged writes");
  return broken;
}

/** featuresScenario runs the features scenario and prints its counts; says whether one that must be 0 was not. */
async function featuresScenario() {
  const result = await runFeatures({
    ...settings,
    tasks: integer(values.tasks, 2_000),
    rate: integer(values.rate, 100),
    workers: integer(values.workers, 4),
  });
  const facts = machineFacts(await serverVersion());
  console.log(`\n${featuresTable(result)}\n\nMeasured ${facts.line}, code ${code}`);
  const broken = featuresFailed(result);
  if (broken) console.log('FAILED: a count that must be 0 is not');
  return broken;
}

/** capsScenario runs the caps scenario and prints its counts; says whether one that must be 0 was not. */
async function capsScenario() {
  const result = await runCaps({
    ...settings,
    tasks: integer(values.tasks, 1_500),
    rate: integer(values.rate, 100),
    workers: integer(values.workers, 4),
    capQueue: integer(values['cap-queue'], 12),
    capTenant: integer(values['cap-tenant'], 2),
    killEvery: integer(values['kill-every'], 2_000),
    capTaskMs: 100,
    keep: values.keep,
  });
  const facts = machineFacts(await serverVersion());
  console.log(`\n${capsTable(result)}\n\nMeasured ${facts.line}, code ${code}`);
  const broken = capsFailed(result);
  if (broken) console.log('FAILED: a count that must be 0 is not');
  return broken;
}

/** serverVersion is the version of the redis-server binary the scenarios start. */
async function serverVersion() {
  try {
    return (
      /v=(\S+)/.exec(execFileSync('redis-server', ['--version'], { encoding: 'utf8' }))?.[1] ??
      'unknown'
    );
  } catch {
    return 'unknown';
  }
}

/** codeVersion is the commit measured, marked when the working tree differs from it. */
function codeVersion() {
  const git = (...args) => execFileSync('git', args, { encoding: 'utf8' }).trim();
  try {
    return `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', 'lib') === '' ? '' : ' (with uncommitted changes in lib/)'}`;
  } catch {
    return 'unknown (no git)';
  }
}

async function runScenario(name, scenario) {
  const dir = mkdtempSync(join(tmpdir(), `rescue-chaos-${name}-`));
  const log = openLog(dir, 'chaos');
  const producerLog = openLog(dir, 'producer');
  const chaos = `${name}-${randomUUID().slice(0, 8)}`;
  const redis = await startRedis({ config: scenario.redis, dir: join(dir, 'redis') }, log);
  const admin = new Redis(redis.url);
  const redisVersion = /redis_version:(\S+)/.exec(await admin.info('server'))?.[1] ?? 'unknown';
  const proxy = scenario.proxy ? await startProxy(redis, log) : undefined;
  const url = proxy?.url ?? redis.url;
  const offsets = scenario.offsets?.(settings.workers, settings.skew);
  const fleet = await startFleet(
    settings.workers,
    (slot, id) => ({
      ...settings,
      id,
      url,
      queue: chaos,
      chaos,
      logDir: dir,
      offsetMs: offsets?.[slot] ?? 0,
      clockSkew: scenario.clockSkew?.(settings.skew) ?? 0,
      background: scenario.background?.(slot, settings.workers) ?? true,
    }),
    log,
  );
  const producer = new Engine({ redis: url, queue: chaos, worker: 'producer' });
  const monitor = new Engine({ redis: redis.url, queue: chaos, worker: 'monitor' });
  const faults = {};
  const run = {
    settings,
    fleet,
    redis,
    proxy,
    admin,
    log,
    faulting: true,
    count: (kind) => (faults[kind] = (faults[kind] ?? 0) + 1),
  };

  const started = performance.now();
  log.write({ t: 'phase', phase: 'produce', at: now() });
  const injecting = scenario.faults(run);
  const producedMs = await produce(
    producer,
    { ...settings, count: settings.tasks, chaos },
    producerLog,
  );
  run.faulting = false;
  await injecting;
  log.write({ t: 'phase', phase: 'drain', at: now() });
  const drainStart = performance.now();
  const drained = await drain(monitor, chaos, Math.max(60_000, 20 * settings.expiry));
  console.log(
    `${name}: created in ${(producedMs / 1000).toFixed(1)} s, ` +
      (drained
        ? `drained ${((performance.now() - drainStart) / 1000).toFixed(1)} s later`
        : 'did not drain'),
  );
  await fleet.stop();
  log.write({ t: 'phase', phase: 'stopped', at: now(), drained });
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
  await proxy?.close();
  await admin.quit();
  await redis.stop();
  log.close();
  producerLog.close();
  const counts = analyze(readLogs(dir));
  if (values.keep) console.log(`records of ${name}: ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
  return { ...counts, faults, seconds, redisVersion };
}

/** drain waits until no task of the run is left (or the time is up); says whether it emptied. */
async function drain(monitor, chaos, timeoutMs) {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (!(await monitor.exists({ meta: { chaos } }))) return true;
    await sleep(250);
  }
  return false;
}
