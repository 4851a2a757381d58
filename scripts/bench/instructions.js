#!/usr/bin/env node
// The Redis cost model: instructions Redis executes per job, counted by
// valgrind's callgrind (the same count for the same code whatever else the
// machine does, where timings on a shared 2-core host move by 20 % and more),
// for rescue-engine and BullMQ on the same server, phase by phase:
//
//   node scripts/bench/instructions.js [jobs]   (npm run bench:instructions)
//
// create one at a time; create in batches of 16 and of 100; process with a
// no-op handler at concurrency 1, 10 and 50 (the queue filled beforehand and
// never drained while counted, so the figure is the steady state of a busy
// queue); then, ours only, the wake-up path (a parked one-slot Worker, tasks
// created one at a time). Lifecycle = create one at a time + process.
// BENCH_ONLY=ours|theirs measures one engine; BENCH_REDIS_SERVER names another
// redis-server binary (one built with symbols, to read with callgrind_annotate
// where the instructions go) and BENCH_KEEP_DUMPS=1 keeps callgrind's dumps in
// the temporary folder; BENCH_PHASES=create,process,wakeup (a comma list)
// runs only those phases (lifecycle needs create and process). Needs
// valgrind. Not in `npm test`.
import { startCallgrindRedis } from './lib/callgrind.js';
import {
  callgrindConnectTimeout,
  callgrindStepTime,
  ours,
  theirs,
} from './lib/instructions-engines.js';
import { Engine, Worker } from '../../dist/index.js';

const jobs = Number(process.argv[2] ?? 500);
const warm = 50;
const only = process.env.BENCH_ONLY;
const phases = new Set((process.env.BENCH_PHASES ?? 'create,process,wakeup').split(','));
const concurrencies = [1, 10, 50];
const batches = [16, 100];
/** The Worker option `batch` (ours only): claims and completions 16 a call, at these concurrencies. */
const claimBatch = 16;
const batchedConcurrencies = [16, 50];

const redis = await startCallgrindRedis();
try {
  const results = [];
  if (only !== 'theirs') results.push(await measure((name) => ours(redis.url, name), 'ours'));
  if (only !== 'ours') results.push(await measure((name) => theirs(redis.url, name), 'theirs'));
  const wakeup = only === 'theirs' || !phases.has('wakeup') ? undefined : await wakeUps(redis.url);
  print(results, wakeup);
} finally {
  redis.stop();
}

/** measure runs every phase for one engine, each on a queue of its own. */
async function measure(open, tag) {
  const figures = { name: '', batchKind: '' };
  const engine = await open(`${tag}-create`);
  figures.name = engine.name;
  figures.batchKind = engine.batchKind;
  if (phases.has('create')) {
    await engine.createEach(warm); // loads the scripts
    figures.createEach = (await redis.counted(() => engine.createEach(jobs))) / jobs;
    for (const size of batches) {
      await engine.createBatch(size, size); // loads the batch script
      const batch = jobs * 4;
      figures[`batch${size}`] =
        (await redis.counted(() => engine.createBatch(batch, size))) / batch;
    }
  }
  await engine.close();
  if (!phases.has('process')) return figures;
  for (const concurrency of concurrencies) {
    figures[`process${concurrency}`] = await processing(
      open,
      `${tag}-c${concurrency}`,
      concurrency,
    );
  }
  if (tag !== 'ours') return figures;
  for (const concurrency of batchedConcurrencies) {
    figures[`batched${concurrency}`] = await processing(
      open,
      `${tag}-b${claimBatch}-c${concurrency}`,
      concurrency,
      claimBatch,
    );
  }
  return figures;
}

/**
 * processing fills a queue, starts a Worker and counts the instructions of
 * `jobs` completions after a warm-up, with enough tasks left behind that the
 * queue never drains while counted. The window opens and closes with every
 * slot's handler held, so no call is under way at either end: a Worker that
 * folds completions has up to two calls of 16 a lane in flight, and a window
 * counted from one completion event to another took in or left out up to a
 * hundred completions at concurrency 50 (the phase moved by a quarter from
 * run to run). Divided by the completions answered inside the window.
 */
