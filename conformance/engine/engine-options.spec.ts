import { randomUUID } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import { Engine } from '../../lib/engine/engine.js';
import type { EngineOptions } from '../../lib/engine/options.js';
import { RedisUnavailableError, RescueError, TaskNotFoundError } from '../../lib/errors.js';
import { Label, Method } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { startRedisServer } from '../../lib/testing/redis-server.js';
import { fakeClock } from '../../spec/helpers/clock.js';
import { unusedPort } from '../harness/ports.js';
import { idOf, redisUrl, useQueue } from '../harness/queue.js';
import { adminUrl } from '../harness/redis.js';

/** adminUrlOf is the harness's unrestricted URL on another logical database (`/7`). */
function adminUrlOf(pathname: string): string {
  const url = new URL(adminUrl());
  url.pathname = pathname;
  return url.toString();
}

// docs/semantics.md §1.8 (engine options) and §3.10 (constructor, worker, keyfmt,
// listen, close).

const everything: Task = { meta: { '*': '*' } };
const uuidV4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A Redis nobody listens on, configured to give up at once instead of retrying for seconds. */
async function deadRedis(): Promise<EngineOptions['redis']> {
  return {
    host: '127.0.0.1',
    port: await unusedPort(),
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
  };
}

async function scanAll(redis: Redis): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'COUNT', 1000);
    keys.push(...batch);
    cursor = next;
  } while (cursor !== '0');
  return keys;
}

/** expectPlainRejections: each call rejects with an Error that is not a RescueError (docs/semantics.md §3.10). */
async function expectPlainRejections(calls: [string, () => Promise<unknown>][]): Promise<void> {
  for (const [name, call] of calls) {
    const error: unknown = await call().then(
      () => 'resolved',
      (reason: unknown) => reason,
    );
    expect([name, error instanceof Error, error instanceof RescueError]).toEqual([
      name,
      true,
      false,
    ]);
  }
}

describe('engine options: the constructor', () => {
  const invalid: [string, EngineOptions][] = [
    ['an empty queue', { queue: '' }],
    ['a queue that is not a string', { queue: 5 as unknown as string }],
    ['an empty worker', { worker: '' }],
    ['a worker that is not a string', { worker: {} as unknown as string }],
    ['a zero expiry', { expiry: 0 }],
    ['a negative expiry', { expiry: -1 }],
    ['a fractional expiry', { expiry: 1.5 }],
    ['a NaN expiry', { expiry: Number.NaN }],
    ['an infinite expiry', { expiry: Number.POSITIVE_INFINITY }],
    ['an expiry that is a string', { expiry: '30000' as unknown as number }],
    ['a zero cleanup', { cleanup: 0 }],
    ['a negative cleanup', { cleanup: -1000 }],
    ['a fractional cleanup', { cleanup: 0.5 }],
    ['a negative clockSkew', { clockSkew: -1 }],
    ['a fractional clockSkew', { clockSkew: 0.5 }],
    ['a clockSkew that is a string', { clockSkew: '10' as unknown as number }],
    ['a negative stepTime', { stepTime: -0.5 }],
    ['a NaN stepTime', { stepTime: Number.NaN }],
    ['a stepTime that is a string', { stepTime: '2' as unknown as number }],
  ];

  it.each(invalid)('throws a TypeError for %s, without needing Redis', async (_name, options) => {
    // a Redis nobody listens on: the TypeError comes before any connection
    const redis = await deadRedis();
    expect(() => new Engine({ redis, ...options })).toThrow(TypeError);
  });

  // a number of the right kind beyond its bound (lib/options.ts)
  it.each<[string, EngineOptions]>([
    ['a clockSkew beyond 2^31 - 1 ms', { clockSkew: 2 ** 31 }],
    ['a stepTime beyond 1,000 ms', { stepTime: 1000.5 }],
    ['an outcomeLimit beyond 10,000,000', { outcomeLimit: 10_000_001 }],
    ['a connectTimeout beyond 2^31 - 1 ms', { connectTimeout: 2 ** 31 }],
  ])('throws a RangeError for %s, without needing Redis', async (_name, options) => {
    const redis = await deadRedis();
    expect(() => new Engine({ redis, ...options })).toThrow(RangeError);
  });

  it.each([0, 0.001, 2.5, 1000])('accepts a stepTime of %s ms', async (stepTime) => {
    const engine = new Engine({ redis: await deadRedis(), stepTime });
    await engine.close();
    expect(engine.worker).toMatch(uuidV4);
  });

  it('accepts the smallest valid expiry and cleanup', async () => {
    const engine = new Engine({ redis: await deadRedis(), expiry: 1, cleanup: 1 });
    await engine.close();
    expect(engine.worker).toMatch(uuidV4);
  });

  it('does not wait for Redis: an engine on an unused port constructs, and its first call rejects with RedisUnavailableError', async () => {
    const engine = new Engine({
      redis: await deadRedis(),
      queue: 'nowhere',
      worker: 'eon',
      connectTimeout: 500,
    });
    expect(engine.worker).toBe('eon');
    expect(engine.keyfmt()).toBe('rescue.io:{nowhere}');
    const error: unknown = await engine.exists({ meta: { k: 'v' } }).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(RedisUnavailableError);
    await engine.close();
  });

  it('reads the clock once, for the start instant', async () => {
    let reads = 0;
    const clock = () => {
      reads++;
      return new Date('2023-10-20T00:00:00Z');
    };
    const engine = new Engine({ redis: await deadRedis(), clock });
    expect(reads).toBe(1);
    await engine.close();
  });
});

