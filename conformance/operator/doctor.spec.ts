import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { systemClock } from '../../lib/clock.js';
import {
  doctorCheckNames,
  doctorProbes,
  type DoctorCheck,
  type DoctorCheckName,
  type DoctorReport,
} from '../../lib/engine/doctor.js';
import { Engine } from '../../lib/engine/engine.js';
import { aclRules } from '../../lib/engine/acl.js';
import { layoutVersion, queueKeys } from '../../lib/engine/keys.js';
import { claimTasks, deleteThenSearch, filterList } from '../../lib/engine/runtime.js';
import { Label } from '../../lib/task/label.js';
import { startRedisServer, type RedisServer } from '../../lib/testing/redis-server.js';
import { useQueue } from '../harness/queue.js';
import { expectUnchanged } from '../harness/queue-state.js';
import { until } from '../harness/worker.js';

function check(report: DoctorReport, name: DoctorCheckName): DoctorCheck {
  const found = report.checks.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`no ${name} check in the report`);
  return found;
}

/** onServer runs body with an engine (system clock) on a redis-server of its own, started with config. */
async function onServer(
  config: Record<string, string>,
  body: (engine: Engine, server: RedisServer) => Promise<void>,
  engineRedis?: (server: RedisServer) => string,
): Promise<void> {
  const server = await startRedisServer({ env: {}, config });
  const engine = new Engine({
    redis: engineRedis?.(server) ?? server.url,
    queue: 'doctor',
    clock: systemClock,
  });
  try {
    await body(engine, server);
  } finally {
    await engine.close();
    await server.stop();
  }
}

describe('engine.doctor() on the harness Redis', () => {
  const queue = useQueue();

  it('reads only: the queue is byte-identical afterwards', async () => {
    const engine = queue().engine('one', { clock: systemClock });
    await engine.create({ meta: { k: 'v' } });
    await expectUnchanged(queue().redis, queue().prefix, async () => {
      expect((await engine.doctor()).checks).toHaveLength(7);
    });
  });

  it('measures the engine clock against Redis TIME, relative to the lease', async () => {
    // the harness's fake clock stands in 2023: far off the server's
    const engine = queue().engine('one', { expiry: 30_000 });
    const clock = check(await engine.doctor(), 'clock');
    expect(clock.status).toBe('fail');
    expect(clock.message).toMatch(
      /^the engine clock is \d+ ms behind Redis TIME \(engines may be 1000 ms apart: lease margin 1000 ms \+ clockSkew 0 ms\)/,
    );

    // 3 s off, with engines allowed 9 s apart (1 s margin + 8 s clockSkew): a warning
    const skewed = queue().engine('two', {
      expiry: 30_000,
      clockSkew: 8_000,
      clock: () => new Date(systemClock().getTime() + 3_000),
    });
    const skew = check(await skewed.doctor(), 'clock');
    expect(skew.status).toBe('warn');
    const [, ms = ''] =
      /^the engine clock is (\d+) ms ahead of Redis TIME/.exec(skew.message) ?? [];
    expect(Math.abs(Number(ms) - 3_000)).toBeLessThan(100);
  });

  it("checks the queue's layout", async () => {
    const engine = queue().engine('one', { clock: systemClock });
    expect(check(await engine.doctor(), 'layout').message).toMatch(/^no layout stored yet/);
    await engine.create({ meta: { k: 'v' } });
    expect(check(await engine.doctor(), 'layout')).toEqual({
      name: 'layout',
      status: 'ok',
      message: `layout "${layoutVersion}", the one this engine reads`,
    });
    await queue().redis.set(queue().key.layout, '0-other');
    const other = queue().engine('two', { clock: systemClock });
    const report = await other.doctor();
    expect(check(report, 'layout').status).toBe('fail');
    expect(report.status).toBe('fail');
  });

  it('rejects on a closed engine like every other call', async () => {
    const engine = queue().engine('one');
    await engine.close();
    await expect(engine.doctor()).rejects.toThrow('the engine is closed');
  });
});

