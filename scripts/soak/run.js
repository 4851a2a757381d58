#!/usr/bin/env node
// The soak (npm run soak -- --minutes 30; not part of npm test): steady load
// on a redis-server of its own for a set time, with worker processes coming
// and going, and every minute Redis's memory (INFO memory used_memory), its
// key count (DBSIZE), the answers of idempotent writes it keeps (HLEN
// requests: kept an hour, so they grow through a shorter run; shown to tell
// that apart, not judged) and the heap of each process (after a full
// collection) sampled. Prints a table and a verdict: "flat" when none of
// memory, keys and heaps grew by 2 % or more over the last ten minutes (the
// median of their samples against the ten minutes before: verdict.js).
//
// The load: creates at --rate a second; of them one in 10 by `run` (create
// and wait), one in 20 cancelled right after its create, one in 20 `after`
// the task created before it, one in 20 whose handler spawns a child; every
// 10 s an engine of its own creates one task and closes (a short-lived
// producer). Every --churn seconds one worker process leaves, stopped
// gracefully and killed with SIGKILL in turn, and a new one (new worker id)
// takes its place.
//
// Usage: node --expose-gc scripts/soak/run.js [--minutes N] [--rate N]
//          [--workers N] [--concurrency N] [--churn S] [--sample S]
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { Engine, Label } from '../../dist/index.js';
import { startRedisServer } from '../../dist/testing/index.js';
import { queueKeys } from '../../dist/engine/keys.js';
import { machineFacts } from '../bench/lib/setup.js';
import { table } from '../bench/lib/report.js';
import { growth, verdict } from './verdict.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '30' },
    rate: { type: 'string', default: '100' },
    workers: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '8' },
    churn: { type: 'string', default: '20' },
    sample: { type: 'string', default: '60' },
  },
});
const settings = {
  minutes: Number(values.minutes),
  rate: Number(values.rate),
  workers: Number(values.workers),
  concurrency: Number(values.concurrency),
  churnMs: Number(values.churn) * 1000,
  sampleMs: Number(values.sample) * 1000,
  workMs: 3,
  queue: 'soak',
};
for (const [name, value] of Object.entries(settings)) {
  if (name !== 'queue' && !(Number.isFinite(value) && value > 0))
    throw new Error(`--${name}: a positive number, got ${value}`);
}

const dir = mkdtempSync(join(tmpdir(), 'rescue-soak-'));
const server = await startRedisServer({ env: {}, dir: join(dir, 'redis') });
const admin = new Redis(server.url);
const redisVersion = /redis_version:(\S+)/.exec(await admin.info('server'))?.[1] ?? 'unknown';
const workerScript = fileURLToPath(new URL('./worker.js', import.meta.url));

// --- the fleet: worker processes coming and going
const live = new Map(); // id -> child
let generation = 0;
async function spawnWorker() {
  const id = `soak-w${generation++}`;
  const child = fork(workerScript, [JSON.stringify({ ...settings, id, url: server.url })], {
    execArgv: ['--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  child.exited = new Promise((resolve) => child.once('exit', resolve));
  await new Promise((resolve, reject) => {
    child.once('message', resolve);
    void child.exited.then(() => reject(new Error(`worker ${id} exited before it was ready`)));
  });
  live.set(id, child);
  return child;
}
for (let index = 0; index < settings.workers; index++) await spawnWorker();

let kills = 0;
let stops = 0;
/** replaceOne takes a worker out (graceful stop or SIGKILL, in turn) and starts a new one. */
async function replaceOne() {
  const [id, child] = [...live.entries()][Math.floor(Math.random() * live.size)];
  live.delete(id);
  if ((kills + stops) % 2 === 0) {
    child.kill('SIGKILL');
    kills++;
  } else {
    child.send('stop');
    stops++;
  }
  await child.exited;
  await spawnWorker();
}

// --- the producers
const producer = new Engine({ redis: server.url, queue: settings.queue, worker: 'soak-producer' });
const counts = {
  created: 0,
  runs: 0,
  runsSettled: 0,
  cancels: 0,
  after: 0,
  shortLived: 0,
  errors: 0,
};
const errors = new Map();
/** noteError counts an error under the call that raised it and its code. */
const noteError = (call) => (error) => {
  counts.errors++;
  const key = `${call} ${String(error?.code ?? error?.message ?? error).slice(0, 80)}`;
  errors.set(key, (errors.get(key) ?? 0) + 1);
};
let running = true;
let n = 0;
let lastId;
const inFlight = new Set();
function track(promise) {
  inFlight.add(promise);
  void promise.finally(() => inFlight.delete(promise));
}
async function createOne() {
  const i = n++;
  const meta = { soak: 'yes', n: String(i), ...(i % 20 === 3 ? { spawn: '1' } : {}) };
  if (i % 10 === 0) {
    counts.runs++;
    await producer
      .run({ meta }, { timeout: 60_000 })
      .then(() => counts.runsSettled++, noteError('run'));
    return;
  }
  const options = i % 20 === 7 && lastId !== undefined ? { after: lastId } : undefined;
  let task;
  try {
    task = await producer.create({ meta }, options);
  } catch (error) {
    // after: the lead may be a task cancelled meanwhile (TASK_NOT_FOUND: a
    // task is never held after one that did not complete)
    noteError(options === undefined ? 'create' : 'create after')(error);
    return;
  }
  counts.created++;
  if (options !== undefined) counts.after++;
  const id = task.core[Label.Object];
  lastId = id;
  if (i % 20 === 11) {
    counts.cancels++;
    await producer.cancel(id).catch(noteError('cancel'));
  }
}
async function produce() {
  const started = performance.now();
  let sent = 0;
  while (running) {
    const due = Math.floor(((performance.now() - started) / 1000) * settings.rate);
    while (sent < due && inFlight.size < 200) {
      sent++;
      track(createOne().catch(noteError('produce')));
    }
    await sleep(10);
  }
}
async function shortLived() {
  while (running) {
    await sleep(10_000);
    if (!running) break;
    const engine = new Engine({ redis: server.url, queue: settings.queue });
    await engine
      .create({ meta: { soak: 'yes', kind: 'short-lived' } })
      .then(() => counts.shortLived++, noteError('short-lived create'));
    await engine.close();
  }
}
async function churn() {
  while (running) {
    await sleep(settings.churnMs);
    if (running) await replaceOne().catch(noteError('worker churn'));
  }
}

// --- the samples
/** heapOf asks a worker process for its heap after a full collection. */
function heapOf(child) {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), 5_000);
    const onMessage = (message) => {
      if (typeof message !== 'object' || message === null || !('heap' in message)) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(message.heap);
    };
    child.on('message', onMessage);
    child.send('heap');
  });
}
const median = (list) => {
  const sorted = list.filter((value) => value !== undefined).sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.floor((sorted.length - 1) / 2)];
};
const startedAt = performance.now();
const samples = [];
async function sample() {
  const memory = Number(/used_memory:(\d+)/.exec(await admin.info('memory'))?.[1]);
  const keys = await admin.dbsize();
  // answers of idempotent writes, kept an hour: they grow through a shorter run
  const requests = await admin.hlen(queueKeys(settings.queue).requests);
  globalThis.gc?.();
  const producerHeap = process.memoryUsage().heapUsed;
  const workerHeaps = await Promise.all([...live.values()].map(heapOf));
  const stats = await producer.stats();
  const row = {
    minute: Math.round((performance.now() - startedAt) / 6_000) / 10,
    memory,
    keys,
    requests,
    producerHeap,
    workerHeap: median(workerHeaps),
    workerHeaps,
    tasks: stats.tasks,
    created: counts.created + counts.runs,
  };
  samples.push(row);
  console.log(
    `minute ${row.minute}: used_memory ${mb(memory)}, keys ${keys}, requests ${requests}, producer heap ${mb(producerHeap)}, ` +
      `worker heaps ${workerHeaps.map(mb).join(' / ')}, tasks in the queue ${stats.tasks}, created ${row.created}`,
  );
}
const mb = (bytes) => (bytes === undefined ? '?' : `${(bytes / 2 ** 20).toFixed(2)} MB`);