async function processing(open, name, concurrency, batch = 1) {
  const engine = await open(name);
  const tail = 2 * concurrency + warm;
  await engine.createBatch(warm + jobs + tail, 100);
  let done = 0;
  let holding = false;
  let held = 0;
  let releases = [];
  let allHeld;
  const hold = () => {
    if (!holding) return Promise.resolve();
    held += 1;
    if (held === concurrency) allHeld?.();
    return new Promise((resolve) => releases.push(resolve));
  };
  /** holdAll waits until every slot's handler is held, and with it every call answered. */
  const holdAll = () => {
    holding = true;
    return new Promise((resolve) => {
      allHeld = resolve;
      if (held === concurrency) resolve();
    });
  };
  const release = () => {
    holding = false;
    held = 0;
    const waiting = releases;
    releases = [];
    for (const resolve of waiting) resolve();
  };
  let reached;
  let target = warm;
  const stop = await engine.worker({
    concurrency,
    batch,
    hold,
    onDone: () => {
      done += 1;
      if (done === target) reached?.();
    },
  });
  const upTo = (count) => {
    target = count;
    return done >= count ? undefined : new Promise((resolve) => (reached = resolve));
  };
  await upTo(warm);
  await holdAll();
  const from = done;
  let to = from;
  const total = await redis.counted(async () => {
    release();
    await upTo(from + jobs);
    await holdAll();
    to = done;
  });
  release();
  await stop();
  await engine.close();
  return total / (to - from);
}

/**
 * wakeUps parks a one-slot Worker on the empty queue and creates tasks one at
 * a time, each once the previous was ensured: a create, the woken slot's
 * search, and its delete-search that parks it again.
 */
async function wakeUps(url) {
  const engine = new Engine({
    redis: url,
    queue: 'ours-wakeup',
    outcomeRetention: 0,
    stepTime: callgrindStepTime,
    connectTimeout: callgrindConnectTimeout,
  });
  const producer = new Engine({
    redis: url,
    queue: 'ours-wakeup',
    connectTimeout: callgrindConnectTimeout,
  });
  let ensured;
  const worker = new Worker(engine, [{ filter: () => true, ensure: () => Promise.resolve() }], {
    concurrency: 1,
    background: false,
    pollInterval: 60_000,
  });
  // emitted once the slot's delete-search answered: the slot parked again
  worker.on('task:ensured', () => ensured?.());
  await worker.start();
  const oneAtATime = async (n) => {
    const done = new Promise((resolve) => (ensured = resolve));
    await producer.create({ meta: { n: String(n) } });
    await done;
  };
  for (let n = 0; n < warm; n++) await oneAtATime(n);
  const total = await redis.counted(async () => {
    for (let n = 0; n < jobs; n++) await oneAtATime(n);
  });
  await worker.stop();
  await producer.close();
  await engine.close();
  return total / jobs;
}

function print(results, wakeup) {
  const rows = [
    ['create, one at a time', 'createEach'],
    ...batches.map((size) => [`create, batches of ${size}`, `batch${size}`]),
    ...concurrencies.map((c) => [`process, concurrency ${c}`, `process${c}`]),
    ...concurrencies.map((c) => [`lifecycle, concurrency ${c}`, `lifecycle${c}`]),
    ...batchedConcurrencies.map((c) => [
      `process, batch ${claimBatch}, concurrency ${c}`,
      `batched${c}`,
    ]),
    ...batchedConcurrencies.map((c) => [
      `lifecycle batched (create ${claimBatch} a call, batch ${claimBatch}), concurrency ${c}`,
      `lifecycleBatched${c}`,
    ]),
  ];
  for (const figures of results) {
    for (const c of concurrencies)
      figures[`lifecycle${c}`] = figures.createEach + figures[`process${c}`];
    for (const c of batchedConcurrencies)
      figures[`lifecycleBatched${c}`] = figures[`batch${claimBatch}`] + figures[`batched${c}`];
  }
  const [first, second] = results;
  console.log(`Redis instructions per job (callgrind), ${jobs} jobs a phase:`);
  const header = ['', ...results.map((r) => r.name), ...(second ? ['ours / BullMQ'] : [])];
  const table = [header, header.map(() => '---')];
  for (const [label, key] of rows) {
    // a row no engine measured (BENCH_PHASES left it out); BullMQ has no batched claims
    if (results.every((r) => r[key] === undefined || Number.isNaN(r[key]))) continue;
    table.push([
      label,
      ...results.map((r) => format(r[key])),
      ...(second
        ? [ratio(first[key], second[key.startsWith('lifecycleBatched') ? 'lifecycle1' : key])]
        : []),
    ]);
  }
  for (const row of table) console.log(`| ${row.join(' | ')} |`);
  for (const r of results) console.log(`${r.name} batches: ${r.batchKind}`);
  if (wakeup !== undefined) {
    console.log(
      `rescue-engine wake-up path (create + woken search + delete-search): ${format(wakeup)}`,
    );
  }
}

/** ratio: ours / BullMQ; a batched lifecycle is set against BullMQ's unbatched one at concurrency 1. */
function ratio(value, theirs) {
  if (value === undefined || theirs === undefined) return '–';
  return (value / theirs).toFixed(2);
}

function format(value) {
  if (value === undefined || Number.isNaN(value)) return '–';
  return Math.round(value).toLocaleString('en-US');
}
