#!/usr/bin/env node
// The engine's own benchmark (npm run bench): claim-and-delete throughput as
// the queue grows to 1M tasks, create throughput, Redis memory per queued task,
// and the cost of ticker and expire when few of many templates / leases are
// due, wake-up latency, and the adversarial depth table (lib/adversarial.js).
// Prints a table per scenario and writes them to docs/benchmarks.md.
//
// Usage: node scripts/bench/engine.js [--quick] [--adversarial]
//   --quick        stops at 100k tasks
//   --adversarial  only the adversarial depth table (printed, not written)
//   --row=<text>   only the adversarial rows whose name contains the text, or
//                  one of the texts of a comma list (then nothing is written)
//   --depths=<n,n> the depths the adversarial table compares (default 1k and 1M,
//                  1k and 100k with --quick)
//   --rounds=<n>   alternating rounds per depth of each adversarial row (default 2,
//                  1 with --quick)
// BENCH_RENICE=<n> runs the embedded Redis at that nice value (say -15, as root;
// compare.js too): on a shared machine a script is then interrupted less often.
// BENCH_REALTIME=<n> runs its main thread at that real-time priority (SCHED_FIFO,
// say 10, as root): no process of the machine interrupts a script, and the
// host-stall meter (lib/host-stalls.js) runs one above it: a slow script
// is then its own work or a stall of the host, which the meter sees.
// BENCH_SHOW_OVER=<µs> prints each script of an adversarial row that took that
// long or longer (SLOWLOG), with its arguments: which step of which call it was.
import { Engine, Label } from '../../dist/index.js';
import { adversarialSection } from './lib/adversarial.js';
import { rows as adversarialRows } from './lib/adversarial-rows.js';
import { inParallel, rate, startBench, timed } from './lib/setup.js';
import { number, table, writeSection } from './lib/report.js';
import { rescueWakeup } from './lib/wakeup.js';

const quick = process.argv.includes('--quick');
const only = process.argv.includes('--adversarial');
const option = (name) =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const depths = quick ? [1_000, 10_000, 100_000] : [1_000, 10_000, 100_000, 1_000_000];
const bench = await startBench();
const { redis } = bench;
let queues = 0;

function engine(options = {}) {
  return new Engine({
    redis: bench.server.url,
    queue: `bench-${process.pid}-${queues++}`,
    worker: 'bench',
    ...options,
  });
}

function sameQueue(other, options = {}) {
  const queue = other.keyfmt().slice('rescue.io:{'.length, -1);
  return new Engine({ redis: bench.server.url, queue, ...options });
}

async function fill(target, count, lanes = 1_000) {
  await inParallel(lanes, count, (index) => target.create({ meta: { n: String(index) } }));
}

async function claimAndDelete(target, count, lanes) {
  return rate(count, () =>
    inParallel(lanes, count, async () => {
      const task = await target.search();
      if (task === undefined) throw new Error('the queue ran dry during the benchmark');
      await target.delete(task);
    }),
  );
}

const sections = [];

// stats() cost by queue depth (it must not grow with the queue): timed on the queues section 1 fills
// anyway (no fill of its own), reported as a section after it.
const statsRows = [];
async function statsCost(target, depth) {
  const calls = 200;
  const ms = [];
  for (let call = 0; call < calls; call++) ms.push(await timed(() => target.stats()));
  ms.sort((a, b) => a - b);
  return { depth, p50: ms[calls / 2], p99: ms[Math.floor(calls * 0.99)] };
}
function statsSection() {
  const base = statsRows[0];
  return (
    '### stats() by queue depth\n\n' +
    '`engine.stats()` (counts by state, oldest claimable task, owners) on the queues of the claim-and-delete ' +
    'table, right after they were filled: wall time per call, 200 calls one after another.\n\n' +
    table(
      ['queued tasks', 'p50 ms', 'p99 ms', 'p50 vs 1k'],
      statsRows.map((row) => [
        number(row.depth),
        number(row.p50, 3),
        number(row.p99, 3),
        `${number(row.p50 / base.p50, 2)} ×`,
      ]),
    )
  );
}