describe('engine options: worker, keyfmt, listen', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');

  it('defaults the worker to a random UUID v4', () => {
    const q = queue();
    const one = q.engine('ignored', { worker: undefined });
    const two = q.engine('ignored', { worker: undefined });
    expect(one.worker).toMatch(uuidV4);
    expect(two.worker).toMatch(uuidV4);
    expect(one.worker).not.toBe(two.worker);
  });

  it('claims tasks under the configured worker id', async () => {
    const q = queue();
    const engine = q.engine('a worker id with spaces');
    expect(engine.worker).toBe('a worker id with spaces');
    await engine.create({ meta: { k: 'v' } });
    expect((await engine.search())?.core?.[Label.Worker]).toBe('a worker id with spaces');
  });

  it('uses a 30 s lease by default', async () => {
    const q = queue();
    const engine = new Engine({ redis: redisUrl(), queue: q.name, worker: 'eon', clock: q.clock });
    try {
      await engine.create({ meta: { k: 'v' } });
      expect((await engine.search())?.core?.[Label.Expiry]).toBe('2023-10-20T00:00:31Z');
    } finally {
      await engine.close();
    }
  });

  it('returns rescue.io:{<queue>} from keyfmt, and rescue.io:{default} without a queue', async () => {
    const q = queue();
    expect(q.engine('eon').keyfmt()).toBe(`rescue.io:{${q.name}}`);
    const engine = new Engine({ redis: await deadRedis() });
    expect(engine.keyfmt()).toBe('rescue.io:{default}');
    await engine.close();
  });

  it('writes only keys that start with keyfmt(), through a whole lifecycle', async () => {
    // A logical database of its own, so that every key in it can be checked;
    // keys of harness queues (rescue.io:{test-...}) are tolerated in case
    // another file uses the same database.
    const url = new URL(redisUrl());
    url.pathname = '/7';
    const name = `lifecycle-${randomUUID()}`;
    const clock = fakeClock('2023-10-20T00:00:01Z');
    const raw = new Redis(adminUrlOf(url.pathname));
    const engines = ['eon', 'etw'].map(
      (worker) => new Engine({ redis: url.toString(), queue: name, worker, clock }),
    );
    const [eon, etw] = engines as [Engine, Engine];
    try {
      clock.set('2023-10-20T00:00:02Z');
      await eon.create({ meta: { k: 'plain' } });
      await eon.create({
        meta: { k: 'uni' },
        node: { [Label.Method]: Method.Uni, [Label.Worker]: 'etw' },
      });
      await eon.create({ meta: { k: 'all' }, node: { [Label.Method]: Method.All } });
      await eon.create({ cron: { [Label.Every]: 'minute' }, meta: { k: 'template' } });
      await eon.create({ cron: { [Label.Exact]: '2023-10-20T00:00:30Z' }, meta: { k: 'exact' } });
      await eon.create({ gate: { g: 'waiting' }, meta: { k: 'gate' }, sync: { s: '0' } });
      await eon.create({ gate: { g: 'trigger' }, meta: { k: 'trigger' }, sync: { s: '1' } });
      await eon.create({ meta: { k: 'leaf' }, root: { k: 'plain' } });
      await eon.create({
        core: { [Label.Cancel]: '2' },
        meta: { k: 'paging' },
        sync: { [Label.Paging]: '0' },
      });
      expect((await etw.search())?.meta).toEqual({ k: 'all' });
      await etw.delete((await etw.search({ meta: { k: 'uni' } }))!);
      const plain = await eon.search({ meta: { k: 'plain' } });
      await eon.extend(plain!);
      await eon.delete((await eon.search({ meta: { k: 'trigger' } }))!);
      const paging = await eon.search({ meta: { k: 'paging' } });
      await eon.delete({ ...paging, sync: { [Label.Paging]: '1' } });
      await eon.cycles((await eon.lister({ meta: { k: 'paging' } }))[0]!);
      clock.set('2023-10-20T00:01:00Z');
      await eon.ticker();
      await etw.ticker();
      const deferred = await eon.search({ meta: { k: 'exact' } });
      await eon.delete({ ...deferred, cron: { [Label.Defer]: 'minute' } });
      await eon.exists({ meta: { k: 'plain' } });
      await eon.lister(everything);
      clock.set('2023-10-20T00:02:00Z');
      await eon.expire();
      clock.set('2023-10-28T00:00:00Z');
      await etw.expire();
      await eon.ticker();
      expect((await eon.lister(everything)).length).toBeGreaterThan(0);

      const prefix = eon.keyfmt();
      expect(prefix).toBe(`rescue.io:{${name}}`);
      const keys = await scanAll(raw);
      expect(keys.some((key) => key.startsWith(prefix))).toBe(true);
      const stray = keys.filter(
        (key) => !key.startsWith(prefix) && !key.startsWith('rescue.io:{test-'),
      );
      expect(stray).toEqual([]);
      // and no key anywhere in this database names the queue under another prefix
      expect(keys.filter((key) => key.includes(name) && !key.startsWith(prefix))).toEqual([]);
    } finally {
      await Promise.all(engines.map((engine) => engine.close()));
      const mine = (await scanAll(raw)).filter((key) => key.startsWith(`rescue.io:{${name}}`));
      if (mine.length > 0) await raw.del(...mine);
      await raw.quit();
    }
  });

  it('returns host:port from listen for a URL', async () => {
    const q = queue();
    const url = new URL(redisUrl());
    expect(q.engine('eon').listen()).toBe(`${url.hostname}:${url.port || '6379'}`);
    const engine = new Engine({ redis: `redis://127.0.0.1:${await unusedPort()}` });
    expect(engine.listen()).toMatch(/^127\.0\.0\.1:\d+$/);
    await engine.close();
  });

  it('returns the configured host and port, default 127.0.0.1:6379, from listen for an options object', async () => {
    const port = await unusedPort();
    const engines = [
      new Engine({ redis: { host: '127.0.0.1', port, retryStrategy: () => null } }),
      new Engine({ redis: { port, retryStrategy: () => null } }),
      new Engine({ redis: { host: 'localhost', port, retryStrategy: () => null } }),
    ];
    expect(engines.map((engine) => engine.listen())).toEqual([
      `127.0.0.1:${port}`,
      `127.0.0.1:${port}`,
      `localhost:${port}`,
    ]);
    await Promise.all(engines.map((engine) => engine.close()));
  });

  it('defaults listen to 127.0.0.1:6379 for an empty options object and, without REDIS_URL, for no redis option', async () => {
    const fromOptions = new Engine({ redis: { retryStrategy: () => null, lazyConnect: true } });
    const saved = process.env['REDIS_URL'];
    delete process.env['REDIS_URL'];
    let fromDefault: Engine | undefined;
    try {
      fromDefault = new Engine();
    } finally {
      process.env['REDIS_URL'] = saved;
    }
    expect(fromOptions.listen()).toBe('127.0.0.1:6379');
    expect(fromDefault.listen()).toBe('127.0.0.1:6379');
    await Promise.all([fromOptions.close(), fromDefault.close()]);
  });

  it('uses REDIS_URL when no redis option is given', async () => {
    const q = queue();
    const engine = new Engine({ queue: q.name, worker: 'eon', clock: q.clock });
    try {
      const url = new URL(redisUrl());
      expect(engine.listen()).toBe(`${url.hostname}:${url.port || '6379'}`);
      await engine.create({ meta: { k: 'v' } });
      expect(await q.engine('etw').exists({ meta: { k: 'v' } })).toBe(true);
    } finally {
      await engine.close();
    }
  });
});

