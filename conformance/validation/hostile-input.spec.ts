import type { Engine } from '../../lib/engine/engine.js';
import {
  LabelValueError,
  RescueError,
  TaskCoreError,
  TaskEmptyError,
  TaskLimitError,
  TaskOutdatedError,
} from '../../lib/errors.js';
import { maxDurationMs } from '../../lib/engine/options.js';
import { Label, Method } from '../../lib/task/label.js';
import { limits } from '../../lib/task/limits.js';
import type { Labels, Task } from '../../lib/task/task.js';
import type { Handler } from '../../lib/worker/handler.js';
import { Worker } from '../../lib/worker/worker.js';
import { expectUnchanged } from '../harness/queue-state.js';
import { useQueue } from '../harness/queue.js';

// Hostile input: what a hostile or careless caller passes gets a typed error and
// writes nothing, or succeeds with what was validated; it never stores a task
// and then throws.

const meta = { k: 'v' };

/** revoked returns a Proxy of the value, already revoked: every operation on it throws. */
function revoked<T extends object>(value: T): T {
  const { proxy, revoke } = Proxy.revocable(value, {});
  revoke();
  return proxy;
}

/** throwing returns an object whose property `name` throws when read. */
function throwing(base: object, name: string): object {
  return Object.defineProperty({ ...base }, name, {
    enumerable: true,
    get() {
      throw new Error(`${name} cannot be read`);
    },
  });
}

/** labels returns a map of n labels k0 … k(n-1). */
function labels(n: number, value = 'v'): Labels {
  return Object.fromEntries(Array.from({ length: n }, (_, index) => [`k${index}`, value]));
}

describe('create never stores and then throws (3.0, 3.1 step 4)', () => {
  const queue = useQueue();

  const getterCore = Object.defineProperty({ meta: { a: 'b' } }, 'core', {
    enumerable: true,
    get: () => ({ [Label.Cancel]: '3' }),
  });
  const refusing = new Proxy(
    { meta: { a: 'b' } },
    {
      set() {
        throw new Error('this object takes no writes');
      },
    },
  );

  it.each([
    ['a frozen task', Object.freeze({ meta: { a: 'b' } })],
    ['a sealed task', Object.seal({ meta: { a: 'b' } })],
    ['a non-extensible task', Object.preventExtensions({ meta: { a: 'b' } })],
    ['a frozen core', { core: Object.freeze({ [Label.Cancel]: '3' }), meta: { a: 'b' } }],
    ['a sealed core', { core: Object.seal({ [Label.Cancel]: '3' }), meta: { a: 'b' } }],
    ['a frozen cron', { cron: Object.freeze({ [Label.Every]: 'hour' }), meta: { a: 'b' } }],
    ['a sealed cron', { cron: Object.seal({ [Label.Every]: 'hour' }), meta: { a: 'b' } }],
    ['a core with only a getter', getterCore],
    ['a proxy whose set trap throws', refusing],
  ])('%s: stores one task and returns it', async (_name, argument) => {
    const eon = queue().engine('eon');
    const created = await eon.create(argument);
    const id = created.core?.[Label.Object];
    expect(id).toMatch(/^\d{13}-\d{12}$/);
    expect(created.node).toEqual({ [Label.Method]: Method.Any });
    // exactly one task, and it is the one returned
    expect(await eon.lister({ meta: { '*': '*' } })).toEqual([created]);
  });

  it('still applies the additions to an ordinary object', async () => {
    const eon = queue().engine('eon');
    const argument: Task = { cron: { [Label.Every]: 'hour' }, meta: { a: 'b' } };
    const created = await eon.create(argument);
    expect(argument).toEqual(created);
  });

  it('applies what it can: a frozen cron keeps its labels, the task still gets core and node', async () => {
    const eon = queue().engine('eon');
    const cron = Object.freeze({ [Label.Every]: 'hour' });
    const argument: Task = { cron, meta: { a: 'b' } };
    const created = await eon.create(argument);
    expect(argument.cron).toEqual({ [Label.Every]: 'hour' });
    expect(argument.core).toEqual(created.core);
    expect(argument.node).toEqual(created.node);
    expect(created.cron?.[Label.TickP1]).toBe('2023-10-20T01:00:00Z');
  });
});

