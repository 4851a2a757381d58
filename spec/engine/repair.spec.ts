import { readFileSync } from 'node:fs';
import { keyNames } from '../../lib/engine/keys.js';

// engine.repair drops every index and keeps the records, counters and a few
// registries; repair-start.lua names what it drops. A key added to keys.ts
// must be on one list or the other.

const kept = [
  'tasks',
  'halted-since',
  'attempt-log',
  'sequence',
  'claims',
  'layout',
  'requests',
  'requests-sweep',
  'sweep',
  'filters',
  'filter-seen',
  'meta-indexes',
  'events',
  'signal',
  'outcomes',
  'outcome-expiry',
  'outcome-large',
  'attempts',
  'watch',
  'control',
  'held',
  'followers',
  'held-sweep',
  'unique',
  'unique-expiry',
  'schedules',
  'paused',
  'caps',
  'rates',
  'rate-windows',
  'rate-expiry',
  'paused-queries',
];

describe('repair-start.lua', () => {
  const source = readFileSync(
    new URL('../../lib/engine/lua/repair-start.lua', import.meta.url),
    'utf8',
  );
  // the keys of its UNLINK (it reads kept ones too)
  const unlinked = /redis\.call\('UNLINK',([^)]*)\)/.exec(source)?.[1] ?? '';
  const dropped = [...unlinked.matchAll(/K\['([a-z-]+)'\]/g)].map((match) => match[1] ?? '');

  it('drops every key of the queue that is not kept', () => {
    expect([...dropped, ...kept].sort()).toEqual([...keyNames].sort());
  });

  it('keeps no key it drops', () => {
    expect(dropped.filter((name) => kept.includes(name))).toEqual([]);
  });
});