console.log(
  `soak: ${settings.minutes} min, ${settings.rate} creates/s, ${settings.workers} workers × ${settings.concurrency}, ` +
    `one replaced every ${settings.churnMs / 1000} s, samples every ${settings.sampleMs / 1000} s`,
);
const load = [produce(), shortLived(), churn()];
const endAt = startedAt + settings.minutes * 60_000;
while (performance.now() < endAt - 1) {
  await sleep(Math.min(settings.sampleMs, Math.max(0, endAt - performance.now())));
  await sample();
}
running = false;
await Promise.all(load);
await Promise.race([Promise.allSettled([...inFlight]), sleep(60_000)]);

const rows = samples.map((row) => [
  row.minute,
  mb(row.memory),
  row.keys,
  row.requests,
  mb(row.producerHeap),
  mb(row.workerHeap),
  row.tasks,
  row.created.toLocaleString('en-US'),
]);
const header = [
  'minute',
  'used_memory',
  'DBSIZE',
  'requests',
  'producer heap',
  'worker heap (median)',
  'tasks in the queue',
  'created so far',
];
const series = {
  used_memory: samples.map((row) => row.memory),
  DBSIZE: samples.map((row) => row.keys),
  'producer heap': samples.map((row) => row.producerHeap),
  'worker heap (median)': samples.map((row) => row.workerHeap),
};
const sampleMinutes = samples.map((row) => row.minute);
const judged = verdict(series, sampleMinutes);
const facts = machineFacts(redisVersion);
console.log(`\n${table(header, rows)}\n`);
for (const [name, values] of Object.entries(series)) {
  const change = growth(values, sampleMinutes);
  console.log(
    `${name}: ${change === undefined ? 'too few samples' : `${(change * 100).toFixed(2)} %`} over the last ten minutes`,
  );
}
console.log(
  `\nverdict: ${judged.flat ? 'flat' : `growing (${judged.growing.join(', ')})`}\n` +
    `load: ${counts.created.toLocaleString('en-US')} creates (${counts.after} after, ${counts.cancels} cancelled), ` +
    `${counts.runs.toLocaleString('en-US')} runs (${counts.runsSettled.toLocaleString('en-US')} settled), ` +
    `${counts.shortLived} short-lived engines, ${kills} workers killed and ${stops} stopped; ` +
    `${counts.errors} errors${errors.size === 0 ? '' : ` (${[...errors].map(([key, count]) => `${key}: ${count}`).join('; ')})`}\n` +
    `measured ${facts.line}`,
);

for (const child of live.values()) child.kill('SIGKILL');
await producer.close();
await admin.quit();
await server.stop();
rmSync(dir, { recursive: true, force: true });
process.exit(judged.flat ? 0 : 1);