describe('a snapshot is validated and sent (S1, S2)', () => {
  const queue = useQueue();

  it('a label getter answering "ok" then 42 stores "ok" and is read once', async () => {
    const eon = queue().engine('eon');
    let reads = 0;
    const fickle = {
      get k() {
        reads++;
        return reads === 1 ? 'ok' : 42;
      },
    };
    const created = await eon.create({ meta: fickle as unknown as Labels });
    expect(reads).toBe(1);
    expect(created.meta).toEqual({ k: 'ok' });
    expect((await eon.lister({ meta: { k: '*' } })).map((task) => task.meta)).toEqual([
      { k: 'ok' },
    ]);
  });

  it('a label getter answering 42 then "ok" is rejected, and nothing is written', async () => {
    const eon = queue().engine('eon');
    await eon.create({ meta });
    let reads = 0;
    const fickle = Object.defineProperty({}, 'k', {
      enumerable: true,
      get: () => (++reads === 1 ? 42 : 'ok'),
    });
    await expectUnchanged(queue().redis, queue().prefix, async () => {
      await expect(eon.create({ meta: fickle })).rejects.toThrow(LabelValueError);
    });
  });

  it('a map getter answering a map then a number stores the map', async () => {
    const eon = queue().engine('eon');
    let reads = 0;
    const task = Object.defineProperty({}, 'meta', {
      enumerable: true,
      get: () => (++reads === 1 ? { k: 'first' } : 5),
    });
    const created = await eon.create(task);
    expect(created.meta).toEqual({ k: 'first' });
    expect(reads).toBe(1);
  });

  it('a delete copy whose object id getter changes deletes the task it named first', async () => {
    const eon = queue().engine('eon');
    await eon.create({ meta: { n: '1' } });
    await eon.create({ meta: { n: '2' } });
    const first = await eon.search();
    const second = await eon.search();
    const ids = [first?.core?.[Label.Object], second?.core?.[Label.Object]];
    let reads = 0;
    const core = Object.defineProperty(
      { [Label.Worker]: 'eon', [Label.Token]: first?.core?.[Label.Token] ?? '' },
      Label.Object,
      {
        enumerable: true,
        get: () => ids[reads++ === 0 ? 0 : 1],
      },
    );
    await eon.delete({ core: core, meta: { n: '1' } });
    expect((await eon.lister({ meta: { '*': '*' } })).map((task) => task.meta)).toEqual([
      { n: '2' },
    ]);
  });
});

describe('unreadable arguments are typed errors and write nothing (S1, S2)', () => {
  const queue = useQueue();
  const id = '1697760001000-000000000001';
  const owned = { [Label.Object]: id, [Label.Worker]: 'eon', [Label.Cancel]: '2' };

  const calls: [string, (engine: Engine, argument: unknown) => Promise<unknown>, object][] = [
    ['create', (engine, argument) => engine.create(argument as Task), { meta }],
    ['search', (engine, argument) => engine.search(argument as Task), { meta }],
    ['delete', (engine, argument) => engine.delete(argument as Task), { core: owned }],
    ['extend', (engine, argument) => engine.extend(argument as Task), { core: owned }],
    ['cycles', (engine, argument) => engine.cycles(argument as Task), { core: owned }],
    ['exists', (engine, argument) => engine.exists(argument as Task), { meta }],
    ['lister', (engine, argument) => engine.lister(argument as Task), { meta }],
  ];

  const cases: [string, (valid: object) => unknown, new (message: string) => RescueError][] = [
    ['a revoked proxy as the argument', (valid) => revoked(valid), TaskEmptyError],
    [
      'a revoked proxy as a map',
      (valid) => ({ ...valid, sync: revoked({ s: 'x' }) }),
      LabelValueError,
    ],
    ['a map property that throws', (valid) => throwing(valid, 'gate'), LabelValueError],
    [
      'a label that throws',
      (valid) => ({ ...valid, root: throwing({ r: 'x' }, 'r') }),
      LabelValueError,
    ],
    [
      'a map whose ownKeys trap throws',
      (valid) => ({
        ...valid,
        node: new Proxy(
          {},
          {
            ownKeys() {
              throw new Error('no keys');
            },
          },
        ),
      }),
      LabelValueError,
    ],
  ];

  for (const [operation, call, valid] of calls) {
    it.each(cases)(`${operation}: %s`, async (_name, make, error) => {
      const eon = queue().engine('eon');
      await eon.create({ meta });
      await eon.search();
      await expectUnchanged(queue().redis, queue().prefix, async () => {
        await expect(call(eon, make(valid))).rejects.toThrow(error);
      });
    });
  }
});

