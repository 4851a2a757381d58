import { Cluster, Redis } from 'ioredis';
import { Engine } from '../../lib/engine/engine.js';
import type { Task } from '../../lib/task/task.js';
import { startRedisCluster, type RedisCluster } from '../../lib/testing/redis-cluster.js';
import { Worker } from '../../lib/worker/worker.js';
import { resolved, until } from '../harness/worker.js';

// A Worker on a Redis Cluster of 3 primaries and 3 replicas goes on working
// when the replica of the primary holding its queue's slot takes over
// (CLUSTER FAILOVER, the way an operator moves a primary before maintenance).
describe('a Worker on a Redis Cluster, through a primary failover', () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    cluster = await startRedisCluster({ primaries: 3, replicas: 1, nodeTimeoutMs: 5_000 });
  }, 60_000);
  afterAll(async () => {
    await cluster.stop();
  });

  /** slotPrimary returns the port and id of the primary serving the slot of a key. */
  async function slotPrimary(admin: Cluster, key: string): Promise<[number, string]> {
    const slot = Number(await admin.call('CLUSTER', 'KEYSLOT', key));
    const ranges = (await admin.call('CLUSTER', 'SLOTS')) as [
      number,
      number,
      [string, number, string],
    ][];
    const range = ranges.find(([from, to]) => slot >= from && slot <= to);
    if (range === undefined) throw new Error(`no node serves slot ${slot}`);
    const [, , [, primary, id]] = range;
    return [primary, id];
  }

  /** slotOwners returns the primary and a replica serving the slot of a key. */
  async function slotOwners(
    admin: Cluster,
    key: string,
  ): Promise<{ primary: number; replica: number }> {
    const [primary, id] = await slotPrimary(admin, key);
    // CLUSTER SLOTS leaves out a replica that has not told its offset lately; CLUSTER REPLICAS does not
    const replicas = String(await admin.call('CLUSTER', 'REPLICAS', id));
    const port = /^\S+ [\d.]+:(\d+)@/.exec(replicas)?.[1];
    if (port === undefined)
      throw new Error(`no replica of ${primary}: ${String(await admin.call('CLUSTER', 'NODES'))}`);
    return { primary, replica: Number(port) };
  }

  async function role(port: number): Promise<string | undefined> {
    const node = new Redis(port, '127.0.0.1');
    try {
      return /role:(\w+)/.exec(await node.info('replication'))?.[1];
    } finally {
      node.disconnect();
    }
  }

  it('keeps claiming, running and completing tasks, woken by sharded pub/sub, across the failover', async () => {
    const client = new Cluster(cluster.nodes);
    const admin = new Cluster(cluster.nodes);
    const engine = new Engine({ redis: client, queue: 'failover', worker: 'eon', expiry: 5_000 });
    const ensured = new Set<string>();
    const errors: unknown[] = [];
    // polls once a minute: a task created after the failover reaches the
    // worker by a wake-up on the queue's new primary
    const worker = new Worker(
      engine,
      [
        {
          filter: () => true,
          ensure: (task: Task) => resolved(ensured.add(task.meta?.['n'] ?? '')),
        },
      ],
      { concurrency: 2, pollInterval: 60_000, expireInterval: 1_000, tickerInterval: 1_000 },
    );
    worker.on('error', (error) => errors.push(error));
    try {
      await worker.start();
      const before = Array.from({ length: 20 }, (_, n) => `before-${n}`);
      for (const n of before) await engine.create({ meta: { n } });
      await until(() => before.every((n) => ensured.has(n)), 10_000, 'the tasks created before');

      const owners = await slotOwners(admin, `${engine.keyfmt()}:tasks`);
      const replica = new Redis(owners.replica, '127.0.0.1');
      try {
        expect(await replica.call('CLUSTER', 'FAILOVER')).toBe('OK');
      } finally {
        replica.disconnect();
      }
      // tasks created while the replica takes over
      const during = Array.from({ length: 20 }, (_, n) => `during-${n}`);
      for (const n of during) await engine.create({ meta: { n } });
      await until(
        async () => (await role(owners.replica)) === 'master',
        10_000,
        'the replica promoted',
      );
      expect(await role(owners.primary)).toBe('slave');
      // the cluster's map names the new primary (what the engine's client follows)
      await until(
        async () => (await slotPrimary(admin, `${engine.keyfmt()}:tasks`))[0] === owners.replica,
        10_000,
        'the slot map naming the new primary',
      );

      const after = Array.from({ length: 20 }, (_, n) => `after-${n}`);
      for (const n of after) await engine.create({ meta: { n } });
      await until(
        () => [...during, ...after].every((n) => ensured.has(n)),
        15_000,
        'every task created during and after the failover ensured',
      );
      // and completed: nothing left in the queue
      await until(
        async () => !(await engine.exists({ meta: { '*': '*' } })),
        10_000,
        'the queue empty',
      );
    } finally {
      await worker.stop();
      await engine.close();
      await client.quit();
      await admin.quit();
    }
    // errors a failover may cause are reported, not fatal; none is a lost or outdated claim
    for (const error of errors) expect(String(error)).not.toMatch(/TASK_OUTDATED|TASK_NOT_FOUND/);
  }, 60_000);
});
