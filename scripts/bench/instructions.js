#!/usr/bin/env node
// Redis instructions per task, counted by valgrind's callgrind: the same count
// for the same code whatever else the machine does, where timings on a shared
// 2-core host move by ±15 %. A change to a script shows its cost here first.
//
//   node scripts/bench/instructions.js [tasks]   (npm run bench:instructions)
//
// Starts redis-server under callgrind on a free loopback port, creates the
// tasks one at a time (the create script), then lets a Worker of one slot with
// a no-op handler work them off (one delete-search call a task), and prints
// the instructions Redis executed per task in each phase, a warm-up left out;
// last, the same Worker parked on the empty queue and tasks created one at a
// time, each once the previous was ensured (the wake-up path: the create, the
// woken slot's search, and its delete-search that parks it again).
// Needs valgrind (Debian package valgrind). Not part of `npm test`.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine, Worker } from '../../dist/index.js';

const count = Number(process.argv[2] ?? 500);
const warm = 50;

const port = await freePort();
const output = join(tmpdir(), `rescue-callgrind-${port}`);
const server = spawn(
  'valgrind',
  [
    '--tool=callgrind',
    `--callgrind-out-file=${output}`,
    'redis-server',
    '--port',
    String(port),
    '--save',
    '',
    '--appendonly',
    'no',
    // a redis-server writes into its working directory (the checkout) unless told otherwise
    '--dir',
    tmpdir(),
  ],
  { stdio: 'ignore' },
);
server.on('error', (error) => {
  console.error(`valgrind could not start (${error.message}): apt-get install -y valgrind`);
  process.exit(1);
});

try {
  await listening(port);
  const url = `redis://127.0.0.1:${port}`;
  const engine = new Engine({
    redis: url,
    queue: 'instructions',
    worker: 'bench',
    outcomeRetention: 0,
  });
  const create = (n) => engine.create({ meta: { n: String(n) } });
  for (let n = 0; n < warm; n++) await create(n); // loads the libraries
  const creates = await counted(async () => {
    for (let n = 0; n < count; n++) await create(n);
  });
  await work(engine, warm);
  const completions = await counted(() => work(engine, count));
  const producer = new Engine({ redis: url, queue: 'instructions', worker: 'producer' });
  const wakeups = await wakeUps(engine, producer, count);
  await producer.close();
  await engine.close();
  console.log(`Redis instructions per task (callgrind), ${count} tasks, one at a time:`);
  console.log(`  create                   ${format(creates / count)}`);
  console.log(`  delete-search (1 slot)   ${format(completions / count)}`);
  console.log(`  wake-up (all three)      ${format(wakeups / count)}`);
} finally {
  server.kill('SIGKILL');
  for (const file of readdirSync(tmpdir())) {
    if (file.startsWith(`rescue-callgrind-${port}`)) rmSync(join(tmpdir(), file));
  }
}

/** counted runs an action and returns the instructions Redis executed meanwhile. */
async function counted(action) {
  execFileSync('callgrind_control', ['--zero', String(server.pid)], { stdio: 'ignore' });
  await action();
  execFileSync('callgrind_control', ['--dump', String(server.pid)], { stdio: 'ignore' });
  return lastDumpTotal();
}

/** lastDumpTotal reads the event total of the newest dump (`<output>.<n>`). */
function lastDumpTotal() {
  const dumps = readdirSync(tmpdir())
    .filter((file) => file.startsWith(`rescue-callgrind-${port}.`))
    .sort((a, b) => Number(a.split('.').pop()) - Number(b.split('.').pop()));
  const text = readFileSync(join(tmpdir(), dumps.at(-1)), 'utf8');
  const total = /^(?:totals|summary): (\d+)/m.exec(text);
  if (total === null) throw new Error('callgrind wrote no totals');
  return Number(total[1]);
}

/** work runs a one-slot Worker with a no-op handler until `tasks` tasks are ensured. */
async function work(engine, tasks) {
  let ensured = 0;
  let done;
  const finished = new Promise((resolve) => (done = resolve));
  const worker = oneSlotWorker(engine);
  worker.on('task:ensured', () => {
    if (++ensured === tasks) done();
  });
  await worker.start();
  await finished;
  await worker.stop();
}

/** oneSlotWorker: a Worker of one slot whose handler does nothing. */
function oneSlotWorker(engine) {
  return new Worker(engine, [{ filter: () => true, ensure: () => Promise.resolve() }], {
    concurrency: 1,
    background: false,
    pollInterval: 60_000,
  });
}

/**
 * wakeUps parks a one-slot Worker on the empty queue and creates `tasks`
 * tasks one at a time, each once the previous was ensured; returns the
 * instructions Redis executed for them (a warm-up left out).
 */
async function wakeUps(engine, producer, tasks) {
  let ensured;
  const worker = oneSlotWorker(engine);
  // emitted once the slot's delete-search answered: the slot parked again
  worker.on('task:ensured', () => ensured?.());
  await worker.start();
  const oneAtATime = async (n) => {
    const done = new Promise((resolve) => (ensured = resolve));
    await producer.create({ meta: { n: String(n) } });
    await done;
  };
  for (let n = 0; n < warm; n++) await oneAtATime(n);
  const total = await counted(async () => {
    for (let n = 0; n < tasks; n++) await oneAtATime(n);
  });
  await worker.stop();
  return total;
}

function format(value) {
  return Math.round(value).toLocaleString('en-US');
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address();
      probe.close(() => resolve(free));
    });
  });
}

/** listening waits until the server under valgrind (slow to start) accepts connections. */
async function listening(target) {
  for (let tries = 0; tries < 200; tries++) {
    const open = await new Promise((resolve) => {
      const socket = createConnection(target, '127.0.0.1');
      socket.on('connect', () => resolve(socket.destroy() ?? true));
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error('redis-server under callgrind did not start within 50 s');
}
