import { all, any, has, matches } from '../../lib/matcher/matcher.js';
import { compileKeyPattern, isExactKey } from '../../lib/task/pattern.js';
import { Label } from '../../lib/task/label.js';
import type { Labels } from '../../lib/task/task.js';
import { hasCases } from '../fixtures/matcher-cases.js';

describe('has', () => {
  it.each(hasCases)('$name', ({ labels, query, expected }) => {
    expect(has(labels, query)).toBe(expected);
  });
});

describe('key patterns', () => {
  it.each([
    { pattern: '*', key: 'anything', expected: true },
    { pattern: '*', key: '', expected: true },
    { pattern: '**', key: '', expected: true },
    { pattern: '*x*', key: 'axb', expected: true },
    { pattern: '*x*', key: 'x', expected: true },
    { pattern: '*x*', key: 'ab', expected: false },
    { pattern: '*x', key: 'ax', expected: true },
    { pattern: '*x', key: 'xa', expected: false },
    { pattern: 'x*', key: 'xa', expected: true },
    { pattern: 'x*', key: 'ax', expected: false },
    { pattern: 'x', key: 'x', expected: true },
    { pattern: 'x', key: 'xx', expected: false },
  ])('$pattern against "$key" is $expected', ({ pattern, key, expected }) => {
    expect(compileKeyPattern(pattern)(key)).toBe(expected);
  });

  it('calls a key exact only without a leading or trailing *', () => {
    expect([
      isExactKey('a'),
      isExactKey('a*b'),
      isExactKey('*a'),
      isExactKey('a*'),
      isExactKey('*'),
    ]).toEqual([true, true, false, false, false]);
  });
});

describe('all', () => {
  const labels = {
    'test.api.io/cycles': '5',
    'test.other.io/object': '1',
    'test.api.io/worker': 'a',
  };

  it('returns the union of the labels each pattern matches', () => {
    expect(all(labels, '*.api.io/*')).toEqual({
      'test.api.io/cycles': '5',
      'test.api.io/worker': 'a',
    });
  });

  it('returns undefined when one pattern matches nothing', () => {
    expect(all({ a: '1' }, 'a', 'b')).toBeUndefined();
  });

  it('returns {} with no patterns, also for absent labels', () => {
    expect(all({ a: '1' })).toEqual({});
    expect(all(undefined)).toEqual({});
  });

  it('treats absent labels as {} (a pattern then matches nothing)', () => {
    expect(all(undefined, 'a')).toBeUndefined();
  });

  it('selects the core labels a worker checks ownership with', () => {
    const core = {
      [Label.Object]: '1697760001000-000000000001',
      [Label.Worker]: 'eon',
      [Label.Expiry]: 'x',
    };
    expect(all(core, Label.Object, Label.Worker)).toEqual({
      [Label.Object]: '1697760001000-000000000001',
      [Label.Worker]: 'eon',
    });
  });

  it('keeps a label named __proto__ as an ordinary label', () => {
    const labels = JSON.parse('{"__proto__":"x","a":"1"}') as Record<string, string>;
    const result = all(labels, '*');
    expect(Object.keys(result ?? {})).toEqual(['__proto__', 'a']);
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
  });
});

// docs/semantics.md §2.2 as tables: each row names the labels, the key patterns and the result.
interface SelectCase {
  name: string;
  labels: Labels;
  keys: string[];
  expected: Labels | undefined;
}

const sampled = {
  'test.api.io/cycles': '5',
  'test.other.io/object': '1',
  'test.api.io/worker': 'a',
};

describe('all, table', () => {
  it.each<SelectCase>([
    {
      name: 'the §2.3 example: *.api.io/* selects the two api labels',
      labels: sampled,
      keys: ['*.api.io/*'],
      expected: { 'test.api.io/cycles': '5', 'test.api.io/worker': 'a' },
    },
    {
      name: 'the §2.3 example: a missing b gives undefined',
      labels: { a: '1' },
      keys: ['a', 'b'],
      expected: undefined,
    },
    {
      name: 'overlapping patterns give each label once',
      labels: sampled,
      keys: ['*worker', 'test.api.io/*'],
      expected: { 'test.api.io/cycles': '5', 'test.api.io/worker': 'a' },
    },
    {
      name: 'exact keys take no substrings',
      labels: { 'k-10': 'x' },
      keys: ['k-1'],
      expected: undefined,
    },
    { name: '* on empty labels matches nothing', labels: {}, keys: ['*'], expected: undefined },
    {
      name: '* takes every label',
      labels: { a: '1', b: '' },
      keys: ['*'],
      expected: { a: '1', b: '' },
    },
    { name: 'a prefix pattern', labels: { ab: '1', ba: '2' }, keys: ['a*'], expected: { ab: '1' } },
    { name: 'a suffix pattern', labels: { ab: '1', ba: '2' }, keys: ['*a'], expected: { ba: '2' } },
  ])('$name', ({ labels, keys, expected }) => {
    expect(all(labels, ...keys)).toStrictEqual(expected);
  });
});

describe('any, table', () => {
  it.each<SelectCase>([
    {
      name: 'the §2.3 example: b misses, a* hits',
      labels: { a: '1' },
      keys: ['b', 'a*'],
      expected: { a: '1' },
    },
    {
      name: 'the union of what each pattern matches',
      labels: sampled,
      keys: ['*cycles', '*object'],
      expected: { 'test.api.io/cycles': '5', 'test.other.io/object': '1' },
    },
    {
      name: 'no pattern matching gives undefined',
      labels: sampled,
      keys: ['*.io'],
      expected: undefined,
    },
    { name: 'empty labels give undefined', labels: {}, keys: ['*'], expected: undefined },
    {
      name: 'exact keys take no substrings',
      labels: { 'k-10': 'x' },
      keys: ['k-1'],
      expected: undefined,
    },
  ])('$name', ({ labels, keys, expected }) => {
    expect(any(labels, ...keys)).toStrictEqual(expected);
  });
});

describe('any', () => {
  it('returns the union of the labels matched by any pattern', () => {
    expect(any({ a: '1' }, 'b', 'a*')).toEqual({ a: '1' });
  });

  it('returns undefined when nothing matches or no pattern is given', () => {
    expect(any({ a: '1' }, 'b')).toBeUndefined();
    expect(any({ a: '1' })).toBeUndefined();
    expect(any(undefined, '*')).toBeUndefined();
  });
});

describe('matches', () => {
  const task = { meta: { k: 'v', n: '1' }, node: { [Label.Method]: 'any' }, sync: { s: 'x' } };

  it('is true when every non-empty query map is has-matched', () => {
    expect(matches(task, { meta: { k: 'v' }, node: { [Label.Method]: '*' } })).toBe(true);
  });

  it('is false when one query map fails', () => {
    expect(matches(task, { meta: { k: 'v' }, node: { [Label.Method]: 'all' } })).toBe(false);
  });

  it('ignores absent and empty query maps, so an empty query matches every task', () => {
    expect(matches(task, {})).toBe(true);
    expect(matches(task, { meta: {}, root: {} })).toBe(true);
  });

  it('compares the sync map too', () => {
    expect(matches(task, { sync: { s: 'y' } })).toBe(false);
    expect(matches(task, { sync: { s: 'x' } })).toBe(true);
  });

  it('lets {*:*} be satisfied by an absent map', () => {
    expect(matches(task, { gate: { '*': '*' } })).toBe(true);
    expect(matches(task, { gate: { g: '*' } })).toBe(false);
  });
});
