import { randomUUID } from 'node:crypto';
import { Engine } from '../../lib/engine/engine.js';
import { RedisUnavailableError } from '../../lib/errors.js';
import { Label } from '../../lib/task/label.js';
import { Worker } from '../../lib/worker/worker.js';
import { elapsed } from '../harness/outage.js';
import { unusedPort } from '../harness/ports.js';
import { within } from '../harness/worker.js';

// Without Redis every call rejects with RedisUnavailableError within the
// engine's connectTimeout (measured from the call, or from the moment the
// connection went down), instead of waiting for ioredis's reconnection
// limits; a command not sent by then is given up and never runs.

/** How much later than connectTimeout a call may reject: timers and a loaded machine. */
const slackMs = 1_500;

/** Every engine call, with arguments that would be valid against a live Redis. */
function everyCall(engine: Engine): Record<string, () => Promise<unknown>> {
  const id = '1796154139557-000000000001';
  const owned = { meta: { k: 'a' }, core: { [Label.Object]: id, [Label.Worker]: engine.worker } };
  return {
    create: () => engine.create({ meta: { k: 'a' } }),
    createUnique: () => engine.create({ meta: { k: 'a' } }, { unique: { key: 'u' } }),
    createAfter: () => engine.create({ meta: { k: 'a' } }, { after: id }),
    createMany: () => engine.createMany([{ meta: { k: 'a' } }, { meta: { k: 'b' } }]),
    schedule: () =>
      engine.schedule('hourly', { cron: { [Label.Every]: 'hour' }, meta: { k: 'a' } }),
    unschedule: () => engine.unschedule('hourly'),
    search: () => engine.search(),
    delete: () => engine.delete(owned),
    extend: () => engine.extend(owned),
    cycles: () => engine.cycles({ ...owned, core: { ...owned.core, [Label.Cancel]: '3' } }),
    exists: () => engine.exists({ meta: { k: 'a' } }),
    lister: () => engine.lister({ meta: { k: 'a' } }),
    stats: () => engine.stats(),
    workers: () => engine.workers(),
    events: () => engine.events(),
    tasks: () => engine.tasks(),
    expire: () => engine.expire(),
    ticker: () => engine.ticker(),
    status: () => engine.status(id),
    wait: () => engine.wait(id),
    run: () => engine.run({ meta: { k: 'a' } }),
    cancel: () => engine.cancel(id),
    doctor: () => engine.doctor(),
    repair: () => engine.repair(),
    workerStart: () => new Worker(engine, [{ filter: () => true, ensure: async () => {} }]).start(),
  };
}

describe('an engine whose Redis cannot be reached', () => {
  it('rejects every call with RedisUnavailableError, its cause the refused connection, within connectTimeout', async () => {
    const port = await unusedPort();
    const engine = new Engine({
      redis: `redis://127.0.0.1:${port}`,
      queue: `test-${randomUUID()}`,
      connectTimeout: 300,
    });
    try {
      const calls = Object.entries(everyCall(engine));
      const ended = await within(
        Promise.all(calls.map(async ([name, call]) => ({ name, ...(await elapsed(call)) }))),
        20_000,
        'every call ended',
      );
      for (const { name, error, ms } of ended) {
        expect([name, error]).toEqual([name, expect.any(RedisUnavailableError)]);
        expect([name, ms]).toEqual([name, expect.any(Number)]);
        expect(ms).toBeLessThan(300 + slackMs);
      }
      const { error } = ended[0] as { error: RedisUnavailableError };
      expect(error.code).toBe('REDIS_UNAVAILABLE');
      expect(error.message).toContain(`127.0.0.1:${port}`);
      expect((error.cause as { code?: string }).code).toBe('ECONNREFUSED');
    } finally {
      await engine.close();
    }
  });

  it('rejects a call made long after the engine was built within connectTimeout of the call', async () => {
    const port = await unusedPort();
    const engine = new Engine({ redis: `redis://127.0.0.1:${port}`, connectTimeout: 300 });
    try {
      await new Promise((resolve) => setTimeout(resolve, 400)); // down longer than the timeout already
      const { error, ms } = await elapsed(() => engine.create({ meta: { k: 'a' } }));
      expect(error).toBeInstanceOf(RedisUnavailableError);
      expect(ms).toBeLessThan(300 + slackMs);
    } finally {
      await engine.close();
    }
  });

  it('rejects a connectTimeout that is not a positive integer of ms, or beyond the longest timer', () => {
    for (const connectTimeout of [0, -1, 1.5, '5000'])
      expect(() => new Engine({ connectTimeout: connectTimeout as number })).toThrow(TypeError);
    expect(() => new Engine({ connectTimeout: 2 ** 31 })).toThrow(RangeError);
  });
});