// 1. Claim-and-delete throughput by queue depth. Each round fills a fresh
// queue to the depth and claims half of it (at most 5,000); small depths get
// more rounds so every figure rests on about 10,000 claims; the median counts.
if (!only) {
  const warm = engine();
  await fill(warm, 5_000);
  await claimAndDelete(warm, 5_000, 10);
  await bench.dropQueue(warm.keyfmt());
  await warm.close();

  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const rows = [];
  let base;
  for (const depth of depths) {
    const count = Math.min(5_000, depth / 2);
    const rounds = Math.max(3, Math.ceil(10_000 / count));
    const sequential = [];
    const concurrent = [];
    for (let round = 0; round < rounds; round++) {
      const target = engine();
      await fill(target, depth);
      if (round === 0) statsRows.push(await statsCost(target, depth));
      sequential.push(await claimAndDelete(target, count / 2, 1));
      concurrent.push(await claimAndDelete(target, count / 2, 10));
      await bench.dropQueue(target.keyfmt());
      await target.close();
      if (depth >= 1_000_000) break; // one fill of a million is enough
    }
    const result = { sequential: median(sequential), concurrent: median(concurrent) };
    base ??= result;
    rows.push([
      number(depth),
      number(result.sequential),
      `${number(result.sequential / base.sequential, 2)} ×`,
      number(result.concurrent),
      `${number(result.concurrent / base.concurrent, 2)} ×`,
    ]);
    console.log(`claim-and-delete at depth ${number(depth)} done`);
  }
  sections.push(
    '### Claim-and-delete throughput by queue depth\n\n' +
      'One engine claims (`search`) and deletes tasks from a queue holding the given number of tasks; ' +
      'sequentially (one task at a time: two round trips each) and with 10 claims in flight. Each figure is ' +
      'the median of several rounds on freshly filled queues (one round at 1M); the ratio compares each depth ' +
      'with 1k.\n\n' +
      table(
        ['queued tasks', 'tasks/s, 1 at a time', 'vs 1k', 'tasks/s, 10 in flight', 'vs 1k'],
        rows,
      ),
  );
}

if (!only) sections.push(statsSection());

// 2. Create throughput.
if (!only) {
  const target = engine();
  const count = 5_000;
  const single = await rate(count, () =>
    inParallel(1, count, (index) => target.create({ meta: { n: String(index) } })),
  );
  const batched = await rate(50_000, () => fill(target, 50_000));
  await bench.dropQueue(target.keyfmt());
  await target.close();
  sections.push(
    '### Create throughput\n\n' +
      'One at a time awaits each `create`; batched keeps 1,000 creates in flight on one connection, ' +
      'so their commands travel together.\n\n' +
      table(
        ['mode', 'tasks/s'],
        [
          ['one at a time', number(single)],
          ['batched (1,000 in flight)', number(batched)],
        ],
      ),
  );
  console.log('create done');
}

// 3. Memory per queued task.
if (!only) {
  const target = engine();
  const count = 100_000;
  const before = await bench.usedMemory();
  await fill(target, count);
  const after = await bench.usedMemory();
  const keys = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(
      cursor,
      'MATCH',
      `${target.keyfmt().replace(/[{}]/g, '\\$&')}:*`,
      'COUNT',
      1000,
    );
    keys.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  const rows = [];
  for (const key of keys.sort()) {
    const bytes = Number(await redis.memory('USAGE', key, 'SAMPLES', '0'));
    if (bytes > 10_000)
      rows.push([key.slice(target.keyfmt().length + 1), number(bytes / count, 1)]);
  }
  rows.push(['**total (used_memory delta)**', `**${number((after - before) / count, 1)}**`]);
  await bench.dropQueue(target.keyfmt());
  await target.close();
  sections.push(
    `### Redis memory per queued task\n\n${number(count)} plain tasks with \`meta: { n: '<index>' }\`, ` +
      'nobody working on them. Bytes per task, by key (`MEMORY USAGE`) and in all (`used_memory` delta).\n\n' +
      table(['key', 'bytes per task'], rows),
  );
  console.log('memory done');
}