describe('engine options: a client passed in', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');

  it('is used, reported by listen, and left open by close', async () => {
    const q = queue();
    const client = new Redis(redisUrl());
    try {
      const engine = new Engine({ redis: client, queue: q.name, worker: 'eon', clock: q.clock });
      const url = new URL(redisUrl());
      expect(engine.listen()).toBe(`${url.hostname}:${url.port || '6379'}`);
      const task = await engine.create({ meta: { k: 'v' } });
      expect(idOf(await engine.search())).toBe(idOf(task));
      expect(
        await q
          .engine('etw')
          .exists({ core: { [Label.Object]: idOf(task), [Label.Worker]: 'eon' } }),
      ).toBe(true);
      await engine.close();
      await engine.close();
      expect(await client.ping()).toBe('PONG');
      expect(client.status).toBe('ready');
      // the client is still open, but the engine is closed: every call rejects
      const calls: [string, () => Promise<unknown>][] = [
        ['create', () => engine.create({ meta: { k: 'w' } })],
        ['search', () => engine.search()],
        ['delete', () => engine.delete({ ...task, core: { ...task.core, [Label.Worker]: 'eon' } })],
        ['exists', () => engine.exists(everything)],
        ['lister', () => engine.lister(everything)],
        ['expire', () => engine.expire()],
        ['extend', () => engine.extend({ ...task, core: { ...task.core, [Label.Worker]: 'eon' } })],
        ['cycles', () => engine.cycles({ core: { ...task.core, [Label.Cancel]: '1' } })],
        ['ticker', () => engine.ticker()],
      ];
      await expectPlainRejections(calls);
      // and nothing was written through the client it still holds
      const [stored] = await q.engine('etw').lister(everything);
      expect(stored?.core?.[Label.Worker]).toBe('eon');
      expect(await q.engine('etw').lister(everything)).toHaveLength(1);
    } finally {
      await client.quit();
    }
  });
});

