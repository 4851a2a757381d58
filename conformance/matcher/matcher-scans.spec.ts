import { readFileSync } from 'node:fs';
import type { RedisClient } from '../../lib/engine/connection.js';
import { assembleScript } from '../../lib/engine/lua/loader.js';
import { has } from '../../lib/matcher/matcher.js';
import type { Labels } from '../../lib/task/task.js';
import { adminClient } from '../harness/redis.js';

// Matching cost (hostile input must not make a script walk more): a query pair with an exact key is a lookup in the
// labels, not a walk over them; only pattern keys walk. Both matchers, counted.

const labels: Labels = Object.fromEntries(
  Array.from({ length: 200 }, (_, index) => [`k${index}`, `v${index}`]),
);

const cases: { name: string; query: Labels; expected: boolean; walks: number }[] = [
  {
    name: 'exact keys, all found',
    query: { k0: 'v0', k199: '*', k100: 'v100' },
    expected: true,
    walks: 0,
  },
  { name: 'an exact key missing', query: { k0: 'v0', nope: '*' }, expected: false, walks: 0 },
  { name: 'an exact key with another value', query: { k5: 'v6' }, expected: false, walks: 0 },
  {
    name: 'a prototype name as an exact key',
    query: { constructor: '*' },
    expected: false,
    walks: 0,
  },
  {
    name: 'one pattern key beside exact ones',
    query: { k0: 'v0', 'k1*': 'v19' },
    expected: true,
    walks: 1,
  },
  { name: 'two pattern keys', query: { '*9': 'v9', '*': 'v3' }, expected: true, walks: 2 },
];

describe('has() looks exact keys up', () => {
  let redis: RedisClient;
  beforeAll(() => {
    redis = adminClient();
  });
  afterAll(async () => {
    await redis.quit();
  });

  it.each(cases)('Lua: $name walks the labels $walks times', async ({ query, expected, walks }) => {
    const script = assembleScript(
      'matcher-scans',
      readFileSync(new URL('../lua/matcher-scans.lua', import.meta.url), 'utf8'),
    );
    const reply = (await redis.eval(
      script.source,
      0,
      JSON.stringify({ labels, query }),
    )) as number[];
    expect(reply).toEqual([expected ? 1 : 0, walks]);
  });

  it.each(cases)(
    'TypeScript: $name walks the labels $walks times',
    ({ query, expected, walks }) => {
      let listed = 0;
      const counted = new Proxy(labels, {
        ownKeys(target) {
          listed++;
          return Reflect.ownKeys(target);
        },
      });
      expect(has(counted, query)).toBe(expected);
      // a walk lists the keys once
      expect(listed).toBe(walks === 0 ? 0 : 1);
    },
  );
});
