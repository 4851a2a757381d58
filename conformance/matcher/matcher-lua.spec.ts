import { readFileSync } from 'node:fs';
import type { RedisClient } from '../../lib/engine/connection.js';
import { assembleScript } from '../../lib/engine/lua/loader.js';
import { hasCases } from '../../spec/fixtures/matcher-cases.js';
import { adminClient } from '../harness/redis.js';

// The Lua matcher runs the same fixture cases as the TypeScript one: two
// implementations, one truth.
describe('the Lua twin of has()', () => {
  let redis: RedisClient;
  beforeAll(() => {
    redis = adminClient();
  });
  afterAll(async () => {
    await redis.quit();
  });

  it('agrees with the fixture table on every case', async () => {
    const script = assembleScript(
      'matcher-twin',
      readFileSync(new URL('../lua/matcher-twin.lua', import.meta.url), 'utf8'),
    );
    // cjson turns an empty JSON object into an empty table, as the engine's stored tasks
    const payload = JSON.stringify(
      hasCases.map((c) => ({ labels: c.labels ?? null, query: c.query ?? null })),
    );
    const results = (await redis.eval(script.source, 0, payload)) as number[];
    const disagreements = hasCases
      .filter((c, index) => (results[index] === 1) !== c.expected)
      .map((c) => c.name);
    expect(disagreements).toEqual([]);
    expect(results).toHaveLength(hasCases.length);
  });
});
