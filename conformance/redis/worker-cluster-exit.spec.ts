import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { startRedisCluster, type RedisCluster } from '../../lib/testing/redis-cluster.js';
import { within } from '../harness/worker.js';

// A process whose Worker stopped and whose clients are closed ends by itself,
// also on a Redis Cluster when the stop falls while the wake-up subscriber
// re-reads the slot map (it does so every second). With ioredis's own
// `slotsRefreshInterval` that refresh re-armed its timer after quit(), and the
// process ran on forever; harness/stop-during-refresh.js stops at exactly that
// moment.
describe('a Worker on a Redis Cluster, stopped during a slot-map refresh', () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    cluster = await startRedisCluster({ primaries: 3 });
  }, 60_000);
  afterAll(async () => {
    await cluster.stop();
  });

  it('lets the process exit once the worker, the engine and the client are closed', async () => {
    const nodes = cluster.nodes.map(({ host, port }) => `${host}:${port}`).join(',');
    const child = spawn(
      process.execPath,
      [new URL('../harness/stop-during-refresh.js', import.meta.url).pathname, nodes, 'exiting'],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    let output = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (output += chunk));
    try {
      // the first refresh comes a second after the worker starts
      const [code] = await within(exited, 15_000, 'the worker process exiting by itself');
      expect(output).toBe('stopped\n');
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }, 30_000);
});
