// A worker process for conformance/redis/worker-cluster-exit.spec.ts: a Worker on a
// Redis Cluster that is stopped while its wake-up subscriber is re-reading the
// slot map (the periodic refresh that follows a failover), then the engine and
// the client are closed, and nothing else: the process must end by itself.
// Prints "stopped" once everything is closed. Uses the built package.
//
// Usage: stop-during-refresh.js <host:port,host:port,...> <queue>
import { Cluster } from 'ioredis';
import { Engine, Worker } from '../../dist/index.js';

const [nodes, queue] = process.argv.slice(2);
const client = new Cluster(
  nodes.split(',').map((node) => {
    const [host, port] = node.split(':');
    return { host, port: Number(port) };
  }),
);
const engine = new Engine({ redis: client, queue, worker: 'exiting' });
const worker = new Worker(engine, [{ filter: () => true, ensure: async () => {} }], {
  background: false,
});
worker.on('error', (error) => process.stderr.write(`stop-during-refresh: ${String(error)}\n`));

// The wake-up subscriber is a duplicate of the engine's Cluster with sharded
// subscribers; once the worker runs, its next slot-map refresh stops everything.
let started = false;
let stopping;
const duplicate = client.duplicate.bind(client);
client.duplicate = (startupNodes, options) => {
  const copy = duplicate(startupNodes, options);
  if (options?.shardedSubscribers === true) {
    const refresh = copy.refreshSlotsCache.bind(copy);
    copy.refreshSlotsCache = (callback) => {
      refresh(callback);
      if (started && stopping === undefined) stopping = stop();
    };
  }
  return copy;
};

async function stop() {
  await worker.stop();
  await engine.close();
  await client.quit();
  process.stdout.write('stopped\n');
}

await worker.start();
started = true;