describe('engine.doctor() on servers configured otherwise', () => {
  it('reports every check, in order, and passes what a default redis-server gets right', async () => {
    await onServer({}, async (engine) => {
      const report = await engine.doctor();

      expect(report.checks.map(({ name }) => name)).toEqual(doctorCheckNames);
      for (const { message } of report.checks) expect(message).not.toBe('');
      expect(check(report, 'server-version').status).toBe('ok');
      expect(check(report, 'server-version').message).toMatch(/^Redis 7\./);
      expect(check(report, 'cluster').status).toBe('ok');
      expect(check(report, 'maxmemory-policy').status).toBe('ok');
      expect(check(report, 'clock').status).toBe('ok');
      expect(check(report, 'layout').status).toBe('ok');
      expect(check(report, 'acl').status).toBe('ok');
      expect(check(report, 'acl').message).toMatch(/^user "default" may run every command/);
      // started without persistence: a warning that says what is lost
      expect(check(report, 'persistence')).toEqual({
        name: 'persistence',
        status: 'warn',
        message: 'no persistence: a restart of Redis loses the whole queue',
      });
      expect(report.status).toBe('warn');
    });
  });

  it('fails an eviction policy that drops any key, and warns of one that drops keys with a TTL', async () => {
    await onServer({ maxmemory: '100mb', 'maxmemory-policy': 'allkeys-lru' }, async (engine) => {
      const report = await engine.doctor();
      expect(check(report, 'maxmemory-policy')).toEqual({
        name: 'maxmemory-policy',
        status: 'fail',
        message:
          'allkeys-lru: a full Redis evicts any key, tasks and indexes included; set maxmemory-policy noeviction',
      });
      expect(report.status).toBe('fail');
    });
    await onServer({ 'maxmemory-policy': 'volatile-lru' }, async (engine) => {
      const policy = check(await engine.doctor(), 'maxmemory-policy');
      expect(policy.status).toBe('warn');
      expect(policy.message).toMatch(/^volatile-lru \(maxmemory is 0 now: no limit yet\)/);
    });
  });

  it('passes AOF with appendfsync always, and warns of everysec and of RDB snapshots alone', async () => {
    await onServer({ appendonly: 'yes', appendfsync: 'always' }, async (engine) => {
      expect(check(await engine.doctor(), 'persistence')).toEqual({
        name: 'persistence',
        status: 'ok',
        message: 'AOF, appendfsync always: a write Redis acknowledged survives a crash',
      });
    });
    await onServer({ appendonly: 'yes', appendfsync: 'everysec' }, async (engine) => {
      const persistence = check(await engine.doctor(), 'persistence');
      expect(persistence.status).toBe('warn');
      expect(persistence.message).toMatch(
        /^AOF, appendfsync everysec: a crash of the machine loses up to about 1 s/,
      );
    });
    await onServer({ save: '900 1' }, async (engine) => {
      expect(check(await engine.doctor(), 'persistence')).toEqual({
        name: 'persistence',
        status: 'warn',
        message:
          'RDB snapshots only (save 900 1): a crash loses every write since the last snapshot',
      });
    });
  });

  it('names the commands an ACL user may not run, and says "unknown" where it may not ask', async () => {
    const admin = await startRedisServer({ env: {} });
    const redis = new Redis(admin.url);
    const password = randomUUID();
    const url = (user: string) => `redis://${user}:${password}@127.0.0.1:${admin.port}`;
    const engines: Engine[] = [];
    const engineAs = (user: string) => {
      const engine = new Engine({ redis: url(user), queue: 'doctor', clock: systemClock });
      engines.push(engine);
      return engine;
    };
    try {
      await redis.call(
        'ACL',
        'SETUSER',
        'no-publish',
        'on',
        `>${password}`,
        '~*',
        '&*',
        '+@all',
        '-publish',
      );
      await redis.call(
        'ACL', 'SETUSER', 'plain', 'on', `>${password}`, '~rescue.io:*', '&*', '+@all', '-@admin',
      ); // prettier-ignore

      const denied = await engineAs('no-publish').doctor();
      expect(check(denied, 'acl').status).toBe('fail');
      expect(check(denied, 'acl').message).toMatch(
        /^user "no-publish" may not run 4 of the commands the engine uses \(checked with ACL DRYRUN\): PUBLISH \(.*'publish'.*\); PUBLISH/,
      );

      // no CONFIG, no ACL: what INFO says is still used; ACL rights are asked from a script
      const plain = await engineAs('plain').doctor();
      expect(check(plain, 'acl')).toEqual({
        name: 'acl',
        status: 'ok',
        message: `user "plain" may run every command the engine uses (${doctorProbes(queueKeys('doctor')).length} checked with redis.acl_check_cmd: ACL DRYRUN is not allowed)`,
      });
      expect(check(plain, 'persistence').message).toBe(
        'AOF is off; whether RDB snapshots are taken is unknown (CONFIG GET is not allowed)',
      );
      expect(check(plain, 'maxmemory-policy').status).toBe('ok');

      // the documented rule set, for this queue; then without HSET; then for another queue
      await redis.call('ACL', 'SETUSER', 'least', 'on', `>${password}`, ...aclRules('doctor'));
      const least = check(await engineAs('least').doctor(), 'acl');
      expect(least.status).toBe('ok');
      expect(least.message).toMatch(/^user "least" may run every command the engine uses/);
      await redis.call(
        'ACL',
        'SETUSER',
        'no-hset',
        'on',
        `>${password}`,
        ...aclRules('doctor'),
        '-hset',
      );
      expect(check(await engineAs('no-hset').doctor(), 'acl')).toEqual({
        name: 'acl',
        status: 'fail',
        message:
          'user "no-hset" may not run 1 of the commands the engine uses (checked with redis.acl_check_cmd: ACL DRYRUN is not allowed): HSET (denied)',
      });
      // without functions: a warning, and the scripts run with EVALSHA and EVAL
      await redis.call(
        'ACL', 'SETUSER', 'no-functions', 'on', `>${password}`, ...aclRules('doctor'), '-fcall', '-function|load',
      ); // prettier-ignore
      const noFunctions = engineAs('no-functions');
      expect(check(await noFunctions.doctor(), 'acl')).toEqual({
        name: 'acl',
        status: 'warn',
        message:
          'user "no-functions" may not run FCALL or FUNCTION LOAD (checked with redis.acl_check_cmd: ACL DRYRUN ' +
          'is not allowed): the engine runs its scripts with EVALSHA and EVAL, which define every function of a ' +
          'script again on each call; grant +fcall +function|load',
      });
      const created = await noFunctions.create({ meta: { k: 'without functions' } });
      const claimed = await noFunctions.search({ meta: { k: 'without functions' } });
      expect(claimed?.core?.[Label.Object]).toBe(created.core?.[Label.Object]);
      await noFunctions.delete(claimed!);
      expect(await noFunctions.exists({ meta: { k: 'without functions' } })).toBe(false);
      // the worker's complete-and-claim too (complete-claim.lua: under EVAL
      // nothing of include/engine-args.lua outlives a call)
      for (const k of ['eval 1', 'eval 2']) await noFunctions.create({ meta: { k } });
      const noFilters = filterList([]);
      const [claim] = await claimTasks(noFunctions, noFilters, [{ slot: '0', forMs: 15_000 }], []);
      const held = claim?.deleted === true ? claim.next : undefined;
      expect(held?.meta).toEqual({ k: 'eval 1' });
      const [done] = await deleteThenSearch(noFunctions, [{ task: held!, filters: noFilters }]);
      expect(done?.deleted === true && done.next?.meta).toEqual({ k: 'eval 2' });
      await noFunctions.delete((done?.deleted === true ? done.next : undefined)!);
      // a rule set from before scripts counted a watch channel's listeners:
      // doctor names the command, and a listener still hears the outcome
      await redis.call(
        'ACL', 'SETUSER', 'no-numsub', 'on', `>${password}`, ...aclRules('doctor'), '-pubsub|numsub',
      ); // prettier-ignore
      const noNumsub = engineAs('no-numsub');
      expect(check(await noNumsub.doctor(), 'acl').message).toMatch(
        /^user "no-numsub" may not run 1 of the commands the engine uses .*: PUBSUB NUMSUB/,
      );
      const watched = await noNumsub.create({ meta: { k: 'no numsub' } });
      const watchedId = watched.core?.[Label.Object] ?? '';
      const listener = new Redis(admin.url);
      try {
        const messages: unknown[] = [];
        listener.on('message', (_, m: string) => messages.push(JSON.parse(m)));
        await listener.subscribe(`${noNumsub.keyfmt()}:watch:${watchedId}`);
        await noNumsub.delete((await noNumsub.search({ meta: { k: 'no numsub' } }))!);
        await until(() => messages.length === 2, 5_000, 'the claim and the outcome heard');
        expect(messages).toMatchObject([
          { w: noNumsub.worker },
          { o: { id: watchedId, state: 'completed' } },
        ]);
      } finally {
        listener.disconnect();
      }
      await redis.call('ACL', 'SETUSER', 'elsewhere', 'on', `>${password}`, ...aclRules('other'));
      const report = await engineAs('elsewhere').doctor();
      expect(check(report, 'layout').status).toBe('fail'); // GET of the queue's layout key is refused
      // its EVAL names keys of queue "doctor": the check itself is refused
      expect(check(report, 'acl')).toEqual({
        name: 'acl',
        status: 'warn',
        message:
          'unknown: neither ACL DRYRUN nor EVAL (redis.acl_check_cmd) is allowed for user "elsewhere"',
      });
    } finally {
      await Promise.all(engines.map((engine) => engine.close()));
      await redis.quit();
      await admin.stop();
    }
  });
});
