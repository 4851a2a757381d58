// A worker process for the "2 worker processes" lifecycle run, forked by
// compare-processes.js. It prepares a worker, says `ready`, starts on `start`,
// reports its completions, and on `stop` stops, closes and exits.
//
// Usage (forked with IPC): compare-child.js <ours|theirs> <redis url> <queue> <concurrency>
import { ours } from './compare-ours.js';
import { theirs } from './compare-theirs.js';

const [kind, url, queueName, concurrency] = process.argv.slice(2);
const side = (kind === 'ours' ? ours : theirs)({ url });
const reportEveryMs = 50;

// Wall-clock ms (sub-ms resolution) so the parent can compare figures across processes.
const now = () => performance.timeOrigin + performance.now();

let done = 0;
let lastAt = 0;
const handle = await side.open(queueName);
const worker = await handle.worker({
  concurrency: Number(concurrency),
  onCompleted() {
    done++;
    lastAt = now();
  },
});

// Reports are batched on a timer: a message per completion would cost more
// than the work. The parent only needs the time of the last completion, and
// the process's CPU time so far (µs, user + system) for costs per task.
const cpu = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};
const report = () => process.send?.({ type: 'progress', done, lastAt, cpu: cpu() });
let timer;

let stopping = false;
process.on('message', (message) => {
  if (message === 'start') void start();
  if (message === 'stop') void stop();
});
// The parent went away without asking us to stop: do not linger.
process.on('disconnect', () => stopping || process.exit(1));
process.send?.({ type: 'ready' });

async function start() {
  const startedAt = now();
  const startedCpu = cpu();
  await worker.start();
  process.send?.({ type: 'started', startedAt, startedCpu });
  timer = setInterval(report, reportEveryMs);
}

async function stop() {
  stopping = true;
  clearInterval(timer);
  await worker.stop();
  await handle.close();
  report();
  process.disconnect();
}
