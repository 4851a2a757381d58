import type { RedisClient } from '../../lib/engine/connection.js';
import { scripts, shardedScripts } from '../../lib/engine/lua/scripts.js';
import { adminClient } from '../harness/redis.js';

// SCRIPT LOAD compiles without running, FUNCTION LOAD compiles a library and
// runs its definitions: a syntax error (or a library over Lua's limits) fails
// here with the script's name, before any behaviour test.
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

  it.each(
    [...Object.values(scripts), ...Object.values(shardedScripts)].map(
      (script) => [script.name, script] as const,
    ),
  )('%s loads as a function library', async (_name, script) => {
    await expect(redis.call('FUNCTION', 'LOAD', 'REPLACE', script.library.source)).resolves.toBe(
      script.library.name,
    );
  });
});
