import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { hostname } from 'node:os';
import { Label, Method } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { childTarget } from '../harness/redis.js';
import { idOf, next, signal, until, useWorkerQueue } from '../harness/worker.js';

// Worker presence: engine.workers() lists running workers; a dead one drops
// out once its presence's TTL ran out; stats() names the claimable tasks no
// live worker's handler labels match.

const kind = (value: string): Task => ({ meta: { kind: value } });

describe('worker presence', () => {
  const queue = useWorkerQueue();

  it('lists a running worker with what it can do, and forgets it when it stops', async () => {
    const q = queue();
    const engine = q.live('eon');
    const worker = q.worker(
      engine,
      [
        { labels: kind('a'), filter: () => true, ensure: async () => {} },
        { labels: kind('b'), filter: () => true, ensure: async () => {} },
      ],
      { concurrency: 3, heartbeatInterval: 1_000, presenceTtl: 5_000 },
    );
    expect(await engine.workers()).toEqual([]);
    await worker.start(); // the first heartbeat is under way
    await until(async () => (await engine.workers()).length === 1, 5_000, 'eon is listed');
    const [presence] = await engine.workers();
    expect(presence).toEqual({
      worker: 'eon',
      host: hostname(),
      pid: process.pid,
      started: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/) as unknown,
      heartbeat: expect.stringMatching(/Z$/) as unknown,
      concurrency: 3,
      running: 0,
      handlers: [kind('a'), kind('b')],
      ttl: 5_000,
    });
    expect(await q.redis.pttl(q.key.worker('eon'))).toBeGreaterThan(0);
    await worker.stop();
    expect(await engine.workers()).toEqual([]);
    expect(await q.keys()).not.toContain(q.key.worker('eon'));
    expect(await q.redis.zcard(q.key.workers)).toBe(0);
  });

  it('reports the tasks it runs at its next heartbeat; a handler without labels shows as null', async () => {
    const q = queue();
    const engine = q.live('eon');
    const release = signal();
    const worker = q.worker(engine, [{ filter: () => true, ensure: () => release.promise }], {
      heartbeatInterval: 20,
      presenceTtl: 5_000,
    });
    await worker.start();
    await engine.create(kind('x'));
    await until(
      async () => (await engine.workers())[0]?.running === 1,
      5_000,
      'the heartbeat reported one running task',
    );
    expect((await engine.workers())[0]?.handlers).toEqual([null]);
    const ensured = next(worker, 'task:ensured', 5_000);
    release.resolve();
    await ensured;
  });

  it('drops a worker that was killed (no deregistration) once its TTL ran out', async () => {
    const q = queue();
    const ttl = 400;
    const child = spawn(
      process.execPath,
      [
        new URL('../harness/presence-worker.js', import.meta.url).pathname,
        childTarget(),
        q.name,
        'doomed',
        '100',
        String(ttl),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = once(child, 'exit');
    const lines: string[] = [];
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => lines.push(...chunk.split('\n')));
    const observer = q.live('observer');
    try {
      await until(() => lines.includes('started'), 10_000, 'the worker process started');
      await until(
        async () => (await observer.workers()).length === 1,
        5_000,
        'the worker process is listed',
      );
      const listed = await observer.workers();
      expect(listed.map((presence) => [presence.worker, presence.pid])).toEqual([
        ['doomed', child.pid],
      ]);
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
    // still listed right after its death: nothing deregistered it
    const pttl = await q.redis.pttl(q.key.worker('doomed'));
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(ttl);
    await until(
      async () => (await observer.workers()).length === 0,
      ttl + 2_000,
      'the dead worker dropped out',
    );
    // and workers() cleaned its index entry
    expect(await q.redis.zscore(q.key.workers, 'doomed')).toBeNull();
  });

  it("cleans the index of dead workers lazily, at other workers' heartbeats", async () => {
    const q = queue();
    // an index entry without a presence key: a worker whose key ran out
    await q.redis.zadd(q.key.workers, 1, 'ghost');
    const engine = q.live('eon');
    const worker = q.worker(engine, [{ filter: () => true, ensure: async () => {} }], {
      heartbeatInterval: 1_000,
      presenceTtl: 5_000,
    });
    await worker.start();
    await until(
      async () => (await q.redis.zrange(q.key.workers, 0, -1)).join() === 'eon',
      5_000,
      "eon's first heartbeat dropped the ghost",
    );
    expect(await engine.workers()).toHaveLength(1);
  });
});

describe('stats(): tasks nobody can take', () => {
  const queue = useWorkerQueue();

  it('names claimable tasks no live worker matches, unicast ones by their target', async () => {
    const q = queue();
    const engine = q.live('eon');
    const release = signal();
    const worker = q.worker(
      engine,
      [{ labels: kind('a'), filter: () => true, ensure: () => release.promise }],
      { concurrency: 1, heartbeatInterval: 1_000, presenceTtl: 5_000 },
    );
    await worker.start();
    await until(async () => (await engine.workers()).length === 1, 5_000, 'eon is listed');
    const started = next(worker, 'task:ensured', 10_000);
    await engine.create(kind('a')); // claimed: the only slot is busy with it
    await until(async () => (await engine.stats()).owned === 1, 5_000, 'the worker claimed');
    await engine.create(kind('a')); // claimable, the live worker matches it
    const b = await engine.create(kind('b'));
    const ghost = await engine.create({
      ...kind('a'),
      node: { [Label.Method]: Method.Uni, [Label.Worker]: 'ghost' },
    });
    const mine = await engine.create({
      ...kind('b'),
      node: { [Label.Method]: Method.Uni, [Label.Worker]: 'eon' },
    });
    const stats = await engine.stats();
    expect(stats.workers).toBe(1);
    expect(stats.claimable).toBe(4);
    expect(stats.unmatched).toEqual({
      checked: 4,
      count: 3,
      ids: [idOf(b), idOf(ghost), idOf(mine)].sort(),
    });
    release.resolve();
    await started;
  });

  it('counts every claimable task when no worker is live, none when one takes anything', async () => {
    const q = queue();
    const engine = q.live('eon');
    const first = await engine.create(kind('a'));
    const second = await engine.create(kind('b'));
    expect((await engine.stats()).unmatched).toEqual({
      checked: 2,
      count: 2,
      ids: [idOf(first), idOf(second)],
    });
    // a worker whose handler has no labels takes any task; its one slot is kept busy
    const release = signal();
    const worker = q.worker(engine, [{ filter: () => true, ensure: () => release.promise }], {
      concurrency: 1,
      heartbeatInterval: 1_000,
      presenceTtl: 5_000,
    });
    await worker.start();
    await until(async () => (await engine.workers()).length === 1, 5_000, 'eon is listed');
    await engine.create(kind('c'));
    await until(async () => (await engine.stats()).owned === 1, 5_000, 'the worker claimed');
    const stats = await engine.stats();
    expect(stats.workers).toBe(1);
    expect(stats.unmatched).toEqual({ checked: 2, count: 0, ids: [] });
    release.resolve();
  });
});
