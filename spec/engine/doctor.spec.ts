import {
  doctorProbes,
  judgeClock,
  judgeCluster,
  judgeLayout,
  judgeMemoryPolicy,
  judgePersistence,
  judgeVersion,
  worstOf,
} from '../../lib/engine/doctor.js';
import { layoutVersion, queueKeys } from '../../lib/engine/keys.js';
import { scripts } from '../../lib/engine/lua/scripts.js';

describe('doctor: what each finding comes to', () => {
  it.each([
    ['7.0.15', 'ok'],
    ['7.2.4', 'ok'],
    ['8.0.0', 'ok'],
    ['6.2.14', 'fail'],
    ['5.0.7', 'fail'],
  ] as const)('rates Redis %s as %s', (version, status) => {
    expect(judgeVersion(version).status).toBe(status);
  });

  it('names the version it needs when the server is too old', () => {
    expect(judgeVersion('6.2.14').message).toBe('Redis 6.2.14: the engine needs 7.0 or later');
  });

  it.each([
    ['noeviction', '0', 'ok'],
    ['noeviction', '1073741824', 'ok'],
    ['volatile-lru', '1073741824', 'warn'],
    ['allkeys-lru', '1073741824', 'fail'],
    ['allkeys-lru', '0', 'fail'],
    ['allkeys-random', '1073741824', 'fail'],
  ] as const)('rates maxmemory-policy %s (maxmemory %s) as %s', (policy, maxmemory, status) => {
    expect(judgeMemoryPolicy(policy, maxmemory).status).toBe(status);
  });

  it('says an unreadable eviction policy is unknown, as a warning', () => {
    expect(judgeMemoryPolicy(undefined, undefined)).toEqual({
      name: 'maxmemory-policy',
      status: 'warn',
      message: 'unknown: neither INFO memory nor CONFIG GET is allowed; it must be noeviction',
    });
  });

  it.each([
    [{ aof: true, appendfsync: 'always', save: '' }, 'ok', /survives a crash/],
    [{ aof: true, appendfsync: 'everysec', save: '' }, 'warn', /up to about 1 s/],
    [{ aof: true, appendfsync: 'no', save: '' }, 'warn', /not written to disk yet/],
    [{ aof: true }, 'warn', /appendfsync is unknown/],
    [{ aof: false, save: '3600 1 300 100' }, 'warn', /since the last snapshot/],
    [{ aof: false, save: '' }, 'warn', /loses the whole queue/],
    [{ aof: false }, 'warn', /RDB snapshots are taken is unknown/],
    [{ aof: undefined }, 'warn', /^unknown/],
  ])('rates persistence %j as %s and says what can be lost', (facts, status, message) => {
    const check = judgePersistence(facts);
    expect(check.status).toBe(status);
    expect(check.message).toMatch(message);
  });

  // 30 s lease: lease margin 1,000 ms, so engines may be 1 s apart
  it.each([
    [0, 'ok'],
    [-250, 'ok'],
    [251, 'warn'],
    [-500, 'warn'],
    [501, 'fail'],
    [-60_000, 'fail'],
  ])('rates an engine clock %d ms off Redis TIME, with a 30 s lease, as %s', (offset, status) => {
    expect(judgeClock(offset, 30_000).status).toBe(status);
  });

  it('scales the clock thresholds with the lease and the clockSkew the engine allows', () => {
    expect(judgeClock(100, 3_000)).toEqual({
      name: 'clock',
      status: 'warn',
      message:
        "the engine clock is 100 ms ahead of Redis TIME (engines may be 300 ms apart: lease margin 300 ms + clockSkew 0 ms): keep engines' clocks in sync (NTP)",
    });
    expect(judgeClock(1_000, 3_000).status).toBe('fail');
    expect(judgeClock(500, 3_000, 2_000).status).toBe('ok');
    expect(judgeClock(-1_000, 3_000, 2_000).status).toBe('warn');
    expect(judgeClock(-1_000, 3_000, 1_000).status).toBe('fail');
  });

  it('accepts a queue without a layout or with this one, and fails another', () => {
    expect(judgeLayout(null, 'k').status).toBe('ok');
    expect(judgeLayout(layoutVersion, 'k').status).toBe('ok');
    expect(judgeLayout('0-other', 'k').status).toBe('fail');
  });

  it('fails cluster mode behind a plain client', () => {
    expect(judgeCluster('0', false).status).toBe('ok');
    expect(judgeCluster('1', true).status).toBe('ok');
    expect(judgeCluster('1', false).status).toBe('fail');
  });

  it('reports the worst status', () => {
    expect(worstOf(['ok', 'ok'])).toBe('ok');
    expect(worstOf(['ok', 'warn', 'ok'])).toBe('warn');
    expect(worstOf(['warn', 'fail', 'ok'])).toBe('fail');
  });
});

describe('doctor: the ACL probes', () => {
  const keys = queueKeys('q');
  const probes = doctorProbes(keys);

  it('cover every command the scripts run', () => {
    const called = new Set<string>();
    for (const script of Object.values(scripts)) {
      for (const match of script.source.matchAll(/redis\.p?call\(\s*'([A-Za-z]+)'/g)) {
        called.add((match[1] ?? '').toUpperCase());
      }
    }
    expect(called.size).toBeGreaterThan(10);
    const probed = new Set(probes.map(([command]) => command));
    expect([...called].filter((command) => !probed.has(command))).toEqual([]);
  });

  it("name only the queue's keys and channels", () => {
    for (const probe of probes) {
      const named = probe.filter((argument) => argument.startsWith('rescue.io:'));
      for (const argument of named) expect(argument.startsWith(`${keys.prefix}:`)).toBe(true);
    }
  });
});
