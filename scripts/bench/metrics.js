#!/usr/bin/env node
// What metrics (and tracing) cost (npm run bench:metrics): the lifecycle
// throughput of `npm run bench:compare` (N tasks created up front, then
// processed by a no-op handler until all are deleted), with and without
// registerMetrics on the engine, in alternating runs on one embedded Redis.
// The metrics side is scraped during the work, as Prometheus would. Written
// to the `metrics` section of docs/benchmarks.md.
//
// Usage: node scripts/bench/metrics.js [--runs N] [--count N] [--scrape-ms MS] [--tracing] [--quick]
//   --runs N        runs per side and setting (default 5)
//   --count N       tasks per run (default 20,000)
//   --scrape-ms MS  scrape the registry every MS ms while the worker runs (default 1,000)
//   --tracing       a third side: metrics and tracing (registerTracing with the
//                   global tracer provider, a no-op without an SDK: the cost of the hooks)
//   --quick         2 runs of 5,000 tasks (a smoke test, not a measurement)
import { parseArgs } from 'node:util';
import { Registry } from 'prom-client';
import { Engine, Worker } from '../../dist/index.js';
import { registerMetrics } from '../../dist/metrics/index.js';
import { registerTracing } from '../../dist/tracing/index.js';
import {
  beginCreate,
  completedTask,
  countTasks,
  notify,
  observe,
  runEnsure,
} from '../../dist/engine/observe.js';
import { ActivityMetrics } from '../../dist/metrics/activity.js';
import { MetricsObserver } from '../../dist/metrics/observer.js';
import { resolveMetricsOptions } from '../../dist/metrics/options.js';
import { inParallel, startBench } from './lib/setup.js';
import { number, table, writeSection } from './lib/report.js';
import { summary } from './lib/compare-runs.js';
import { completions } from './lib/compare-count.js';
import { progress } from './lib/compare-progress.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    count: { type: 'string', default: '20000' },
    'scrape-ms': { type: 'string', default: '1000' },
    tracing: { type: 'boolean', default: false },
    quick: { type: 'boolean', default: false },
  },
});
const runs = values.quick ? 2 : Number(values.runs);
const count = values.quick ? 5_000 : Number(values.count);
const scrapeMs = Number(values['scrape-ms']);
for (const [name, value] of [
  ['--runs', runs],
  ['--count', count],
  ['--scrape-ms', scrapeMs],
]) {
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} wants a positive integer`);
}
const command = ['node scripts/bench/metrics.js', ...process.argv.slice(2)].join(' ');

const sides = [
  { name: 'without', metrics: false, tracing: false },
  { name: 'metrics', metrics: true, tracing: false },
  ...(values.tracing ? [{ name: 'metrics + tracing', metrics: true, tracing: true }] : []),
];
const settings = [1, 10, 50];
const noop = () => Promise.resolve();

const bench = await startBench();
let made = 0;

/** lifecycle fills a fresh queue and processes it; returns creates/s and tasks/s. */
async function lifecycle(side, concurrency) {
  const queue = `metrics-bench-${process.pid}-${made++}`;
  const engine = new Engine({ redis: bench.server.url, queue, worker: `bench-${process.pid}` });
  const registry = side.metrics ? new Registry() : undefined;
  if (registry !== undefined) registerMetrics(engine, registry);
  if (side.tracing) registerTracing(engine);
  try {
    const fillStart = performance.now();
    await inParallel(1_000, count, (index) => engine.create({ meta: { n: String(index) } }));
    const fillMs = performance.now() - fillStart;
    const { onCompleted, finished } = completions(count);
    const worker = new Worker(engine, [{ filter: () => true, ensure: noop }], {
      concurrency,
      background: false,
      pollInterval: 60_000,
    });
    worker.on('error', (error) => console.error(error));
    worker.on('task:ensured', onCompleted);
    let scrapes = 0;
    const scraper =
      registry === undefined
        ? undefined
        : setInterval(() => {
            scrapes++;
            registry.metrics().catch((error) => console.error(error));
          }, scrapeMs);
    const cpuBefore = process.cpuUsage();
    const start = performance.now();
    await worker.start();
    const end = await finished;
    const cpu = process.cpuUsage(cpuBefore);
    clearInterval(scraper);
    await worker.stop();
    return {
      create: count / (fillMs / 1000),
      process: count / ((end - start) / 1000),
      cpu: (cpu.user + cpu.system) / count,
      scrapes,
    };
  } finally {
    await bench.dropQueue(engine.keyfmt());
    await engine.close();
  }
}

const rows = [];
const cell = (figures, digits = 0) =>
  `${number(figures.median, digits)} (${number(figures.min, digits)}–${number(figures.max, digits)})`;
const change = (figures, base) =>
  base === figures ? '' : `${number((figures.median / base.median - 1) * 100, 1)} %`;
for (const concurrency of settings) {
  const results = sides.map(() => ({ create: [], process: [], cpu: [] }));
  for (let run = 0; run < runs; run++) {
    // A B, B A, ...: drift on a shared machine hits both sides alike
    const order = run % 2 === 0 ? [...sides.keys()] : [...sides.keys()].reverse();
    for (const index of order) {
      const result = await lifecycle(sides[index], concurrency);
      for (const key of ['create', 'process', 'cpu']) results[index][key].push(result[key]);
      progress(
        `concurrency ${concurrency}, run ${run + 1}/${runs}, ${sides[index].name}: ` +
          `${number(result.process)} tasks/s, ${number(result.cpu, 1)} µs CPU/task, ` +
          `${number(result.create)} creates/s` +
          (sides[index].metrics ? `, ${result.scrapes} scrapes` : ''),
      );
    }
  }
  const figures = results.map((result) => ({
    process: summary(result.process),
    cpu: summary(result.cpu),
    create: summary(result.create),
  }));
  const [base] = figures;
  for (const [index, side] of sides.entries()) {
    const own = figures[index];
    rows.push([
      String(concurrency),
      side.name,
      cell(own.process),
      change(own.process, base.process),
      cell(own.cpu, 1),
      change(own.cpu, base.cpu),
      cell(own.create),
      change(own.create, base.create),
    ]);
  }
}

const header = [
  'concurrency',
  'side',
  'tasks/s',
  'change',
  'client CPU µs/task',
  'change',
  'creates/s',
  'change',
];
// The hooks alone, in process and without Redis: what the metrics add to one
// task's lifecycle on the client (a create, a claim, an ensure, a completion
// in a delete-search call of its own), against the same calls with nobody
// observing. Steadier than the lifecycle on a loaded machine.
const hookTask = {
  core: { 'task.rescue.io/object': '1697760001000-000000000042', 'task.rescue.io/worker': 'w' },
  meta: { n: '1' },
  node: { 'addr.rescue.io/method': 'any' },
};
const settled = () => Promise.resolve();
async function hookLifecycle(context) {
  const end = beginCreate(context, { meta: { n: '1' } });
  await observe(context, 'create', settled);
  end?.(hookTask, undefined);
  countTasks(context, { created: { api: 1 } });
  if (context.observers.size > 0) {
    const nowMs = new Date().getTime();
    notify(context, (observer) => observer.claimed?.(hookTask, nowMs));
  }
  const started = performance.now();
  await runEnsure(context, hookTask, settled);
  const durationMs = performance.now() - started;
  if (context.observers.size > 0) {
    notify(context, (observer) => observer.handled?.(hookTask, durationMs, false));
  }
  await observe(context, 'deleteSearch', settled);
  countTasks(context, { created: { requeue: 0, gate: 0 }, halted: 0 });
  completedTask(context, hookTask);
}
const hookRuns = values.quick ? 3 : 9;
const hookCount = 200_000;
const observed = new MetricsObserver(
  new ActivityMetrics(new Registry(), resolveMetricsOptions(undefined)),
  'default',
);
const hookSides = [
  { name: 'without', context: { observers: new Set() } },
  { name: 'metrics', context: { observers: new Set([observed]) } },
];
const hookCpu = hookSides.map(() => []);
for (let run = 0; run < hookRuns; run++) {
  for (const [index, side] of hookSides.entries()) {
    const before = process.cpuUsage();
    for (let task = 0; task < hookCount; task++) await hookLifecycle(side.context);
    const cpu = process.cpuUsage(before);
    hookCpu[index].push((cpu.user + cpu.system) / hookCount);
  }
}
const [hookBase, hookMetrics] = hookCpu.map(summary);
const hookAdded = hookMetrics.median - hookBase.median;

// One scrape of a registry with one queue of `count` claimable tasks: stats()
// and the text exposition, CPU of this process (Redis's part not counted).
const scrapeEngine = new Engine({
  redis: bench.server.url,
  queue: `metrics-scrape-${process.pid}`,
});
const scrapeRegistry = new Registry();
registerMetrics(scrapeEngine, scrapeRegistry);
await inParallel(1_000, count, (index) => scrapeEngine.create({ meta: { n: String(index) } }));
const scrapeCpu = [];
const scrapeWall = [];
for (let scrape = 0; scrape < 50; scrape++) {
  const before = process.cpuUsage();
  const start = performance.now();
  await scrapeRegistry.metrics();
  scrapeWall.push(performance.now() - start);
  const cpu = process.cpuUsage(before);
  scrapeCpu.push((cpu.user + cpu.system) / 1000);
}
await bench.dropQueue(scrapeEngine.keyfmt());
await scrapeEngine.close();
const scrapeCost = summary(scrapeCpu);
const scrapeTime = summary(scrapeWall);

// the client CPU per task of the lifecycle at concurrency 50, without metrics
const lifecycleCpu = rows.find((row) => row[0] === '50' && row[1] === 'without')?.[4] ?? '';

const body = [
  '## Metrics overhead',
  '',
  `Measured ${bench.facts.date} with \`${command}\` (\`npm run bench:metrics\`) on ${bench.facts.machine}; ` +
    `Node ${bench.facts.node}, Redis ${bench.facts.redis} (embedded, no persistence); client and server on one machine.`,
  '',
  `The lifecycle of \`npm run bench:compare\`: ${number(count)} tasks created up front (1,000 creates in flight), ` +
    'then processed by one worker with a no-op handler until all are deleted; tasks/s from the worker start to ' +
    'the last completion, the CPU time of the benchmark process (worker and scrapes) per task while it processed, ' +
    `and creates/s of the fill. "metrics": \`registerMetrics(engine, registry)\`, the registry ` +
    `scraped every ${number(scrapeMs)} ms while the worker runs` +
    (values.tracing
      ? '; "metrics + tracing" adds `registerTracing(engine)` with no OpenTelemetry SDK installed (the hooks alone)'
      : '') +
    `. Median of ${runs} alternating runs per side (min–max); change of the median against "without".`,
  '',
  table(header, rows),
  '',
  `The hooks alone, in process without Redis (a create, a claim, an ensure and a completion in a ` +
    `delete-search call of its own per task, ${number(hookCount)} tasks, median of ${hookRuns} alternating runs): ` +
    `${number(hookBase.median, 2)} µs of CPU per task without metrics, ${number(hookMetrics.median, 2)} µs with ` +
    `(${number(hookMetrics.min, 2)}–${number(hookMetrics.max, 2)}): the metrics add ${number(hookAdded, 2)} µs a task, ` +
    `against the ${lifecycleCpu} µs a no-op task costs the client at concurrency 50 above. ` +
    `A scrape of one queue of ${number(count)} tasks (stats() and the text) takes ` +
    `${number(scrapeTime.median, 2)} ms (${number(scrapeCost.median, 2)} ms of this process's CPU), median of 50.`,
].join('\n');
console.log(`\n${body}\n`);
writeSection(new URL('../../docs/benchmarks.md', import.meta.url).pathname, 'metrics', body);
progress('done: docs/benchmarks.md, section metrics');
await bench.stop();