// 4. Ticker and expire cost: few due among many.
if (!only) {
  const rows = [];
  for (const templates of [100, 10_000]) {
    let now = new Date('2023-10-20T00:00:30Z');
    const clock = () => now;
    const target = engine({ clock });
    await inParallel(200, templates, (index) =>
      target.create({
        cron: { [Label.Every]: index < 10 ? 'minute' : 'day' },
        meta: { n: String(index) },
      }),
    );
    await target.ticker(); // settle
    now = new Date('2023-10-20T00:01:00.5Z'); // the 10 `minute` templates are due
    const due = await timed(() => target.ticker());
    const idle = await timed(() => target.ticker());
    rows.push(['ticker', number(templates), '10', number(due, 1), number(idle, 1)]);
    await bench.dropQueue(target.keyfmt());
    await target.close();
  }
  for (const leases of [100, 10_000]) {
    let now = new Date('2023-10-20T00:00:30Z');
    const clock = () => now;
    const holder = engine({ clock, expiry: 3_600_000 });
    const short = sameQueue(holder, { worker: 'short', clock, expiry: 1_000 });
    await fill(holder, leases - 10, 200);
    await inParallel(50, leases - 10, () => holder.search());
    await fill(short, 10, 10);
    for (let index = 0; index < 10; index++) await short.search();
    now = new Date('2023-10-20T00:00:32Z'); // the 10 short leases ended
    const due = await timed(() => holder.expire());
    const idle = await timed(() => holder.expire());
    rows.push(['expire', number(leases), '10', number(due, 1), number(idle, 1)]);
    await bench.dropQueue(holder.keyfmt());
    await holder.close();
    await short.close();
  }
  sections.push(
    '### Ticker and expire when few are due\n\n' +
      'Wall time of one `ticker()` with 10 due templates among many (the rest due tomorrow), and of one ' +
      '`expire()` with 10 ended leases among many live ones; then the same call again with nothing due.\n\n' +
      table(['operation', 'templates / leases', 'due', 'ms, 10 due', 'ms, none due'], rows),
  );
  console.log('ticker and expire done');
}

// 5. Wake-up latency of an idle worker.
if (!only) {
  const count = quick ? 300 : 1_000;
  const figures = await rescueWakeup(bench.server.url, { count });
  sections.push(
    '### Wake-up latency\n\n' +
      `An idle \`Worker\` (poll interval 60 s, so only a wake-up explains a fast start) and ${number(count)} tasks ` +
      'created one at a time, 5 ms apart: the time from the `create` call to the start of the handler. ' +
      'Targets of the worker runtime: p50 below 2 ms, p99 below 10 ms.\n\n' +
      table(
        ['p50 ms', 'p95 ms', 'p99 ms', 'max ms'],
        [
          [
            number(figures.p50, 2),
            number(figures.p95, 2),
            number(figures.p99, 2),
            number(figures.max, 2),
          ],
        ],
      ),
  );
  console.log('wake-up done');
}

// 6. Adversarial depth: 1k against 1M (100k with --quick).
{
  const depths =
    option('depths')?.split(',').map(Number) ?? (quick ? [1_000, 100_000] : [1_000, 1_000_000]);
  const rounds = Number(option('rounds') ?? (quick ? 1 : 2));
  const row = option('row');
  const names = row?.split(',');
  const rows =
    names === undefined
      ? undefined
      : adversarialRows.filter((e) => names.some((name) => e.name.includes(name)));
  sections.push(await adversarialSection(bench, { depths, rounds, rows }));
}
console.log('adversarial depth done');

const command = `node scripts/bench/engine.js${quick ? ' --quick' : ''}`;
const body = [
  '## Engine benchmark',
  '',
  `Measured ${bench.facts.date} with \`${command}\` (\`npm run bench\`) on ${bench.facts.machine}; ` +
    `Node ${bench.facts.node}, Redis ${bench.facts.redis} (embedded, no persistence` +
    `${bench.facts.nice === undefined ? '' : `, at nice ${bench.facts.nice}`}` +
    `${bench.facts.realtime === undefined ? '' : `, at real-time priority ${bench.facts.realtime}`}), ` +
    'client and server on one machine.',
  '',
  ...sections.flatMap((section) => [section, '']),
].join('\n');
if (!only && option('row') === undefined)
  writeSection(new URL('../../docs/benchmarks.md', import.meta.url).pathname, 'engine', body);
console.log(`\n${body}`);
await bench.stop();