describe('worker ids and queue names follow the label value rules (1.8)', () => {
  const queue = useQueue();

  it.each(['\ud800', '\udfff', 'eon\ud83d', '\udc00eon'])(
    'a worker id with a lone surrogate (%j) is a TypeError',
    (worker) => {
      expect(() => queue().engine(worker)).toThrow(TypeError);
      expect(() => queue().engine(worker)).toThrow(/"worker" holds a lone UTF-16 surrogate/);
    },
  );

  it.each(['}', '}abc', 'a}b', 'abc}'])('a queue name with "}" (%j) is a TypeError', (name) => {
    expect(() => queue().engine('eon', { queue: name })).toThrow(TypeError);
    expect(() => queue().engine('eon', { queue: name })).toThrow(/"}"/);
  });

  it('a queue name with a lone surrogate is a TypeError', () => {
    expect(() => queue().engine('eon', { queue: 'q\ud800' })).toThrow(TypeError);
  });

  it('worker ids beyond the value limit and queue names beyond the key limit are TypeErrors', () => {
    expect(() => queue().engine('w'.repeat(limits.valueBytes + 1))).toThrow(TypeError);
    expect(() => queue().engine('eon', { queue: 'q'.repeat(limits.keyBytes + 1) })).toThrow(
      TypeError,
    );
  });

  it('an expiry beyond what a timer waits, or a cleanup beyond 100 years, is a RangeError', () => {
    const { expiry, cleanup } = maxDurationMs;
    expect(() => queue().engine('eon', { expiry: Number.MAX_SAFE_INTEGER })).toThrow(RangeError);
    expect(() => queue().engine('eon', { expiry: expiry + 1 })).toThrow(/at most 2,147,483,647/);
    expect(() => queue().engine('eon', { cleanup: cleanup + 1 })).toThrow(RangeError);
    expect(queue().engine('eon', { expiry, cleanup }).worker).toBe('eon');
  });

  it('two worker ids that differ only in astral characters are two owners', async () => {
    const eon = queue().engine('\u{1F600}');
    const etw = queue().engine('\u{1F601}');
    await eon.create({ meta });
    const claimed = await eon.search();
    expect(claimed?.core?.[Label.Worker]).toBe('\u{1F600}');
    const stolen = { ...claimed, core: { ...claimed?.core, [Label.Worker]: '\u{1F601}' } };
    await expect(etw.delete(stolen)).rejects.toThrow(TaskOutdatedError);
    await eon.delete(claimed as Task);
    expect(await eon.lister({ meta: { '*': '*' } })).toEqual([]);
  });

  it('a uni target with a lone surrogate is a LabelValueError', async () => {
    const eon = queue().engine('eon');
    await expectUnchanged(queue().redis, queue().prefix, async () => {
      await expect(
        eon.create({ meta, node: { [Label.Method]: Method.Uni, [Label.Worker]: '\ud800' } }),
      ).rejects.toThrow(LabelValueError);
    });
  });

  it('a copy whose owner has a lone surrogate is a LabelValueError', async () => {
    const eon = queue().engine('eon');
    const created = await eon.create({ meta });
    await eon.search();
    const copy = { ...created, core: { ...created.core, [Label.Worker]: '\ud800' } };
    await expectUnchanged(queue().redis, queue().prefix, async () => {
      await expect(eon.delete(copy)).rejects.toThrow(LabelValueError);
      await expect(eon.extend(copy)).rejects.toThrow(LabelValueError);
    });
  });
});

