// Several queues on a Redis Cluster. Pass an ioredis `Cluster` as `redis`:
// each queue's keys share one hash tag (`{<queue>}`), so a queue lives on one
// primary and its scripts stay atomic, while different queues spread over the
// primaries. This example starts a local 3-primary cluster of its own with
// rescue-engine/testing (redis-server and redis-cli must be installed), or
// uses the nodes in REDIS_CLUSTER_NODES (`host:port,host:port,...`).
// Run: npm run examples (or, after npm run build, compile it and run it).
import { Cluster } from 'ioredis';
import { Engine, Label, Worker } from 'rescue-engine';
import { startRedisCluster } from 'rescue-engine/testing';

const given = process.env.REDIS_CLUSTER_NODES;
const local = given === undefined ? await startRedisCluster() : undefined;
const nodes =
  local?.nodes ??
  (given ?? '').split(',').map((node) => {
    const [host = '127.0.0.1', port = '6379'] = node.split(':');
    return { host, port: Number(port) };
  });
const cluster = new Cluster(nodes);

try {
  const queues = ['mail', 'images', 'reports'];
  const engines = queues.map((queue) => new Engine({ redis: cluster, queue }));
  const workers = engines.map(
    (engine) =>
      new Worker(engine, [{ filter: () => true, ensure: (task) => Promise.resolve(task.meta) }]),
  );
  await Promise.all(workers.map((worker) => worker.start()));

  for (const [index, engine] of engines.entries()) {
    const task = await engine.create({ meta: { job: `${queues[index] ?? ''}-1` } });
    const id = task.core?.[Label.Object] ?? '';
    const outcome = await engine.wait(id, { timeout: 10_000 });
    const slot = await cluster.cluster('KEYSLOT', engine.keyfmt());
    console.log(`queue ${queues[index]}: ${outcome.state} on slot ${String(slot)}`);
    if (outcome.state !== 'completed') throw new Error(`queue ${queues[index]}: ${outcome.state}`);
  }

  await Promise.all(workers.map((worker) => worker.stop()));
  await Promise.all(engines.map((engine) => engine.close())); // leaves our cluster client open
} finally {
  cluster.disconnect();
  await local?.stop();
}
