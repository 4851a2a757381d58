// The three places the cluster benchmark puts its queues, each with the
// clients to fill, drop and watch them:
//   spread       a 3-primary cluster, one queue on each primary
//   one primary  the same cluster, all queues on one primary (another each run)
//   one server   a single redis-server, no cluster
import { Redis } from 'ioredis';
import { clusterTarget } from './cluster-target.js';
import { nameOn, primaries } from './cluster-queues.js';

/**
 * clusterSetups returns the setups over a started cluster (startRedisCluster,
 * no replicas) and a started single server, and `close()` for their clients.
 */
export async function clusterSetups({ cluster, server, admin, queues }) {
  const nodes = await primaries(admin);
  // INFO cpu must reach each node itself, not whichever node a Cluster picks.
  const nodeClients = nodes.map(({ host, port }) => new Redis({ host, port }));
  const serverClient = new Redis(server.url);
  const target = clusterTarget(cluster.nodes);
  const base = (key, run) => `bench-${process.pid}-${key}-r${run}`;
  /** namesOn names a run's queues, queue `index` on the primary `node(run, index)` picks. */
  const namesOn = (node, key) => (run) =>
    Promise.all(
      Array.from({ length: queues }, (_, index) =>
        nameOn(admin, node(run, index), `${base(key, run)}-q${index}`),
      ),
    );
  const setups = [
    {
      key: 'spread',
      label: `${queues} queues on ${nodes.length} primaries`,
      target,
      admin,
      cpuClients: nodeClients,
      names: namesOn((run, index) => nodes[index % nodes.length], 'spread'),
    },
    {
      key: 'one-primary',
      label: `${queues} queues on 1 primary (cluster)`,
      target,
      admin,
      cpuClients: nodeClients,
      // A different primary each run, so no one node's luck decides the figure.
      names: namesOn((run) => nodes[run % nodes.length], 'one'),
    },
    {
      key: 'one-server',
      label: `${queues} queues on 1 server (no cluster)`,
      target: server.url,
      admin: serverClient,
      cpuClients: [serverClient],
      names: (run) =>
        Promise.resolve(
          Array.from({ length: queues }, (_, index) => `${base('server', run)}-q${index}`),
        ),
    },
  ];
  return {
    setups,
    primaries: nodes,
    async close() {
      await Promise.all([...nodeClients, serverClient].map((client) => client.quit()));
    },
  };
}
