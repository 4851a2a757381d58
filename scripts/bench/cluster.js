#!/usr/bin/env node
// Queues spread over a Redis Cluster (npm run bench:cluster): the throughput of
// 3 queues whose names hash to slots on 3 different primaries, against the
// same 3 queues on 1 primary of the same cluster, and on 1 plain redis-server.
// Each run fills every queue, then one worker process per queue works them
// off; setups alternate run by run. Prints the table and writes it to the
// `cluster` section of docs/benchmarks.md.
//
// Usage: node scripts/bench/cluster.js [--runs N] [--quick]
//   --runs N   runs per setup (default 3)
//   --quick    2,000 tasks per queue and one run (a smoke test)
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { Cluster } from 'ioredis';
import { startRedisCluster, startRedisServer } from '../../dist/testing/index.js';
import { machineFacts } from './lib/setup.js';
import { number, table, writeSection } from './lib/report.js';
import { progress } from './lib/compare-progress.js';
import { rotate, summary } from './lib/compare-runs.js';
import { range } from './lib/compare-cells.js';
import { clusterSetups } from './lib/cluster-setups.js';
import { clusterRun } from './lib/cluster-run.js';

const { values } = parseArgs({
  options: { runs: { type: 'string' }, quick: { type: 'boolean', default: false } },
});
const quick = values.quick;
const runs = Number(values.runs ?? (quick ? 1 : 3));
if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs wants a positive integer');
const tasks = quick ? 2_000 : 20_000; // per queue
const queues = 3;
const concurrency = 10;
const command = [
  'node scripts/bench/cluster.js',
  quick ? '--quick' : '',
  values.runs === undefined ? '' : `--runs ${runs}`,
]
  .filter(Boolean)
  .join(' ');

// Servers of our own, never REDIS_URL's: the setups differ only in where the queues live.
progress(`${command}: starting a 3-primary cluster and a single redis-server`);
const cluster = await startRedisCluster({ primaries: 3 });
const server = await startRedisServer({ env: {} });
const admin = new Cluster(cluster.nodes);
const loadAtStart = loadavg()[0];
try {
  const { setups, close } = await clusterSetups({ cluster, server, admin, queues });
  const results = await rotate(
    runs,
    setups.map((setup) => async (run) => {
      const result = await clusterRun(setup, { run, tasks, concurrency });
      progress(
        `run ${run + 1}/${runs}, ${setup.label}: ${number(result.rate)} tasks/s, ` +
          `Redis CPU ${result.shares.map((share) => `${number(share * 100)} %`).join(' / ')}`,
      );
      return result;
    }),
  );
  await close();
  const version = /redis_version:(\S+)/.exec(await admin.info('server'))?.[1] ?? 'unknown';
  const load = [loadAtStart, loadavg()[0]];
  const body = section({ setups, results, facts: machineFacts(version), load });
  console.log(`\n${body}\n`);
  writeSection(new URL('../../docs/benchmarks.md', import.meta.url).pathname, 'cluster', body);
  progress('done: docs/benchmarks.md, section cluster');
} finally {
  await admin.quit();
  await server.stop();
  await cluster.stop();
}

/** section renders the measurement: what ran where, and the table. */
function section({ setups, results, facts, load }) {
  const rates = results.map((runsOfSetup) => summary(runsOfSetup.map((result) => result.rate)));
  const reference = rates[setups.findIndex((setup) => setup.key === 'one-primary')];
  const rows = setups.map((setup, index) => {
    const ofRuns = results[index];
    const medianAt = (pick) => summary(ofRuns.map(pick)).median;
    const shares = ofRuns[0].shares.map((_, rank) => medianAt((result) => result.shares[rank]));
    const perTask = (name) => number(medianAt((result) => result[name]));
    return [
      setup.label,
      number(rates[index].median),
      range(rates[index]),
      `${number(rates[index].median / reference.median, 2)} ×`,
      shares.map((share) => number(share * 100)).join(' / '),
      perTask('redisUsPerTask'),
      perTask('workerUsPerTask'),
      perTask('machineUsPerTask'),
      `${number(medianAt((result) => result.ownShare) * 100)} %`,
      number(
        medianAt((result) => result.cores),
        2,
      ),
    ];
  });
  return [
    '## Queues across a Redis Cluster',
    '',
    `Measured ${facts.date} with \`${command}\` (\`npm run bench:cluster\`) on ${facts.machine}; ` +
      `Node ${facts.node}, Redis ${facts.redis}; a local 3-primary cluster without replicas ` +
      '(`startRedisCluster`) and a single redis-server, all without persistence, with the ' +
      'worker processes on the same machine, which other work may share (1-minute load average ' +
      `${number(load[0], 1)} at the start, ${number(load[1], 1)} at the end).`,
    '',
    `${queues} queues of ${number(tasks)} tasks each, created up front (1,000 in flight per queue), ` +
      `then one worker process per queue (\`Worker\`, concurrency ${concurrency}, a no-op handler) ` +
      'works them all off; tasks/s over all queues from the first worker start to the last ' +
      'completion. "on 3 primaries": queue names picked so that their hash tags (`CLUSTER KEYSLOT`) ' +
      'fall in the slots of 3 different primaries; "on 1 primary": names whose slots one primary ' +
      'serves (another primary each run), through the same Cluster client; "1 server": a plain ' +
      "redis-server and a plain client. CPU over the work: each primary's `used_cpu_user` + " +
      '`used_cpu_sys` as a share of one core (busiest first); per task, Redis (all primaries), ' +
      'the worker processes (`process.cpuUsage`) and the whole machine (`/proc/stat`: every ' +
      "process, the benchmark's and anybody else's); how much of the machine's CPU time was " +
      "the benchmark's (Redis and workers; below 100 % other work shared the cores); and how " +
      'many of the cores were busy. ' +
      (runs === 1
        ? 'One run per setup'
        : `Median of ${runs} runs per setup, the setups taking turns in an order turned by one each run (A B C, B C A, …)`) +
      ', min–max; the ratio compares each median with "on 1 primary".',
    '',
    table(
      [
        'setup',
        'tasks/s',
        'min–max',
        'vs 1 primary',
        'Redis CPU per primary, % of a core',
        'Redis µs/task',
        'workers µs/task',
        'machine µs/task',
        'ours of machine',
        'busy cores',
      ],
      rows,
    ),
  ].join('\n');
}
