// A worker process for conformance/worker/worker-presence.spec.ts: a Worker with one
// handler (labels { meta: { kind: "a" } }) and a short presence TTL, that
// prints "started" once it runs (its presence follows), until the test kills it
// (SIGKILL: it never deregisters). Uses the built package; the harness's
// Redis comes as childTarget() (a URL, or a cluster's nodes).
import { Engine, Worker } from '../../dist/index.js';
import { engineRedis } from './connect.js';

const [target, queue, worker, heartbeat, ttl] = process.argv.slice(2);
const engine = new Engine({ redis: engineRedis(target), queue, worker });
const running = new Worker(
  engine,
  [{ labels: { meta: { kind: 'a' } }, filter: () => true, ensure: async () => {} }],
  {
    concurrency: 3,
    background: false,
    heartbeatInterval: Number(heartbeat),
    presenceTtl: Number(ttl),
  },
);
running.on('error', (error) => process.stderr.write(`presence-worker: ${String(error)}\n`));
await running.start();
process.stdout.write('started\n');
setInterval(() => {}, 1_000);