describe('engine options: close', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');

  it('can be called twice', async () => {
    const engine = queue().engine('eon');
    await engine.create({ meta: { k: 'v' } });
    await engine.close();
    await expect(engine.close()).resolves.toBeUndefined();
  });

  it('makes every other method reject with an Error that is not a RescueError', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const task = await eon.create({ meta: { k: 'v' } });
    const claimed = (await eon.search())!;
    await eon.close();
    const calls: [string, () => Promise<unknown>][] = [
      ['create', () => eon.create({ meta: { k: 'w' } })],
      ['search', () => eon.search()],
      ['delete', () => eon.delete(claimed)],
      ['exists', () => eon.exists({ meta: { k: 'v' } })],
      ['lister', () => eon.lister(everything)],
      ['expire', () => eon.expire()],
      ['extend', () => eon.extend(claimed)],
      ['cycles', () => eon.cycles({ core: { [Label.Object]: idOf(task), [Label.Cancel]: '1' } })],
      ['ticker', () => eon.ticker()],
    ];
    await expectPlainRejections(calls);
    // nothing was written by the closed engine
    const etw = q.engine('etw');
    expect(await etw.lister(everything)).toEqual([claimed]);
  });

  it('rejects even for arguments that would be invalid', async () => {
    const eon = queue().engine('eon');
    await eon.close();
    const error: unknown = await eon.create({}).then(
      () => 'resolved',
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(RescueError);
  });
});

