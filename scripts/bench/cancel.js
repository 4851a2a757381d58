#!/usr/bin/env node
// Cancel latency: a Worker in another process runs a handler that waits for
// its signal; this process calls engine.cancel(id). Measured per task: from
// just before the cancel call to the abort of the handler's signal in the
// worker process (both read performance.timeOrigin + performance.now(), the epoch in
// fractions of a ms, on one machine), so it spans the
// cancel script's round trip, the control channel's message and the worker's
// dispatch. `npm run bench:cancel`, or `node scripts/bench/cancel.js [count]`.
import { fork } from 'node:child_process';
import { Engine, Label } from '../../dist/index.js';
import { startBench } from './lib/setup.js';
import { percentiles } from './lib/wakeup.js';

const count = Number(process.argv[2] ?? 300);
const bench = await startBench();
const queue = `bench-cancel-${process.pid}`;
const child = fork(new URL('./lib/cancel-worker.js', import.meta.url), [bench.server.url, queue], {
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const waiting = new Map();
child.on('message', (message) => {
  const key = message.ready
    ? 'ready'
    : message.started !== undefined
      ? `s${message.started}`
      : `a${message.aborted}`;
  waiting.get(key)?.(message);
  waiting.delete(key);
});
const heard = (key) => new Promise((resolve) => waiting.set(key, resolve));

await heard('ready');
const producer = new Engine({ redis: bench.server.url, queue, worker: 'bench-canceller' });
const latencies = [];
for (let n = 0; n < count; n++) {
  const started = heard(`s${n}`);
  const task = await producer.create({ meta: { n: String(n) } });
  await started;
  const aborted = heard(`a${n}`);
  const before = performance.timeOrigin + performance.now();
  await producer.cancel(task.core[Label.Object]);
  const { at } = await aborted;
  latencies.push(Math.round((at - before) * 100) / 100);
}
const { p50, p95, p99, max } = percentiles(latencies);
console.log(`cancel latency, ${count} tasks, ${bench.facts.line}`);
console.log(
  `  cancel call to the handler's signal aborting in another process (ms): p50 ${p50}, p95 ${p95}, p99 ${p99}, max ${max}`,
);
child.send('stop');
await new Promise((resolve) => child.once('exit', resolve));
await producer.close();
await bench.dropQueue(producer.keyfmt());
await bench.stop();
