import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { Engine } from '../../lib/engine/engine.js';
import { queueKeys } from '../../lib/engine/keys.js';
import { ReplicaTimeoutError } from '../../lib/errors.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { startRedisServer, type RedisServer } from '../../lib/testing/redis-server.js';
import { replicate } from '../../lib/testing/replication.js';
import { monitorNode } from '../harness/monitor.js';

// The `durability` engine option: with 'replica' a write is acknowledged only
// once WAIT saw a replica take it; with 'primary' (the default) no WAIT is sent.
// Each test starts its own primary (and replica): the harness's Redis has none.

/** startPair starts a primary and a replica of it, and waits until the replica is in sync. */
async function startPair(): Promise<{ primary: RedisServer; replica: RedisServer }> {
  const primary = await startRedisServer({ env: {} });
  const replica = await startRedisServer({ env: {} });
  await replicate(replica, primary);
  return { primary, replica };
}

/** commandsOn collects the commands the server runs while `act` runs (MONITOR). */
async function commandsOn(server: RedisServer, act: () => Promise<unknown>): Promise<string[][]> {
  const seen: string[][] = [];
  const monitor = await monitorNode(server, (args) => seen.push(args));
  const marker = new Redis(server.url);
  try {
    await act();
  } finally {
    await monitor.stop((text) => marker.echo(text));
    marker.disconnect();
  }
  return seen;
}

const isWait = (args: string[]) => args[0]?.toLowerCase() === 'wait';
const isScript = (args: string[]) => /^(fcall|evalsha|eval)$/i.test(args[0] ?? '');

describe("durability 'replica'", () => {
  let primary: RedisServer;
  let replica: RedisServer;
  beforeAll(async () => {
    ({ primary, replica } = await startPair());
  });
  afterAll(async () => {
    await replica.stop();
    await primary.stop();
  });

  it('acknowledges a create once the replica holds the task, with one WAIT after each write', async () => {
    const engine = new Engine({ redis: primary.url, queue: 'durable', durability: 'replica' });
    const reader = new Redis(replica.url);
    try {
      // the layout check and the scripts' loads, outside the count
      await engine.create({ meta: { warm: 'up' } });
      const claimed = await engine.search({ meta: { warm: 'up' } });
      await engine.delete(claimed as Task);
      await engine.stats();
      let id = '';
      const commands = await commandsOn(primary, async () => {
        const task = await engine.create({ meta: { k: 'v' } });
        id = task.core?.[Label.Object] ?? '';
        // the replica was read right after the acknowledgement
        expect(await reader.hexists(queueKeys('durable').tasks, id)).toBe(1);
        await engine.stats(); // a read: no WAIT
      });
      const scripts = commands.filter(isScript);
      expect(scripts).toHaveLength(2);
      const waits = commands.filter(isWait);
      expect(waits).toEqual([['wait', '1', '1000']]);
      // the WAIT follows the create, before the read
      expect(commands.findIndex(isWait)).toBeGreaterThan(commands.indexOf(scripts[0] as string[]));
      expect(commands.findIndex(isWait)).toBeLessThan(commands.indexOf(scripts[1] as string[]));
      // a claim and a delete of the task are waited for the same way
      const deleted = await commandsOn(primary, async () => {
        const task = await engine.search({ meta: { k: 'v' } });
        expect(task?.core?.[Label.Object]).toBe(id);
        await engine.delete(task as Task);
      });
      expect(deleted.filter(isScript)).toHaveLength(2);
      expect(deleted.filter(isWait)).toHaveLength(2);
    } finally {
      reader.disconnect();
      await engine.close();
    }
  });

  it('lets writes whose replies came together share one WAIT, sent after the last of them', async () => {
    const engine = new Engine({ redis: primary.url, queue: 'together', durability: 'replica' });
    const reader = new Redis(replica.url);
    try {
      await engine.create({ meta: { warm: 'up' } });
      let ids: string[] = [];
      const commands = await commandsOn(primary, async () => {
        const tasks = await Promise.all(
          Array.from({ length: 20 }, (_, n) => engine.create({ meta: { n: String(n) } })),
        );
        ids = tasks.map((task) => task.core?.[Label.Object] ?? '');
        const held = await Promise.all(
          ids.map((id) => reader.hexists(queueKeys('together').tasks, id)),
        );
        expect(held).toEqual(ids.map(() => 1));
      });
      expect(commands.filter(isScript)).toHaveLength(20);
      const waits = commands.filter(isWait).length;
      expect(waits).toBeGreaterThanOrEqual(1);
      expect(waits).toBeLessThan(20);
      // a WAIT came after the last create: every create was followed by one
      expect(commands.findLastIndex(isWait)).toBeGreaterThan(commands.findLastIndex(isScript));
    } finally {
      reader.disconnect();
      await engine.close();
    }
  });

  it("sends no WAIT with durability 'primary' (the default)", async () => {
    const engine = new Engine({ redis: primary.url, queue: 'fast' });
    try {
      await engine.create({ meta: { warm: 'up' } });
      await engine.delete((await engine.search({ meta: { warm: 'up' } })) as Task);
      const commands = await commandsOn(primary, async () => {
        await engine.create({ meta: { k: 'v' } });
        await engine.delete((await engine.search({ meta: { k: 'v' } })) as Task);
      });
      expect(commands.filter(isScript)).toHaveLength(3);
      expect(commands.filter(isWait)).toEqual([]);
    } finally {
      await engine.close();
    }
  });
});