describe('engine options: the connections close() closes', () => {
  /** clientsOf counts the connections a server has, other than the one asking. */
  async function clientsOf(inspector: Redis): Promise<number> {
    const list = (await inspector.client('LIST')) as string;
    return list.split('\n').filter((line) => line.trim() !== '').length - 1;
  }

  /** settled waits (bounded) until the server reports `count` other connections. */
  async function settled(inspector: Redis, count: number): Promise<number> {
    const deadline = Date.now() + 3_000;
    let seen = await clientsOf(inspector);
    while (seen !== count && Date.now() < deadline) {
      await new Promise((resolve) => setImmediate(resolve));
      seen = await clientsOf(inspector);
    }
    return seen;
  }

  it('closes every connection the engine opened itself, and none it was given', async () => {
    // a server of its own, so that no other test's connections are counted
    const server = await startRedisServer({ env: {} });
    const inspector = new Redis(server.url);
    const given = new Redis(server.url);
    const clock = fakeClock('2023-10-20T00:00:01Z');
    try {
      await given.ping();
      expect(await settled(inspector, 1)).toBe(1);
      const own = new Engine({ redis: server.url, queue: 'own', worker: 'eon', clock });
      const lent = new Engine({ redis: given, queue: 'lent', worker: 'etw', clock });
      for (const engine of [own, lent]) {
        const task = await engine.create({ meta: { k: 'v' } });
        await engine.create({ cron: { [Label.Every]: 'minute' }, meta: { k: 't' } });
        await engine.extend((await engine.search())!);
        await engine.lister(everything);
        await engine.exists(everything);
        await engine.expire();
        await engine.ticker();
        await engine.delete({ ...task, core: { ...task.core, [Label.Bypass]: 'true' } });
      }
      expect(await clientsOf(inspector)).toBeGreaterThan(1);
      await own.close();
      await lent.close();
      expect(await settled(inspector, 1)).toBe(1); // only the client it was given
      expect(await given.ping()).toBe('PONG');
    } finally {
      inspector.disconnect();
      given.disconnect();
      await server.stop();
    }
  });
});

/** timed runs an action and says how long it took, in ms. */
async function timed(action: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await action();
  return performance.now() - start;
}

describe('engine options: close while Redis is away', () => {
  it('drops the connection at once and rejects the calls that were waiting for Redis', async () => {
    const server = await startRedisServer({ env: {} });
    const engine = new Engine({ redis: server.url, queue: 'away', worker: 'eon' });
    await engine.create({ meta: { k: 'v' } });
    await server.stop();
    const waiting = engine.search(); // queued by the client until Redis is back
    const closedAfterMs = await timed(() => engine.close());

    expect(closedAfterMs).toBeLessThan(2_000); // not the client's whole reconnection schedule
    await expect(waiting).rejects.toThrow('Engine.close: the engine closed before Redis answered');
  });
});

describe('engine options: a Cluster passed in', () => {
  it('reports its first startup node from listen, and is left open by close', async () => {
    const port = await unusedPort();
    const cluster = new Cluster(
      [
        { host: '127.0.0.1', port },
        { host: '127.0.0.2', port: port + 1 },
      ],
      { lazyConnect: true },
    );
    try {
      const engine = new Engine({ redis: cluster, queue: 'cluster' });
      expect(engine.listen()).toBe(`127.0.0.1:${port}`);
      await engine.close();
      expect(cluster.status).toBe('wait'); // never connected, never quit
    } finally {
      cluster.disconnect();
    }
  });
});

