import fc from 'fast-check';
import type { Engine } from '../../lib/engine/engine.js';
import { RescueError } from '../../lib/errors.js';
import { Label } from '../../lib/task/label.js';
import { limits } from '../../lib/task/limits.js';
import type { Task } from '../../lib/task/task.js';
import { Worker } from '../../lib/worker/worker.js';
import { dumpQueue } from '../harness/queue-state.js';
import { useQueue, type TestQueue } from '../harness/queue.js';

// Hostile input, as a property: random hostile objects (frozen, sealed, proxies,
// revoked proxies, getters that change their answer or throw, null
// prototypes, class instances, arrays, maps and values beyond the limits,
// lone surrogates, prototype names as keys) thrown at every public call. Each
// call succeeds or rejects with a RescueError (the Worker constructor also
// with its own TypeError or RangeError), never a raw TypeError or a Redis
// ReplyError, and a call that rejects leaves the queue's keys byte-identical.

const text = fc.oneof(
  fc.constantFrom(
    '',
    'v',
    '*',
    'k*',
    '}',
    '\ud800',
    '\udfff',
    '\u{1F600}',
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    'trigger',
    'waiting',
    'any',
    'uni',
    'hour',
    '1 hour',
    '2',
    '2023-10-20T01:00:00Z',
    ...Object.values(Label),
  ),
  fc.string({
    unit: fc.oneof(
      fc.constantFrom('a', '*', '.', '\u0000', 'é', '\u{1F600}'),
      fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit)),
    ),
    maxLength: 6,
  }),
);

const key = fc.oneof(
  { weight: 20, arbitrary: text },
  { weight: 1, arbitrary: fc.constant('k'.repeat(limits.keyBytes + 1)) },
);

const value = fc.oneof(
  { weight: 20, arbitrary: text },
  { weight: 1, arbitrary: fc.constant('v'.repeat(limits.valueBytes + 1)) },
  { weight: 2, arbitrary: fc.constantFrom<unknown>(1, null, undefined, true, {}, [], 10n) },
);

class Instance {
  k = 'v';
}

/** A wrapper turns a plain object into something hostile that may still look like it. */
type Wrapper = (target: Record<string, unknown>) => unknown;

const wrappers: Record<string, Wrapper> = {
  plain: (target) => target,
  frozen: (target) => Object.freeze(target),
  sealed: (target) => Object.seal(target),
  nonExtensible: (target) => Object.preventExtensions(target),
  nullPrototype: (target) => Object.setPrototypeOf(target, null) as unknown,
  proxy: (target) => new Proxy(target, {}),
  revoked: (target) => {
    const { proxy, revoke } = Proxy.revocable(target, {});
    revoke();
    return proxy;
  },
  // every property a getter: the real value first, then something else
  fickle: (target) => withGetters(target, (real, reads) => (reads === 1 ? real : 42)),
  throwing: (target) =>
    withGetters(target, () => {
      throw new Error('this property cannot be read');
    }),
  instance: (target) => Object.assign(new Instance(), target),
  array: (target) => Object.assign([], target),
};

function withGetters(
  target: Record<string, unknown>,
  answer: (real: unknown, reads: number) => unknown,
): object {
  const result = {};
  for (const name of Object.keys(target)) {
    let reads = 0;
    Object.defineProperty(result, name, {
      enumerable: true,
      configurable: true,
      get: () => answer(target[name], ++reads),
    });
  }
  return result;
}

/** An object built with defineProperty, so `__proto__` becomes an own key. */
function objectOf(entries: [string, unknown][]): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [name, entry] of entries) {
    Object.defineProperty(result, name, {
      value: entry,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return result;
}

const wrapper = fc.oneof(
  { weight: 8, arbitrary: fc.constant(wrappers['plain'] as Wrapper) },
  { weight: 6, arbitrary: fc.constantFrom(...Object.values(wrappers)) },
);

/**
 * A Spec describes a hostile object; realize builds it inside the property,
 * anew for each run (fast-check must never hold a revoked proxy or a throwing
 * getter: it inspects and prints what it generates).
 */
interface Spec {
  entries: [string, unknown][];
  wrap: Wrapper;
}

function spec([entries, wrap]: [[string, unknown][], Wrapper]): Spec {
  return { entries, wrap };
}

/** The seeded task's core, so delete, extend and cycles sometimes name a task eon owns. */
const seededCore = Symbol('seeded core');

function realize(generated: unknown, core: Record<string, string>): unknown {
  if (generated === seededCore) return { ...core };
  if (typeof generated !== 'object' || generated === null || !('wrap' in generated)) {
    return generated;
  }
  const { entries, wrap } = generated as Spec;
  return wrap(
    objectOf(entries.map(([name, entry]): [string, unknown] => [name, realize(entry, core)])),
  );
}

const many = Array.from({ length: limits.labelsPerMap + 1 }, (_, index): [string, unknown] => [
  `k${index}`,
  'v',
]);
const oversized = Array.from({ length: 17 }, (_, index): [string, unknown] => [
  `k${index}`,
  'x'.repeat(limits.valueBytes - 8),
]);

const map = fc
  .oneof(
    { weight: 12, arbitrary: fc.tuple(fc.array(fc.tuple(key, value), { maxLength: 4 }), wrapper) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(many, oversized), wrapper) },
  )
  .map(spec);

const mapSlot = fc.oneof(
  { weight: 6, arbitrary: map },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(undefined, null, 'k=v', 5, [], new Map()) },
);

