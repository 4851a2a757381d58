// A worker process for conformance/worker/worker-background.spec.ts: a Worker with no
// handlers that takes part in the background loops and prints a line for each
// run of expire and ticker, until the test kills it (SIGKILL: it never gets to
// release its loop leases). Uses the built package.
import { Engine, Worker } from '../../dist/index.js';
import { engineRedis } from './connect.js';

const [target, queue, worker, interval] = process.argv.slice(2);
const engine = new Engine({ redis: engineRedis(target), queue, worker });
const loops = new Worker(engine, [], {
  expireInterval: Number(interval),
  tickerInterval: Number(interval),
  pollInterval: 60_000,
});
loops.on('expire:done', () => process.stdout.write('expire:done\n'));
loops.on('ticker:done', () => process.stdout.write('ticker:done\n'));
loops.on('error', (error) => process.stderr.write(`background-worker: ${String(error)}\n`));
await loops.start();
setInterval(() => {}, 1_000);