describe('engine options: the clock and engine-local state', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');

  it('reads the system clock by default', async () => {
    const q = queue();
    const engine = new Engine({ redis: redisUrl(), queue: q.name, worker: 'eon' });
    try {
      const before = Date.now();
      const task = await engine.create({ meta: { k: 'v' } });
      const after = Date.now();
      const created = Number(idOf(task).slice(0, 13));
      expect(created).toBeGreaterThanOrEqual(before);
      expect(created).toBeLessThanOrEqual(after);
    } finally {
      await engine.close();
    }
  });

  it('starts a new engine, even with the same worker id, with an empty broadcast ledger that only takes later broadcast tasks', async () => {
    const q = queue();
    const first = q.engine('eon');
    q.clock.set('2023-10-20T00:00:02Z');
    const early = await first.create({
      meta: { k: 'early' },
      node: { [Label.Method]: Method.All },
    });
    expect(idOf(await first.search())).toBe(idOf(early));
    await first.delete(early); // completed locally
    expect(await first.search()).toBeUndefined();
    await first.close();
    const restarted = q.engine('eon'); // start instant 00:00:02, equal to early's creation: not later
    expect(await restarted.search()).toBeUndefined();
    q.clock.set('2023-10-20T00:00:03Z');
    const late = await restarted.create({
      meta: { k: 'late' },
      node: { [Label.Method]: Method.All },
    });
    expect(idOf(await restarted.search())).toBe(idOf(late));
    expect(await restarted.lister(everything)).toHaveLength(2); // early stays in the queue for the others
  });
});

describe('engine options: queues', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');

  it('keeps two queues on one Redis apart', async () => {
    const q = queue();
    const other = `test-${randomUUID()}`;
    const eon = q.engine('eon');
    const stranger = q.engine('etw', { queue: other });
    try {
      const task = await eon.create({ meta: { k: 'v' } });
      const template = await eon.create({
        cron: { [Label.Every]: 'hour' },
        meta: { k: 'template' },
      });
      await eon.create({ meta: { k: 'broadcast' }, node: { [Label.Method]: Method.All } });
      await eon.create({ gate: { g: 'waiting' }, meta: { k: 'gate' } });
      expect(await stranger.exists({ meta: { '*': '*' } })).toBe(false);
      expect(await stranger.lister(everything)).toEqual([]);
      expect(await stranger.search()).toBeUndefined();
      await expect(
        stranger.delete({ ...task, core: { ...task.core, [Label.Bypass]: 'true' } }),
      ).rejects.toBeInstanceOf(TaskNotFoundError);
      await expect(
        stranger.cycles({ core: { [Label.Object]: idOf(task), [Label.Cancel]: '1' } }),
      ).rejects.toBeInstanceOf(TaskNotFoundError);
      const strangers = await stranger.create({ gate: { g: 'trigger' }, meta: { k: 'v' } });
      await stranger.delete((await stranger.search())!);
      q.clock.set('2023-10-20T01:00:00Z');
      await stranger.ticker();
      q.clock.set('2023-10-28T00:00:00Z');
      await stranger.expire();
      // eon's queue is untouched: no child, no gate flip, no retention
      const mine = await eon.lister(everything);
      expect(mine.map((listed) => listed.meta?.['k'])).toEqual([
        'v',
        'template',
        'broadcast',
        'gate',
      ]);
      expect(mine.find((listed) => idOf(listed) === idOf(template))?.cron?.[Label.TickP1]).toBe(
        '2023-10-20T01:00:00Z',
      );
      expect(mine.find((listed) => listed.meta?.['k'] === 'gate')?.gate).toEqual({ g: 'waiting' });
      expect(await stranger.lister(everything)).toEqual([]); // its trigger task went, and nothing of eon's came in
      expect(idOf(strangers)).toMatch(/^1697760001000-/);
      expect(stranger.keyfmt()).not.toBe(eon.keyfmt());
    } finally {
      const keys = await q.redis.keys(`rescue.io:{${other}}:*`);
      if (keys.length > 0) await q.redis.del(...keys);
    }
  });
});