const task = fc
  .tuple(
    fc.record(
      {
        core: fc.oneof(mapSlot, fc.constant<unknown>(seededCore)),
        cron: mapSlot,
        gate: mapSlot,
        meta: fc.oneof(mapSlot, fc.constant<unknown>({ k: 'v' })),
        node: mapSlot,
        root: mapSlot,
        sync: mapSlot,
        extra: value,
      },
      { requiredKeys: [] },
    ),
    wrapper,
  )
  .map(([maps, wrap]) => spec([Object.entries(maps), wrap]));

const argument = fc.oneof(
  { weight: 12, arbitrary: task },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>(undefined, null, 'task', 42, [], new Instance()),
  },
);

type Call = (engine: Engine, argument: unknown) => Promise<unknown>;

const calls: [string, Call][] = [
  ['create', (engine, argument) => engine.create(argument as Task)],
  ['search', (engine, argument) => engine.search(argument as Task)],
  ['delete', (engine, argument) => engine.delete(argument as Task)],
  ['extend', (engine, argument) => engine.extend(argument as Task)],
  ['cycles', (engine, argument) => engine.cycles(argument as Task)],
  ['exists', (engine, argument) => engine.exists(argument as Task)],
  ['lister', (engine, argument) => engine.lister(argument as Task)],
];

/** A task eon owns, stored for each run: its core (cancel included, for cycles). */
async function seed(eon: Engine): Promise<Record<string, string>> {
  await eon.create({ core: { [Label.Cancel]: '3' }, meta: { seeded: 'yes' } });
  const claimed = await eon.search({ meta: { seeded: 'yes' } });
  return { ...claimed?.core };
}

async function expectTypedOrSuccess(
  q: TestQueue,
  eon: Engine,
  [name, call]: [string, Call],
  generated: unknown,
): Promise<void> {
  const given = realize(generated, await seed(eon));
  const before = await dumpQueue(q.redis, q.prefix);
  let outcome: { ok: true; value: unknown } | { ok: false; error: unknown };
  try {
    outcome = { ok: true, value: await call(eon, given) };
  } catch (error) {
    outcome = { ok: false, error };
  }
  if (!outcome.ok) {
    expect(outcome.error).toBeInstanceOf(RescueError);
    expect(await dumpQueue(q.redis, q.prefix)).toEqual(before);
    return;
  }
  if (name === 'create') {
    // what was validated is what was stored, and what create returned
    const created = outcome.value as Task;
    const stored = await eon.lister({ meta: { '*': '*' } });
    const id = created.core?.[Label.Object];
    expect(stored.find((entry) => entry.core?.[Label.Object] === id)).toEqual(created);
  }
}

/** ours: an error the Worker constructor documents (a RescueError, or its TypeError / RangeError). */
function ours(error: unknown): boolean {
  return (
    error instanceof RescueError ||
    ((error instanceof TypeError || error instanceof RangeError) &&
      error.message.startsWith('Worker'))
  );
}

describe('hostile arguments: a typed error or success, and nothing written on reject', () => {
  const queue = useQueue();

  it.each(calls)('%s', async (name, call) => {
    const q = queue();
    const eon = q.engine('eon');
    await fc.assert(
      fc.asyncProperty(argument, (generated) =>
        expectTypedOrSuccess(q, eon, [name, call], generated),
      ),
      { numRuns: 40 },
    );
  });

  it('new Worker', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const handler = fc
      .tuple(
        fc.record(
          {
            filter: fc.constantFrom<unknown>(() => true, 'yes', undefined),
            ensure: fc.constantFrom<unknown>(() => Promise.resolve(), 5, undefined),
            labels: fc.oneof(fc.constant(undefined), argument),
          },
          { requiredKeys: [] },
        ),
        wrapper,
      )
      .map(([fields, wrap]) => spec([Object.entries(fields), wrap]));
    const lists: ((entries: unknown[]) => unknown)[] = [
      (entries) => entries,
      (entries) => Object.freeze(entries),
      (entries) => new Proxy(entries, {}),
      (entries) => wrappers['revoked']?.(entries as never),
      (entries) => Object.assign({}, entries),
      () => 'x',
    ];
    const handlers = fc.tuple(
      fc.array(handler, { maxLength: 3 }),
      fc.oneof(
        { weight: 6, arbitrary: fc.constant(lists[0]) },
        { weight: 4, arbitrary: fc.constantFrom(...lists) },
      ),
    );
    const number = fc.oneof(
      fc.integer({ min: -5, max: 2_000 }),
      fc.constantFrom<unknown>(2 ** 31, 2 ** 40, 0.5, Number.NaN, Infinity, '4', null),
    );
    const options = fc.oneof(
      fc.constantFrom<unknown>(undefined, null, 'fast', 7),
      fc
        .tuple(
          fc.record(
            {
              concurrency: number,
              pollInterval: number,
              expireInterval: number,
              stopTimeout: number,
              timeScale: number,
              autoExtend: fc.constantFrom<unknown>(true, 'yes'),
            },
            { requiredKeys: [] },
          ),
          wrapper,
        )
        .map(([fields, wrap]) => spec([Object.entries(fields), wrap])),
    );
    const engine = fc.constantFrom<unknown>(eon, undefined, {}, eon.worker);
    const before = await dumpQueue(q.redis, q.prefix);
    fc.assert(
      fc.property(engine, handlers, options, (given, [specs, wrapList], settings) => {
        const list = wrapList?.(specs.map((entry) => realize(entry, {})));
        try {
          const worker = new Worker(given as Engine, list as never, realize(settings, {}) as never);
          expect(worker).toBeInstanceOf(Worker);
        } catch (error) {
          if (!ours(error)) throw error;
        }
      }),
      { numRuns: 300 },
    );
    expect(await dumpQueue(q.redis, q.prefix)).toEqual(before);
  });
});
