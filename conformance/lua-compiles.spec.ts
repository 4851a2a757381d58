import type { RedisClient } from '../lib/engine/connection.js';
import { scripts } from '../lib/engine/lua/scripts.js';
import { adminClient } from './harness/redis.js';

// SCRIPT LOAD compiles without running: a syntax error fails here with the
// script's name, before any behaviour test.
describe('every engine script', () => {
  let redis: RedisClient;
  beforeAll(() => {
    redis = adminClient();
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
