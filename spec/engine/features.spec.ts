import { readFileSync } from 'node:fs';
import { featureKeys } from '../../lib/engine/keys.js';

// include/features.lua maps each feature's field to its key, and repair
// rebuilds the hash from the same list: both name featureKeys of keys.ts.

describe('include/features.lua', () => {
  const source = readFileSync(
    new URL('../../lib/engine/lua/include/features.lua', import.meta.url),
    'utf8',
  );

  it('maps each field of featureKeys to the key of that name, and no other', () => {
    const mapped = [...source.matchAll(/name == '([a-z-]+)' then return K\['([a-z-]+)'\]/g)];
    expect(mapped.map(([, field, key]) => [field, key])).toEqual(
      featureKeys.map((name) => [name, name]),
    );
  });

  it('rebuilds every field of featureKeys', () => {
    const list = /for _, name in ipairs\(\{([^}]*)\}\)/.exec(source)?.[1] ?? '';
    expect([...list.matchAll(/'([a-z-]+)'/g)].map((match) => match[1])).toEqual([...featureKeys]);
  });

  it("include/lean.lua: the set of features the lean path steps aside for is plain_queue's list", () => {
    const lean = readFileSync(
      new URL('../../lib/engine/lua/include/lean.lua', import.meta.url),
      'utf8',
    );
    const set = /local LEAN_STEPS_ASIDE = \{([^}]*)\}/.exec(lean)?.[1] ?? '';
    const names = [...set.matchAll(/(?:\['([a-z-]+)'\]|([a-z-]+)) = true/g)].map(
      (match) => match[1] ?? match[2],
    );
    const list = /return plain_queue\(([^)]*)\)/.exec(lean)?.[1] ?? '';
    const listed = [...list.matchAll(/'([a-z-]+)'/g)].map((match) => match[1]);
    expect(names.length).toBeGreaterThan(10);
    expect(names).toEqual(listed);
  });
});
