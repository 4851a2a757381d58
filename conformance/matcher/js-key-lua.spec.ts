import { readFileSync } from 'node:fs';
import type { RedisClient } from '../../lib/engine/connection.js';
import { workerOrderKey } from '../../lib/engine/keys.js';
import { assembleScript } from '../../lib/engine/lua/loader.js';
import { adminClient } from '../harness/redis.js';

// The share gate orders workers by a key that TypeScript and Lua both write
// (docs/semantics.md §3.2): the two must agree byte for byte, on ASCII ids
// (one string.format in Lua) and on any other text (a loop over code points).
describe('the Lua twin of workerOrderKey', () => {
  let redis: RedisClient;
  beforeAll(() => {
    redis = adminClient();
  });
  afterAll(async () => {
    await redis.quit();
  });

  it('writes the same key for every kind of worker id', async () => {
    const workers = [
      '',
      'a',
      'worker-1',
      '9ef3cf68-88fd-4767-8b5a-265032e1d259',
      'host.example:4711/slot',
      'tab\there\0nul',
      '~\u007f',
      'x'.repeat(256),
      'y'.repeat(257),
      'zürich',
      'é'.repeat(300),
      '東京-worker',
      'emoji-🚀-𝄞',
    ];
    const script = assembleScript(
      'js-key-twin',
      readFileSync(new URL('../lua/js-key-twin.lua', import.meta.url), 'utf8'),
    );
    const keys = (await redis.eval(script.source, 0, ...workers)) as string[];
    expect(keys).toEqual(workers.map(workerOrderKey));
  });
});