/**
 * failoverAfterReply is a TCP forwarder to `first`; once armed, it passes the
 * next reply to the client, then points at `second` and cuts the connection:
 * a failover between a write's reply and the WAIT that follows it.
 */
async function failoverAfterReply(first: RedisServer, second: RedisServer) {
  let target = first;
  let armed = false;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = createConnection({ host: target.host, port: target.port });
    sockets.add(client).add(upstream);
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => {
      client.write(chunk);
      if (armed) {
        armed = false;
        target = second;
        close();
      }
    });
    for (const socket of [client, upstream]) {
      socket.on('error', close);
      socket.on('close', close);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arm: () => (armed = true),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe("durability 'replica' across a failover between a write and its WAIT", () => {
  it('does not take a WAIT on the new primary for a write the old one made: the request goes again', async () => {
    const old = await startRedisServer({ env: {} }); // no replica: what it wrote is lost with it
    const { primary, replica } = await startPair();
    const forwarder = await failoverAfterReply(old, primary);
    const engine = new Engine({
      redis: forwarder.url,
      queue: 'moved',
      durability: 'replica',
      // a loaded machine must not time the new primary's WAIT out
      durabilityTimeout: 1_000,
    });
    const reader = new Redis(replica.url);
    try {
      // the layout check and the script's load on the old primary (its WAIT times out: no replica)
      await expect(engine.create({ meta: { warm: 'up' } })).rejects.toBeInstanceOf(
        ReplicaTimeoutError,
      );
      forwarder.arm(); // the create's reply passes, then the failover
      const task = await engine.create({ meta: { k: 'v' } });
      const id = task.core?.[Label.Object] ?? '';
      // acknowledged only once the write was made where a replica holds it
      expect(await reader.hexists(queueKeys('moved').tasks, id)).toBe(1);
    } finally {
      reader.disconnect();
      await engine.close();
      await forwarder.close();
      await Promise.all([old.stop(), replica.stop(), primary.stop()]);
    }
  });
});

describe("durability 'replica' without a replica that answers", () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer({ env: {} });
  });
  afterAll(() => server.stop());

  it('rejects a write with ReplicaTimeoutError after durabilityTimeout', async () => {
    const engine = new Engine({
      redis: server.url,
      queue: 'alone',
      durability: 'replica',
      durabilityTimeout: 50,
    });
    try {
      const started = performance.now();
      const error = await engine.create({ meta: { k: 'v' } }).then(
        () => undefined,
        (reason: unknown) => reason,
      );
      const tookMs = performance.now() - started;
      expect(error).toBeInstanceOf(ReplicaTimeoutError);
      expect((error as ReplicaTimeoutError).code).toBe('REPLICA_TIMEOUT');
      expect(tookMs).toBeGreaterThanOrEqual(45);
      expect(tookMs).toBeLessThan(2_000);
      // reads do not wait
      expect((await engine.stats()).tasks).toBe(1);
    } finally {
      await engine.close();
    }
  });

  it('acknowledges the same write at once with durability primary', async () => {
    const engine = new Engine({ redis: server.url, queue: 'alone-fast' });
    try {
      await expect(engine.create({ meta: { k: 'v' } })).resolves.toBeDefined();
    } finally {
      await engine.close();
    }
  });
});

describe('durability options', () => {
  /** A connection that is never opened: the options are checked by the constructor. */
  const offline = { host: '127.0.0.1', port: 1, lazyConnect: true };

  it.each([
    [{ durability: 'replicas' }],
    [{ durability: '' }],
    [{ durabilityTimeout: 0 }],
    [{ durabilityTimeout: 1.5 }],
    [{ durabilityTimeout: 60_001 }],
    [{ durabilityTimeout: '100' }],
  ])('refuses %j with a TypeError naming the option', (options) => {
    expect(() => new Engine({ redis: offline, ...(options as object) })).toThrow(
      new RegExp(`Engine option "${Object.keys(options)[0]}"`),
    );
  });

  it('accepts both settings and the timeout bounds', async () => {
    for (const options of [
      { durability: 'primary' as const },
      { durability: 'replica' as const, durabilityTimeout: 1 },
      { durability: 'replica' as const, durabilityTimeout: 60_000 },
    ]) {
      const engine = new Engine({ redis: offline, ...options });
      await expect(engine.close()).resolves.toBeUndefined();
    }
  });
});
