// The Redis ceiling (npm run bench:ceiling): several worker processes on one
// pre-filled queue, for rescue-engine and for BullMQ in the same run, and what
// Redis spent per job. Redis runs scripts one at a time on one core, so once
// workers run on many machines the queue's throughput can never exceed
// 1 / (Redis CPU per job): that bound is printed beside the measured rate.
//
// Usage: node scripts/bench/ceiling.js [--jobs N] [--processes P] [--concurrency C] [--runs R]
// On a machine with few cores the workers cannot saturate Redis: the
// utilisation column says how close they came, the ceiling column does not
// depend on it.
import { parseArgs } from 'node:util';
import { busyCores, machineTicks, redisCpuSeconds } from './lib/cpu.js';
import { ours } from './lib/compare-ours.js';
import { processInChildren } from './lib/compare-processes.js';
import { withQueue } from './lib/compare-queue.js';
import { theirs } from './lib/compare-theirs.js';
import { number, table } from './lib/report.js';
import { startBench } from './lib/setup.js';

const { values } = parseArgs({
  options: {
    jobs: { type: 'string', default: '20000' },
    processes: { type: 'string', default: '4' },
    concurrency: { type: 'string', default: '50' },
    runs: { type: 'string', default: '2' },
  },
});
const jobs = Number(values.jobs);
const processes = Number(values.processes);
const concurrency = Number(values.concurrency);
const runs = Number(values.runs);

const bench = await startBench();
const url = bench.server.url;
const sides = [ours({ url, dropQueue: bench.dropQueue }), theirs({ url })];

/** oneRun fills a fresh queue and drains it with the worker processes, reading Redis CPU around the drain. */
async function oneRun(side) {
  return withQueue(side, 'ceiling', async (handle, queue) => {
    await handle.fill(jobs);
    let cpuBefore = 0;
    let ticksBefore;
    let cpuAfter = 0;
    let ticksAfter;
    const ms = await processInChildren(side.kind, {
      url,
      queue,
      processes,
      concurrency,
      count: jobs,
      beforeStart: async () => {
        cpuBefore = await redisCpuSeconds(bench.redis);
        ticksBefore = machineTicks();
      },
      afterDone: async () => {
        cpuAfter = await redisCpuSeconds(bench.redis);
        ticksAfter = machineTicks();
      },
    });
    const redisSeconds = cpuAfter - cpuBefore;
    return {
      perSecond: jobs / (ms / 1000),
      utilisation: redisSeconds / (ms / 1000),
      redisUsPerJob: (redisSeconds * 1e6) / jobs,
      busy: busyCores(ticksBefore, ticksAfter),
    };
  });
}

const results = new Map(sides.map((side) => [side.name, []]));
for (let run = 0; run < runs; run++) {
  // alternate the order so neither side always runs on a warmer machine
  const order = run % 2 === 0 ? sides : [...sides].reverse();
  for (const side of order) {
    const result = await oneRun(side);
    results.get(side.name).push(result);
    console.error(
      `run ${run + 1}/${runs} ${side.name}: ${number(result.perSecond)} jobs/s, Redis ${number(result.utilisation * 100)} %`,
    );
  }
}

const median = (list, field) => {
  const sorted = list.map((result) => result[field]).sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const rows = sides.map((side) => {
  const list = results.get(side.name);
  const usPerJob = median(list, 'redisUsPerJob');
  return [
    side.name,
    number(median(list, 'perSecond')),
    `${number(median(list, 'utilisation') * 100)} %`,
    number(median(list, 'busy'), 1),
    number(usPerJob, 1),
    number(1e6 / usPerJob),
  ];
});
const [oursRow, theirsRow] = sides.map((side) => median(results.get(side.name), 'redisUsPerJob'));
console.log(
  table(
    [
      'engine',
      'jobs/s measured',
      'Redis CPU',
      'busy cores',
      'Redis CPU µs per job',
      'ceiling: jobs/s one Redis serves',
    ],
    rows,
  ) +
    `\n\nRedis ceiling ours / BullMQ: ${number(theirsRow / oursRow, 2)} ×. ` +
    `${number(jobs)} no-op jobs a run (BullMQ removeOnComplete, ours outcomeRetention 0), ` +
    `${processes} worker processes × concurrency ${concurrency}, median of ${runs} runs; measured ${bench.facts.line}.`,
);
await bench.stop();
