import { Redis } from 'ioredis';
import { scripts } from '../lib/engine/lua/scripts.js';
import { redisUrl } from './harness/queue.js';

// SCRIPT LOAD compiles without running: a syntax error fails here with the
// script's name, before any behaviour test.
describe('every engine script', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(redisUrl());
  });
  afterAll(async () => {
    await redis.quit();
  });

  it.each(Object.values(scripts).map((script) => [script.name, script] as const))(
    '%s compiles on the server',
    async (_name, script) => {
      await expect(redis.script('LOAD', script.source)).resolves.toBe(script.sha);
    },
  );
});