describe('size limits (S3): a TaskLimitError before anything reaches Redis', () => {
  const queue = useQueue();

  /** eon with one task stored and claimed: the copy it returns. */
  async function claimed(): Promise<{ eon: Engine; task: Task }> {
    const eon = queue().engine('eon');
    await eon.create({ core: { [Label.Cancel]: '5' }, meta });
    const task = await eon.search();
    if (task === undefined) throw new Error('nothing claimed');
    return { eon, task };
  }

  async function expectRejected(call: () => Promise<unknown>, message: RegExp): Promise<void> {
    await expectUnchanged(queue().redis, queue().prefix, async () => {
      await expect(call()).rejects.toThrow(TaskLimitError);
      await expect(call()).rejects.toThrow(message);
    });
  }

  const huge = 'x'.repeat(limits.valueBytes - 10);
  const tooBig = { meta: labels(Math.ceil(limits.taskBytes / limits.valueBytes) + 1, huge) };

  it('create: labels per map, at the limit and one beyond', async () => {
    const { eon } = await claimed();
    await expect(eon.create({ meta: labels(limits.labelsPerMap) })).resolves.toBeDefined();
    await expectRejected(
      () => eon.create({ meta: labels(limits.labelsPerMap + 1) }),
      /create: Task\.meta holds 257 labels; the limit is 256 labels per map/,
    );
    await expectRejected(
      () => eon.create({ meta, sync: labels(limits.labelsPerMap + 1) }),
      /Task\.sync holds 257/,
    );
  });

  it('create: pairs per root', async () => {
    const { eon } = await claimed();
    await expect(eon.create({ meta, root: labels(limits.pairsPerRoot) })).resolves.toBeDefined();
    await expectRejected(
      () => eon.create({ meta, root: labels(limits.pairsPerRoot + 1) }),
      /Task\.root holds 33 pairs; the limit is 32 pairs per root/,
    );
  });

  it('create: bytes per key, counted in UTF-8', async () => {
    const { eon } = await claimed();
    await expect(
      eon.create({ meta: { ['k'.repeat(limits.keyBytes)]: 'v' } }),
    ).resolves.toBeDefined();
    await expectRejected(
      () => eon.create({ meta: { ['k'.repeat(limits.keyBytes + 1)]: 'v' } }),
      /Task\.meta key "k{40}"… is 1,025 bytes; the limit is 1,024 bytes per key/,
    );
    // 342 characters of 3 bytes each: 1,026 bytes
    await expectRejected(() => eon.create({ meta: { ['€'.repeat(342)]: 'v' } }), /is 1,026 bytes/);
  });

  it('create: bytes per value', async () => {
    const { eon } = await claimed();
    await expectRejected(
      () => eon.create({ meta: { k: 'v'.repeat(limits.valueBytes + 1) } }),
      /Task\.meta label "k" has a value of 65,537 bytes; the limit is 65,536 bytes per value/,
    );
  });

  it('create: bytes per task', async () => {
    const { eon } = await claimed();
    await expectRejected(
      () => eon.create(tooBig),
      /create: the task is more than 1,048,576 bytes of JSON \([\d,]+ counted so far\); the limit is 1,048,576 bytes per task/,
    );
  });

  it('delete: a copy whose requeued maps break a limit is rejected and the task stays owned', async () => {
    const { eon, task } = await claimed();
    const paging = { ...task, sync: { ...labels(limits.labelsPerMap), [Label.Paging]: '2' } };
    await expectRejected(() => eon.delete(paging), /delete: Task\.sync holds 257 labels/);
    const deferred = { ...task, cron: { [Label.Defer]: '1 hour' }, meta: tooBig.meta };
    await expectRejected(
      () => eon.delete(deferred),
      /delete: the task is more than 1,048,576 bytes/,
    );
    expect(await eon.exists({ core: { [Label.Worker]: 'eon' } })).toBe(true);
  });

  it('extend and cycles: copies are tasks, too', async () => {
    const { eon, task } = await claimed();
    const big = { ...task, meta: labels(limits.labelsPerMap + 1) };
    await expectRejected(() => eon.extend(big), /extend: Task\.meta holds 257 labels/);
    await expectRejected(() => eon.cycles(big), /cycles: Task\.meta holds 257 labels/);
  });

  it.each([
    ['exists', (engine: Engine, query: Task) => engine.exists(query)],
    ['lister', (engine: Engine, query: Task) => engine.lister(query)],
    ['search', (engine: Engine, query: Task) => engine.search(query)],
  ])('%s: pairs per query map', async (operation, call) => {
    const { eon } = await claimed();
    const atLimit = call(eon, { meta: labels(limits.pairsPerQueryMap) }).then(() => 'answered');
    await expect(atLimit).resolves.toBe('answered');
    await expectRejected(
      () => call(eon, { meta: labels(limits.pairsPerQueryMap + 1) }),
      new RegExp(`${operation}: Task\\.meta holds 65 pairs; the limit is 64 pairs per query map`),
    );
    await expectRejected(
      () => call(eon, { meta: { k: 'v'.repeat(limits.valueBytes + 1) } }),
      /65,537 bytes/,
    );
  });

  it('pattern pairs: per query over all its maps, and per root', async () => {
    const { eon } = await claimed();
    const eight = {
      meta: { 'a*': '*', '*b': '*', '*c*': '*', '*': 'x', exact: '*' },
      node: { 'n*': '*', '*o': '*', '**': 'y', 'm*': 'y', exact: 'y' },
    };
    await expect(eon.exists(eight)).resolves.toBe(false);
    const nine = { ...eight, cron: { 'c*': '*' } };
    await expectRejected(
      () => eon.exists(nine),
      /exists: the query has 9 pairs with a pattern key .*; the limit is 8 pattern pairs per query/,
    );
    const root = Object.fromEntries(Array.from({ length: 9 }, (_, index) => [`r${index}*`, 'x']));
    await expectRejected(
      () => eon.create({ meta, root }),
      /create: Task\.root has 9 pairs with a pattern key/,
    );
  });

  it('limits come right after the shape rules: before C2, after S2', async () => {
    const { eon } = await claimed();
    const manyAndCore = { core: { [Label.Worker]: 'x' }, meta: labels(limits.labelsPerMap + 1) };
    await expectRejected(() => eon.create(manyAndCore), /holds 257 labels/);
    const manyAndNumber = { meta: { ...labels(limits.labelsPerMap + 1), bad: 5 } };
    await expect(eon.create(manyAndNumber as unknown as Task)).rejects.toThrow(LabelValueError);
    const noObjectId = { core: { [Label.Worker]: 'eon' }, meta: labels(limits.labelsPerMap + 1) };
    await expect(eon.delete(noObjectId)).rejects.toThrow(TaskLimitError);
    await expect(eon.delete({ core: { [Label.Worker]: 'eon' } })).rejects.toThrow(TaskCoreError);
  });
});

