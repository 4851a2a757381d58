import { Engine } from '../../lib/engine/engine.js';
import { deleteThenSearch, releaseTask, filterList } from '../../lib/engine/runtime.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { startRedisServer } from '../../lib/testing/redis-server.js';
import { fakeClock } from '../../spec/helpers/clock.js';
import { useQueue } from '../harness/queue.js';
import { adminClient, engineClient, primaries } from '../harness/redis.js';
import type { RedisClient } from '../../lib/engine/connection.js';
import { useEval } from '../../lib/engine/lua/functions.js';

describe('scripts', () => {
  const queue = useQueue();

  it('keep working after FUNCTION FLUSH (the function is not found, its library is loaded again)', async () => {
    const eon = queue().engine('eon');
    await eon.create({ meta: { k: 'a' } });
    const flushed = async <T>(call: () => Promise<T>): Promise<T> => {
      for (const node of primaries(queue().redis)) await node.call('FUNCTION', 'FLUSH');
      return call();
    };
    await flushed(() => eon.create({ meta: { k: 'b' } }));
    const claimed = await flushed(() => eon.search());
    expect(claimed?.core?.[Label.Worker]).toBe('eon');
    // the worker runtime's step, with several calls at once missing the function
    await flushed(() =>
      Promise.all([
        deleteThenSearch(eon, [{ task: claimed!, filters: filterList([]) }]),
        eon.exists({ meta: { k: 'b' } }),
        eon.lister({ meta: { k: '*' } }),
      ]),
    );
    expect((await eon.lister({ meta: { '*': '*' } })).map((task) => task.meta?.['k'])).toEqual([
      'b',
    ]);
  });

  // a client whose user may not use functions runs the scripts with EVALSHA and EVAL
  const evalClients: RedisClient[] = [];
  function evalClient(): RedisClient {
    const client = engineClient();
    useEval(client);
    evalClients.push(client);
    return client;
  }
  afterEach(async () => {
    await Promise.all(evalClients.splice(0).map((client) => client.quit()));
  });

  it('keep working after SCRIPT FLUSH (NOSCRIPT, then EVAL)', async () => {
    const eon = queue().engine('eon', { redis: evalClient() });
    await eon.create({ meta: { k: 'a' } });
    await queue().redis.script('FLUSH');
    await eon.create({ meta: { k: 'b' } });
    const claimed = await eon.search();
    expect(claimed?.core?.[Label.Worker]).toBe('eon');
    await queue().redis.script('FLUSH');
    await eon.delete(claimed!);
    expect((await eon.lister({ meta: { '*': '*' } })).map((task) => task.meta?.['k'])).toEqual([
      'b',
    ]);
  });

  it('keep every operation and runtime step working when the scripts are flushed before each call', async () => {
    const q = queue();
    const client = evalClient();
    const eon = q.engine('eon', { redis: client });
    const etw = q.engine('etw', { redis: client });
    const flushed = async <T>(call: () => Promise<T>): Promise<T> => {
      await q.redis.script('FLUSH');
      return call();
    };
    const everything: Task = { meta: { '*': '*' } };
    const template = await flushed(() =>
      eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'template' } }),
    );
    const gate = await flushed(() => eon.create({ gate: { g: 'waiting' }, meta: { k: 'gate' } }));
    await flushed(() => eon.create({ gate: { g: 'trigger' }, meta: { k: 'trigger' } }));
    await flushed(() => eon.create({ core: { [Label.Cancel]: '1' }, meta: { k: 'plain' } }));

    const trigger = await flushed(() => eon.search({ meta: { k: 'trigger' } }));
    expect(trigger?.meta).toEqual({ k: 'trigger' });
    await flushed(() => eon.extend(trigger!));
    // the worker runtime's one-step complete-and-claim: the gate fires, its child is claimed
    const [outcome] = await flushed(() =>
      deleteThenSearch(eon, [{ task: trigger!, filters: filterList([{ meta: { k: 'gate' } }]) }]),
    );
    const child = outcome?.deleted === true ? outcome.next : undefined;
    expect(child?.root).toEqual({ [Label.Object]: gate.core?.[Label.Object] });
    expect(await flushed(() => releaseTask(eon, child!))).toBe(true);

    const plain = await flushed(() => etw.search({ meta: { k: 'plain' } }));
    await flushed(() => etw.delete({ ...plain, sync: { [Label.Paging]: '1' } })); // halted: cycles 1
    const [halted] = await flushed(() => eon.lister({ meta: { k: 'plain' } }));
    expect(halted?.core?.[Label.Cycles]).toBe('1');
    await flushed(() => eon.cycles(halted!));
    expect(
      await flushed(() => eon.exists({ meta: { k: 'plain' }, core: { [Label.Cycles]: '*' } })),
    ).toBe(false);

    q.clock.set('2023-10-20T01:00:01Z');
    await flushed(() => eon.ticker());
    expect(
      await flushed(() =>
        eon.exists({ root: { [Label.Object]: template.core?.[Label.Object] ?? '' } }),
      ),
    ).toBe(true);
    const claimed = await flushed(() => etw.search({ meta: { k: 'template' } }));
    expect(claimed?.core?.[Label.Worker]).toBe('etw');
    q.clock.set('2023-10-20T01:00:31Z');
    await flushed(() => eon.expire());
    const [revoked] = (await flushed(() => eon.lister(everything))).filter(
      (task) => task.core?.[Label.Object] === claimed?.core?.[Label.Object],
    );
    expect(revoked?.core?.[Label.Cycles]).toBe('1');
    await flushed(() => eon.delete({ core: { ...template.core, [Label.Bypass]: 'true' } }));
    expect(await flushed(() => eon.exists({ cron: { [Label.Every]: '*' } }))).toBe(false);
  });

  it('answer many calls started at once right after SCRIPT FLUSH, each exactly once', async () => {
    const q = queue();
    const engines = ['eon', 'etw', 'eth'].map((worker) => q.engine(worker));
    await q.redis.script('FLUSH');
    const created = await Promise.all(
      Array.from({ length: 30 }, (_, n) => engines[n % 3]!.create({ meta: { n: String(n) } })),
    );
    expect(new Set(created.map((task) => task.core?.[Label.Object])).size).toBe(30);
    await q.redis.script('FLUSH');
    const claimed = await Promise.all(
      Array.from({ length: 45 }, (_, n) => engines[n % 3]!.search()),
    );
    const ids = claimed.flatMap((task) => (task === undefined ? [] : [task.core?.[Label.Object]]));
    expect(ids).toHaveLength(30); // every task once, and 15 searches found nothing
    expect(new Set(ids).size).toBe(30);
  });

  it('keep working after the Redis server restarts', async () => {
    // A server of its own, so the restart does not disturb other tests.
    let server = await startRedisServer({ env: {} });
    const port = server.port;
    const clock = fakeClock();
    const eon = new Engine({ redis: server.url, queue: 'restart', worker: 'eon', clock });
    try {
      await eon.create({ meta: { k: 'before' } });
      await server.stop();
      server = await startRedisServer({ env: {}, port });
      // the new server is empty and has never seen the scripts
      await eon.create({ meta: { k: 'after' } });
      const claimed = await eon.search();
      expect(claimed?.meta).toEqual({ k: 'after' });
      await eon.extend(claimed!);
      await eon.delete({ ...claimed, sync: { [Label.Paging]: '1' } });
      const [requeued] = await eon.lister({ meta: { k: 'after' } });
      expect(requeued?.core?.[Label.Cycles]).toBe('1');
      const again = await eon.search();
      clock.advance(30_000);
      await eon.expire();
      expect((await eon.lister({ meta: { k: 'after' } }))[0]?.core?.[Label.Cycles]).toBe('2');
      await eon.cycles({ core: { ...again?.core, [Label.Cancel]: '1' } });
      const template = await eon.create({ cron: { [Label.Every]: 'minute' }, meta: { k: 't' } });
      clock.advance(60_000);
      await eon.ticker();
      expect(
        await eon.exists({ root: { [Label.Object]: template.core?.[Label.Object] ?? '' } }),
      ).toBe(true);
      const last = await eon.search({ meta: { k: 'after' } });
      await eon.delete({ ...last, sync: { [Label.Paging]: '0' } });
      await eon.delete({ core: { ...template.core, [Label.Bypass]: 'true' } });
      await eon.delete((await eon.search({ meta: { k: 't' } }))!);
      expect(await eon.exists({ meta: { '*': '*' } })).toBe(false);
    } finally {
      await eon.close();
      await server.stop();
    }
  });

  it('run on a client the caller passed in, which stays open after close', async () => {
    const client = engineClient();
    try {
      const eon = queue().engine('eon', { redis: client });
      await eon.create({ meta: { k: 'v' } });
      const admin = adminClient(); // SCRIPT FLUSH is no engine command (ACL mode)
      try {
        for (const node of primaries(admin)) await node.script('FLUSH');
      } finally {
        await admin.quit();
      }
      expect(await eon.search()).toBeDefined();
      await eon.close();
      expect(await client.ping()).toBe('PONG');
    } finally {
      await client.quit();
    }
  });
});
