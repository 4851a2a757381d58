import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startRedisServer } from '../../lib/testing/redis-server.js';

function ping(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('error', reject);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (chunk) => {
      socket.destroy();
      resolve(chunk.toString());
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('startRedisServer', () => {
  it('uses REDIS_URL without starting anything', async () => {
    const server = await startRedisServer({ env: { REDIS_URL: 'redis://10.1.2.3:6400' } });
    expect(server).toMatchObject({ external: true, host: '10.1.2.3', port: 6400, pid: undefined });
    await server.stop();
  });

  it('uses REDIS_PORT on loopback without starting anything', async () => {
    const server = await startRedisServer({ env: { REDIS_PORT: '6380' } });
    expect(server).toMatchObject({ external: true, url: 'redis://127.0.0.1:6380', port: 6380 });
  });

  it('rejects a REDIS_PORT that is not a port', async () => {
    await expect(startRedisServer({ env: { REDIS_PORT: 'six' } })).rejects.toThrow(RangeError);
  });

  it('starts a redis-server on a free loopback port and stops exactly that process', async () => {
    const server = await startRedisServer({ env: {} });
    expect(server.external).toBe(false);
    expect(server.url).toBe(`redis://127.0.0.1:${server.port}`);
    expect(await ping(server.port)).toBe('+PONG\r\n');
    const pid = server.pid ?? 0;
    expect(alive(pid)).toBe(true);
    await server.stop();
    expect(alive(pid)).toBe(false);
  });

  it('takes more configuration, and keeps a data directory it was given across a crash', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rescue-redis-kept-'));
    const config = { appendonly: 'yes', appendfsync: 'always' };
    try {
      const first = await startRedisServer({ env: {}, config, dir });
      const client = new Redis(first.url);
      expect(await client.call('CONFIG', 'GET', 'appendfsync')).toEqual(['appendfsync', 'always']);
      await client.set('kept', 'yes');
      client.disconnect();
      process.kill(first.pid ?? 0, 'SIGKILL');
      await first.stop();
      expect(existsSync(dir)).toBe(true);

      const second = await startRedisServer({ env: {}, config, dir, port: first.port });
      const again = new Redis(second.url);
      expect(await again.get('kept')).toBe('yes');
      await again.quit();
      await second.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stops the redis-server when the process that started it is killed', async () => {
    const parent = spawn(
      process.execPath,
      [new URL('../harness/start-and-wait.js', import.meta.url).pathname],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const [line] = (await once(parent.stdout, 'data')) as [Buffer];
    const pid = Number(line.toString().trim());
    expect(alive(pid)).toBe(true);
    parent.kill('SIGKILL'); // no exit handler runs: the watchdog must notice
    await once(parent, 'exit');
    for (let waited = 0; alive(pid) && waited < 5_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(alive(pid)).toBe(false);
  });

  it('says how to install redis-server when the binary is missing', async () => {
    await expect(
      startRedisServer({ env: {}, binary: 'redis-server-that-does-not-exist' }),
    ).rejects.toThrow(/apt-get install -y redis-server/);
  });
});
