import fc from 'fast-check';
import {
  LabelValueError,
  TaskCoreError,
  TaskLimitError,
  TaskMetaEmptyError,
} from '../../lib/errors.js';
import { Label } from '../../lib/task/label.js';
import { checkLimits, jsonBytes, limits, type ArgumentKind } from '../../lib/task/limits.js';
import { mapNames, type Labels, type Task } from '../../lib/task/task.js';
import {
  validateCreate,
  validateDelete,
  validateExists,
  validateFilter,
  validateLister,
} from '../../lib/task/validate.js';

const now = new Date('2023-10-20T00:00:01Z');

function labels(n: number, value = 'v'): Labels {
  return Object.fromEntries(Array.from({ length: n }, (_, index) => [`k${index}`, value]));
}

describe('the limits (S3)', () => {
  it('are the documented defaults', () => {
    expect(limits).toEqual({
      labelsPerMap: 256,
      pairsPerRoot: 32,
      pairsPerQueryMap: 64,
      patternPairs: 8,
      keyBytes: 1_024,
      valueBytes: 65_536,
      taskBytes: 1_048_576,
      payloadBytes: 65_536,
      payloadDepth: 64,
    });
  });

  it('accept every map at its limits', () => {
    const full = labels(limits.labelsPerMap);
    expect(() => validateCreate({ meta: full, sync: full }, now)).not.toThrow();
    expect(() => validateCreate({ meta: { k: 'x'.repeat(limits.valueBytes) } }, now)).not.toThrow();
    expect(() =>
      validateCreate({ meta: { ['k'.repeat(limits.keyBytes)]: 'v' } }, now),
    ).not.toThrow();
    expect(() => validateCreate({ meta, root: labels(limits.pairsPerRoot) }, now)).not.toThrow();
    expect(() => validateExists({ meta: labels(limits.pairsPerQueryMap) })).not.toThrow();
  });

  it('count a key or value in UTF-8 bytes: an astral character is 4', () => {
    const astral = '\u{1F600}'.repeat(limits.keyBytes / 4); // 1,024 bytes, 512 UTF-16 units
    expect(() => validateCreate({ meta: { [astral]: 'v' } }, now)).not.toThrow();
    expect(() => validateCreate({ meta: { [`${astral}x`]: 'v' } }, now)).toThrow(
      /is 1,025 bytes; the limit is 1,024 bytes per key/,
    );
  });

  it('count a task in bytes of its JSON: a control character is 6', () => {
    // three values of 60,000 bytes each, 360,000 bytes each as JSON (\u0001)
    const task = { meta: labels(3, '\u0001'.repeat(60_000)) };
    expect(() => validateCreate(task, now)).toThrow(
      'create: the task is more than 1,048,576 bytes of JSON (1,080,032 counted so far)',
    );
  });

  it('name the map, the limit and the actual value', () => {
    expect(() => validateCreate({ meta, gate: labels(300, 'trigger') }, now)).toThrow(
      'create: Task.gate holds 300 labels; the limit is 256 labels per map',
    );
    expect(() => validateLister({ node: labels(70) })).toThrow(
      'lister: Task.node holds 70 pairs; the limit is 64 pairs per query map',
    );
    expect(() => validateFilter({ sync: { s: 'v'.repeat(70_000) } })).toThrow(
      'search: Task.sync label "s" has a value of 70,000 bytes; the limit is 65,536 bytes per value',
    );
  });

  it('count the pattern pairs of a query over all its maps, and of a root', () => {
    const patterns = (n: number, from = 0) =>
      Object.fromEntries(Array.from({ length: n }, (_, index) => [`p${from + index}*`, '*']));
    const query = { meta: { ...patterns(5), exact: 'x' }, node: patterns(4, 5) };
    expect(() => validateExists(query)).toThrow(
      'exists: the query has 9 pairs with a pattern key ("*", "*x*", "*x", "x*"); the limit is 8 pattern pairs per query',
    );
    expect(() => validateFilter({ meta: patterns(8), node: { exact: '*' } })).not.toThrow();
    expect(() => validateCreate({ meta, root: patterns(9) }, now)).toThrow(
      'create: Task.root has 9 pairs with a pattern key ("*", "*x*", "*x", "x*"); the limit is 8 pattern pairs per root',
    );
    // only a root walks other labels: patterns in other maps of a task are plain keys
    expect(() => validateCreate({ meta: patterns(20) }, now)).not.toThrow();
  });

  it('come after the shape rules and before every other rule', () => {
    const many = labels(limits.labelsPerMap + 1);
    // S2 first: a number value decides even beside a map over its limit
    expect(() => validateCreate({ meta: { ...many, n: 1 } }, now)).toThrow(LabelValueError);
    // S3 before C2 (core with a worker) and C4 (no meta)
    expect(() => validateCreate({ core: { [Label.Worker]: 'x' }, sync: many }, now)).toThrow(
      TaskLimitError,
    );
    // S3 before DL2 (no object id), X2 and L3 (nothing to select)
    expect(() => validateDelete({ sync: many })).toThrow(TaskLimitError);
    expect(() => validateExists({ sync: labels(65) })).toThrow(TaskLimitError);
    expect(() => validateLister({ sync: labels(65) })).toThrow(TaskLimitError);
    expect(() => validateDelete({ sync: labels(3) })).toThrow(TaskCoreError);
    expect(() => validateExists({ sync: labels(3) })).toThrow(TaskMetaEmptyError);
  });

  // The quick bound skips the exact count for most arguments: it must never
  // let through what the exact count rejects, nor reject what it accepts.
  it('agree with a plain count on random arguments', () => {
    const text = fc.string({
      unit: fc.constantFrom('a', '*', '\u0001', '"', 'é', '€', '\u{1F600}'),
      maxLength: 40,
    });
    const repeated = (times: number) =>
      fc.tuple(text, fc.integer({ min: 0, max: times })).map(([t, n]) => t.repeat(n));
    // around each limit: keys near 1 KiB, values near 64 KiB, maps near 32, 64 and 256 labels
    const mixed = fc.dictionary(fc.oneof(text, repeated(100)), fc.oneof(text, repeated(5_000)), {
      maxKeys: 8,
    });
    const many = fc.dictionary(fc.string({ maxLength: 6 }), text, { minKeys: 20, maxKeys: 270 });
    const task = fc.record(
      Object.fromEntries(mapNames.map((name) => [name, fc.oneof(mixed, many)])) as Record<
        (typeof mapNames)[number],
        fc.Arbitrary<Labels>
      >,
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(task, fc.constantFrom<ArgumentKind>('task', 'query'), (argument, kind) => {
        expect(throwsLimit(() => checkLimits('x', argument, kind))).toBe(
          beyondLimits(argument, kind),
        );
        // counted label by label, the JSON's bytes are exact
        expect(jsonBytes(argument, Infinity)).toBe(Buffer.byteLength(JSON.stringify(argument)));
      }),
      { numRuns: 200 },
    );
  });
});

const meta = { k: 'v' };

function throwsLimit(check: () => void): boolean {
  try {
    check();
    return false;
  } catch (error) {
    if (error instanceof TaskLimitError) return true;
    throw error;
  }
}

/** The limits, counted the plain way. */
function beyondLimits(task: Task, kind: ArgumentKind): boolean {
  let patterns = 0;
  for (const name of mapNames) {
    const map = task[name];
    if (map === undefined) continue;
    const size = Object.keys(map).length;
    const limit =
      kind === 'query'
        ? limits.pairsPerQueryMap
        : name === 'root'
          ? limits.pairsPerRoot
          : limits.labelsPerMap;
    if (size > limit) return true;
    for (const [key, value] of Object.entries(map)) {
      if (Buffer.byteLength(key) > limits.keyBytes) return true;
      if (Buffer.byteLength(value) > limits.valueBytes) return true;
      const pattern = key.startsWith('*') || key.endsWith('*');
      if (pattern && (kind === 'query' || name === 'root')) patterns++;
    }
  }
  if (patterns > limits.patternPairs) return true;
  return Buffer.byteLength(JSON.stringify(task)) > limits.taskBytes;
}