describe('Worker arguments are checked at construction', () => {
  const queue = useQueue();
  const handler: Handler = { filter: () => true, ensure: () => Promise.resolve() };

  it('options null means the defaults', () => {
    expect(new Worker(queue().engine('eon'), [handler], null)).toBeInstanceOf(Worker);
  });

  it.each([
    ['no engine', undefined],
    ['a plain object', { worker: 'eon' }],
    ['a revoked proxy', revoked({})],
  ])('an engine that is %s is a TypeError', (_name, engine) => {
    expect(() => new Worker(engine as never, [handler])).toThrow(TypeError);
    expect(() => new Worker(engine as never, [handler])).toThrow(/Worker: the engine/);
  });

  it.each([
    ['a string', 'x'],
    ['undefined', undefined],
    ['an object', { 0: handler }],
    ['a revoked proxy of an array', revoked([handler])],
    ['an array holding {}', [{}]],
    ['an array holding null', [null]],
    ['a handler without ensure', [{ filter: () => true }]],
    ['a handler whose filter is a string', [{ filter: 'yes', ensure: () => Promise.resolve() }]],
    ['a handler that cannot be read', [revoked({ ...handler })]],
  ])('handlers that are %s are a TypeError', (_name, handlers) => {
    expect(() => new Worker(queue().engine('eon'), handlers as never)).toThrow(TypeError);
    expect(() => new Worker(queue().engine('eon'), handlers as never)).toThrow(/Worker: handler/);
  });

  it.each([
    ['a string', 'x', TaskEmptyError],
    ['a map that is a number', { meta: 5 }, LabelValueError],
    ['too many pairs', { meta: labels(limits.pairsPerQueryMap + 1) }, TaskLimitError],
  ])('handler labels that are %s are a RescueError', (_name, handlerLabels, error) => {
    const handlers = [{ ...handler, labels: handlerLabels }];
    expect(() => new Worker(queue().engine('eon'), handlers as never)).toThrow(error);
  });

  it.each([
    ['2 ** 40', 2 ** 40],
    ['one beyond the bound', 1_001],
  ])('concurrency %s is a RangeError', (_name, concurrency) => {
    expect(() => new Worker(queue().engine('eon'), [handler], { concurrency })).toThrow(RangeError);
  });

  it('concurrency 1,000 is accepted', () => {
    const worker = new Worker(queue().engine('eon'), [handler], { concurrency: 1_000 });
    expect(worker).toBeInstanceOf(Worker);
  });

  it.each(['pollInterval', 'expireInterval', 'tickerInterval', 'stopTimeout'])(
    '%s beyond what a timer can wait is a RangeError',
    (name) => {
      const options = { [name]: 2 ** 31 };
      expect(() => new Worker(queue().engine('eon'), [handler], options)).toThrow(RangeError);
    },
  );

  it.each([
    ['a string', 'fast'],
    ['a revoked proxy', revoked({})],
  ])('options that are %s are a TypeError', (_name, options) => {
    expect(() => new Worker(queue().engine('eon'), [handler], options as never)).toThrow(
      /Worker options/,
    );
  });
});
