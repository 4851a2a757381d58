import { runInNewContext } from 'node:vm';
import {
  LabelReservedError,
  LabelValueError,
  TaskCoreError,
  TaskEmptyError,
  TaskCronError,
  TaskGateError,
  TaskMetaEmptyError,
  TaskNodeError,
} from '../../lib/errors.js';
import { Label } from '../../lib/task/label.js';
import { readTask } from '../../lib/task/snapshot.js';
import {
  validateCreate,
  validateCycles,
  validateDelete,
  validateExists,
  validateExtend,
  validateFilter,
  validateLister,
} from '../../lib/task/validate.js';
import {
  createRejects,
  cyclesRejects,
  deleteRejects,
  existsRejects,
  extendRejects,
  listerRejects,
  searchRejects,
  validationNow,
  type RejectCase,
} from '../fixtures/validation-cases.js';

const now = validationNow;
const meta = { k: 'v' };

function name(c: RejectCase): string {
  return `${c.rule}: rejects ${c.name} with ${c.error.name}`;
}

describe('create validation', () => {
  it.each(createRejects.map((c) => [name(c), c] as const))('%s', (_name, c) => {
    expect(() => validateCreate(c.argument, now)).toThrow(c.error);
  });

  it.each([
    ['a minimal task', { meta }],
    ['cancel "05"', { core: { [Label.Cancel]: '05' }, meta }],
    ['cancel 2^53-1', { core: { [Label.Cancel]: '9007199254740991' }, meta }],
    [
      'method uni with its worker',
      { meta, node: { [Label.Method]: 'uni', [Label.Worker]: 'eon' } },
    ],
    ['a cron with only tick+1', { cron: { [Label.TickP1]: 'whatever' }, meta }],
    ['a cron with only tick-1', { cron: { [Label.TickM1]: 'whatever' }, meta }],
    [
      'waiting values without cron (a gate template)',
      { gate: { a: 'waiting', b: 'waiting' }, meta },
    ],
    [
      'an @every with whitespace around its words',
      { cron: { [Label.Every]: '  2   hours ' }, meta },
    ],
    ['an @every in a zone', { cron: { [Label.Every]: '0 8 * * 1-5 in Europe/Berlin' }, meta }],
    ['a cron with a user key', { cron: { foo: 'bar' }, meta }],
    ['an empty gate (a template that never fires)', { gate: {}, meta }],
    ['trigger values with cron', { cron: { [Label.Every]: 'hour' }, gate: { g: 'trigger' }, meta }],
    ['the paging key in sync', { meta, sync: { [Label.Paging]: 'anything' } }],
    ['a root with patterns', { meta, root: { '*': 'foo' } }],
    ['a symbol-keyed property (not a key of the task)', { meta, [Symbol('x')]: 1 }],
    ['a non-enumerable property', Object.defineProperty({ meta }, 'extra', { value: 1 })],
    ['paging as a user key of sync', { meta, sync: { paging: '1' } }],
    ['every as a user key of meta (no @)', { meta: { every: 'hour' } }],
    ['@exact as a Date', { cron: { [Label.Exact]: new Date('2023-10-20T00:00:02Z') }, meta }],
    ['null maps, read as absent', { meta, root: null, cron: null }],
    ['@exact one ms after now', { cron: { [Label.Exact]: '2023-10-20T00:00:01.001Z' }, meta }],
    ['@exact as an offset', { cron: { [Label.Exact]: '2023-10-20T02:00:02+02:00' }, meta }],
    ['@exact zone-less, read as UTC', { cron: { [Label.Exact]: '2023-10-20T00:00:02' }, meta }],
  ])('accepts %s', (_name, task) => {
    expect(() => validateCreate(task, now)).not.toThrow();
  });

  it('computes the first ticks of a cron template from now', () => {
    const { plan } = validateCreate(
      { cron: { [Label.Every]: 'hour' }, meta },
      new Date('2023-10-20T00:00:03Z'),
    );
    expect(plan.ticks?.tickM1.toISOString()).toBe('2023-10-20T00:00:00.000Z');
    expect(plan.ticks?.tickP1.toISOString()).toBe('2023-10-20T01:00:00.000Z');
  });

  it('returns the instant an @exact task becomes due', () => {
    const { plan } = validateCreate(
      { cron: { [Label.Exact]: '2023-10-20T02:00:02+02:00' }, meta },
      now,
    );
    expect(plan.exactAt?.toISOString()).toBe('2023-10-20T00:00:02.000Z');
  });

  it('copies the maps it returns', () => {
    const argument = { meta: { k: 'v' } };
    const { task } = validateCreate(argument, now);
    expect(task).toEqual({ meta: { k: 'v' } });
    expect(task.meta).not.toBe(argument.meta);
  });

  it('stores a Date for @exact as formatTime of it, of any realm, and plans its due time', () => {
    for (const at of [
      new Date('2023-10-20T02:00:02.500Z'),
      runInNewContext('new Date("2023-10-20T02:00:02.500Z")') as Date,
    ]) {
      const { task, plan } = validateCreate({ cron: { [Label.Exact]: at }, meta }, now);
      expect(task.cron).toEqual({ [Label.Exact]: '2023-10-20T02:00:02.5Z' });
      expect(plan.exactAt?.toISOString()).toBe('2023-10-20T02:00:02.500Z');
    }
  });

  it('reads a Date without calling its methods', () => {
    const at = new Date('2023-10-20T02:00:02Z');
    at.getTime = () => 0;
    at.toISOString = () => 'tomorrow';
    const { task } = validateCreate({ cron: { [Label.Exact]: at }, meta }, now);
    expect(task.cron).toEqual({ [Label.Exact]: '2023-10-20T02:00:02Z' });
  });

  // What each mistake says: the key, and what the caller meant.
  it.each([
    [
      { meta, data: { a: 1 } },
      'create: a task has no key "data"; the keys of a task are core, cron, gate, meta, node, root, sync',
    ],
    [
      { mata: { k: 'v' } },
      'create: a task has no key "mata"; the keys of a task are core, cron, gate, meta, node, root, sync, payload; did you mean "meta"?',
    ],
    [
      { cron: { '@every': '2 minutes' }, meta },
      `create: Task.cron key "@every" has no reserved scheme, so it would be stored as a plain label with no effect; did you mean "${Label.Every}" (Label.Every)?`,
    ],
    [
      { cron: { exact: '2023-10-21T00:00:00Z' }, meta },
      `create: Task.cron key "exact" has no reserved scheme, so it would be stored as a plain label with no effect; did you mean "${Label.Exact}" (Label.Exact)?`,
    ],
    [
      { cron: { '@defer': '2 hours' }, meta },
      `create: Task.cron key "@defer" has no reserved scheme, so it would be stored as a plain label with no effect; did you mean "${Label.Defer}" (Label.Defer)?`,
    ],
    [
      { cron: { [Label.Every.replace('@', '')]: 'hour' }, meta },
      `create: Task.cron key "${Label.Every.replace('@', '')}" is in the engine's reserved "rescue.io" scheme; did you mean "${Label.Every}" (Label.Every)?`,
    ],
    [
      { meta: { '@every': 'hour' } },
      `create: Task.meta key "@every" looks like a cron label in the wrong map; did you mean "${Label.Every}" (Label.Every) in Task.cron?`,
    ],
    [
      { core: { cancel: '3' }, meta },
      `create: Task.core may hold only "${Label.Cancel}", "${Label.Retry}" and "${Label.Priority}"; got keys "cancel"; did you mean "${Label.Cancel}" (Label.Cancel)?`,
    ],
    [
      { node: { method: 'all' }, meta },
      `create: Task.node must hold "${Label.Method}" (all, any or uni); did you mean "${Label.Method}" (Label.Method)?`,
    ],
    [
      { cron: { [Label.Every]: 'every 2 minutes' }, meta },
      `create: Task.cron "${Label.Every}": "every 2 minutes": expected a unit (second, minute, hour, day, week, month or a plural) or a five- or six-field cron expression, got "every"; did you mean "2 minutes"?`,
    ],
    [
      { cron: { [Label.Exact]: new Date(Number.NaN) }, meta },
      `create: Task.cron "${Label.Exact}" is an invalid Date (its time is NaN)`,
    ],
  ])('says what is wrong with %j', (task, message) => {
    expect(() => validateCreate(task, now)).toThrow(message);
  });

  // The first failing rule decides, in table order.
  it.each([
    ['core (C2) before meta (C4)', { core: {} }, TaskCoreError],
    ['meta (C4) before node (C5)', { node: {} }, TaskMetaEmptyError],
    [
      'node (C6) before method value (C8) does not apply to unknown methods',
      { meta, node: { [Label.Method]: 'x', y: 'z' } },
      LabelValueError,
    ],
    ['node (C5) before cron (C9)', { meta, node: {}, cron: {}, root: {} }, TaskNodeError],
    [
      'cron and root (C9) before gate and root (C10)',
      { meta, cron: {}, gate: {}, root: {} },
      TaskCronError,
    ],
    [
      'cron shape (C11) before gate values (C15)',
      { meta, cron: {}, gate: { g: 'deleted' } },
      TaskCronError,
    ],
    [
      '@defer (C12) before reserved keys (C17)',
      { cron: { [Label.Defer]: 'x' }, meta: { 'a.rescue.io': 'v' } },
      TaskCronError,
    ],
    [
      'gate deleted (C15) before unknown gate values (C16)',
      { meta, gate: { a: 'deleted', b: 'x' } },
      LabelReservedError,
    ],
    [
      'gate values (C16) before reserved keys (C17)',
      { meta: { 'a.rescue.io': 'v' }, gate: { g: 'x' } },
      LabelValueError,
    ],
  ])('orders the rules: %s', (_name, task, error) => {
    expect(() => validateCreate(task, now)).toThrow(error);
  });

  it('says which map, key and value are wrong', () => {
    expect(() => validateCreate({ meta, node: { [Label.Method]: 'some' } }, now)).toThrow(
      'create: Task.node "addr.rescue.io/method" must be one of all, any, uni; got "some"',
    );
    expect(() => validateCreate({ core: { [Label.Cancel]: '-14' }, meta }, now)).toThrow(
      'create: Task.core "task.rescue.io/cancel" must be a positive integer (digits only, at least 1); got "-14"',
    );
    expect(() => validateCreate({ meta: { 'x.rescue.io/k': 'v' } }, now)).toThrow(
      'create: Task.meta key "x.rescue.io/k" is in the engine\'s reserved "rescue.io" scheme',
    );
  });
});

describe('delete validation', () => {
  it.each(deleteRejects.map((c) => [name(c), c] as const))('%s', (_name, c) => {
    expect(() => validateDelete(c.argument)).toThrow(c.error);
  });

  it('reads the object id and the bypass', () => {
    const id = '1697760001000-000000000001';
    expect(validateDelete({ core: { [Label.Object]: id } }).plan).toEqual({
      objectId: id,
      bypass: false,
      hasBypassKey: false,
    });
    expect(validateDelete({ core: { [Label.Object]: id, [Label.Bypass]: 'true' } }).plan).toEqual({
      objectId: id,
      bypass: true,
      hasBypassKey: true,
    });
    expect(validateDelete({ core: { [Label.Object]: id, [Label.Bypass]: 'false' } }).plan).toEqual({
      objectId: id,
      bypass: false,
      hasBypassKey: true,
    });
  });
});

describe('extend validation', () => {
  it.each(extendRejects.map((c) => [name(c), c] as const))('%s', (_name, c) => {
    expect(() => validateExtend(c.argument)).toThrow(c.error);
  });
});

describe('cycles validation', () => {
  it.each(cyclesRejects.map((c) => [name(c), c] as const))('%s', (_name, c) => {
    expect(() => validateCycles(c.argument)).toThrow(c.error);
  });

  it('does not check the cancel value', () => {
    expect(() =>
      validateCycles({
        core: { [Label.Object]: '1697760001000-000000000001', [Label.Cancel]: 'junk' },
      }),
    ).not.toThrow();
  });
});

describe('exists validation', () => {
  it.each(existsRejects.map((c) => [name(c), c] as const))('%s', (_name, c) => {
    expect(() => validateExists(c.argument)).toThrow(c.error);
  });

  it.each([
    ['a core query by id and worker', { core: { [Label.Object]: 'x', [Label.Worker]: 'eon' } }],
    ['a gate query', { gate: { '*': 'deleted' } }],
    ['a cron query', { cron: { [Label.Every]: '*' } }],
    ['the emitted-child root query', { root: { [Label.Object]: '*' } }],
    [
      'a reserved root key beside the object key',
      { root: { [Label.Object]: '*', [Label.Worker]: '*' } },
    ],
    ['a sync map beside meta', { meta, sync: { k: 'x' } }],
  ])('accepts %s', (_name, query) => {
    expect(() => validateExists(query)).not.toThrow();
  });
});

describe('lister validation', () => {
  it.each(listerRejects.map((c) => [name(c), c] as const))('%s', (_name, c) => {
    expect(() => validateLister(c.argument)).toThrow(c.error);
  });

  it('accepts every-task query and node queries', () => {
    expect(() => validateLister({ meta: { '*': '*' } })).not.toThrow();
    expect(() => validateLister({ node: { [Label.Method]: 'all' } })).not.toThrow();
  });
});

describe('search filter validation', () => {
  it.each(searchRejects.map((c) => [name(c), c] as const))('%s', (_name, c) => {
    expect(() => validateFilter(c.argument)).toThrow(c.error);
  });

  it('reads undefined and null as no filter, and allows reserved keys', () => {
    expect(validateFilter(undefined)).toBeUndefined();
    expect(validateFilter(null)).toBeUndefined();
    expect(validateFilter({ core: { [Label.Worker]: 'eon' } })).toEqual({
      core: { [Label.Worker]: 'eon' },
    });
  });
});

describe('the validation tables of docs/semantics.md §3', () => {
  const range = (prefix: string, from: number, to: number): string[] =>
    Array.from({ length: to - from + 1 }, (_, index) => `${prefix}${from + index}`);

  // Every rule that needs only the argument; S1, S2 and S3 stand for C1, DL1, T1, Y1, X1 and L1,
  // and S4 (no top-level keys but the maps) is create's part of C1.
  it.each([
    ['create', createRejects, ['S1', 'S2', 'S3', 'S4', ...range('C', 2, 17)]],
    ['delete', deleteRejects, ['S1', 'S2', 'S3', ...range('DL', 2, 4)]],
    ['extend', extendRejects, ['S1', 'S2', 'S3', ...range('T', 2, 3)]],
    ['cycles', cyclesRejects, ['S1', 'S2', 'S3', ...range('Y', 2, 4)]],
    ['exists', existsRejects, ['S1', 'S2', 'S3', ...range('X', 2, 4)]],
    ['lister', listerRejects, ['S1', 'S2', 'S3', ...range('L', 2, 5)]],
    ['search', searchRejects, ['S1', 'S2', 'S3']],
  ] as const)(
    'give %s a rejected input for every rule of its table',
    (_operation, cases, rules) => {
      expect([...new Set(cases.map((c) => c.rule))].sort()).toEqual([...rules].sort());
    },
  );
});

// §3.0: the first failing rule in table order decides. Each row breaks two
// adjacent rules at once; where both throw the same class, the message tells
// which rule spoke.
describe('the order rule (§3.0)', () => {
  const id = '1697760001000-000000000001';
  const badMeta = { k: 1 };
  const operations = {
    create: (argument: unknown) => validateCreate(argument, now),
    delete: validateDelete,
    extend: validateExtend,
    cycles: validateCycles,
    exists: validateExists,
    lister: validateLister,
  };
  const cases: {
    name: string;
    operation: keyof typeof operations;
    argument: unknown;
    error: new (message: string) => Error;
    message: RegExp;
  }[] = [
    {
      name: 'create checks shape (C1) before core (C2)',
      operation: 'create',
      argument: { core: {}, meta: badMeta },
      error: LabelValueError,
      message: /Task\.meta label "k" must have a string value/,
    },
    {
      name: 'create checks core keys (C2) before the cancel value (C3)',
      operation: 'create',
      argument: { core: { [Label.Cancel]: '0', foo: 'x' }, meta },
      error: TaskCoreError,
      message: /may hold only/,
    },
    {
      name: 'create checks the cancel value (C3) before meta (C4)',
      operation: 'create',
      argument: { core: { [Label.Cancel]: '0' } },
      error: TaskCoreError,
      message: /positive integer/,
    },
    {
      name: 'create checks a uni node (C7) before cron and root (C9)',
      operation: 'create',
      argument: { cron: {}, meta, node: { [Label.Method]: 'uni' }, root: {} },
      error: TaskNodeError,
      message: /must name its worker/,
    },
    {
      name: 'create checks the method value (C8) before cron and root (C9)',
      operation: 'create',
      argument: { cron: {}, meta, node: { [Label.Method]: 'mny' }, root: {} },
      error: LabelValueError,
      message: /must be one of all, any, uni/,
    },
    {
      name: 'create checks gate and root (C10) before gate values (C15)',
      operation: 'create',
      argument: { gate: { g: 'deleted' }, meta, root: {} },
      error: TaskGateError,
      message: /Task\.gate and Task\.root cannot be combined/,
    },
    {
      name: 'create checks the cron shape (C11) before @defer (C12)',
      operation: 'create',
      argument: { cron: { [Label.Defer]: '2 hours', [Label.Every]: 'hour' }, meta },
      error: TaskCronError,
      message: /exactly one label/,
    },
    {
      name: 'create checks @every (C13) before gate values (C15)',
      operation: 'create',
      argument: { cron: { [Label.Every]: 'foo' }, gate: { g: 'deleted' }, meta },
      error: TaskCronError,
      message: /@every.*expected a unit/,
    },
    {
      name: 'create checks @exact (C14) before gate values (C16)',
      operation: 'create',
      argument: { cron: { [Label.Exact]: '2023-10-19T00:00:00Z' }, gate: { g: 'waiting' }, meta },
      error: TaskCronError,
      message: /must lie after now/,
    },
    {
      name: 'create checks gate values (C15) before reserved keys (C17)',
      operation: 'create',
      argument: { gate: { 'x.rescue.io/g': 'deleted' }, meta },
      error: LabelReservedError,
      message: /"deleted", which only the engine writes/,
    },
    {
      name: 'create checks meta (C4) before reserved keys (C17)',
      operation: 'create',
      argument: { gate: { 'x.rescue.io/g': 'trigger' }, meta: {} },
      error: TaskMetaEmptyError,
      message: /Task\.meta must hold at least one label/,
    },
    {
      name: 'delete checks shape (DL1) before core (DL2)',
      operation: 'delete',
      argument: { core: {}, meta: badMeta },
      error: LabelValueError,
      message: /Task\.meta label "k" must have a string value/,
    },
    {
      name: 'delete checks an empty core (DL2) before the object id (DL3)',
      operation: 'delete',
      argument: { core: {} },
      error: TaskCoreError,
      message: /got an empty core/,
    },
    {
      name: 'delete checks the object id (DL3) before the bypass value (DL4)',
      operation: 'delete',
      argument: { core: { [Label.Bypass]: 'maybe' } },
      error: TaskCoreError,
      message: /must carry the task's/,
    },
    {
      name: 'extend checks shape (T1) before core (T2)',
      operation: 'extend',
      argument: { core: {}, meta: badMeta },
      error: LabelValueError,
      message: /Task\.meta label "k" must have a string value/,
    },
    {
      name: 'extend checks an empty core (T2) before the object id (T3)',
      operation: 'extend',
      argument: { core: {} },
      error: TaskCoreError,
      message: /got an empty core/,
    },
    {
      name: 'cycles checks shape (Y1) before core (Y2)',
      operation: 'cycles',
      argument: { core: {}, meta: badMeta },
      error: LabelValueError,
      message: /Task\.meta label "k" must have a string value/,
    },
    {
      name: 'cycles checks the object id (Y3) before cancel (Y4)',
      operation: 'cycles',
      argument: { core: { [Label.Worker]: 'eon' } },
      error: TaskCoreError,
      message: /must carry the task's/,
    },
    {
      name: 'exists checks shape (X1) before an empty query (X2)',
      operation: 'exists',
      argument: { sync: badMeta },
      error: LabelValueError,
      message: /Task\.sync label "k" must have a string value/,
    },
    {
      name: 'exists checks meta keys (X3) before root keys (X4)',
      operation: 'exists',
      argument: { meta: { 'a.rescue.io': 'x' }, root: { [Label.Worker]: '*' } },
      error: LabelReservedError,
      message: /Task\.meta key/,
    },
    {
      name: 'lister checks shape (L1) before core (L2)',
      operation: 'lister',
      argument: { core: 'x', meta },
      error: LabelValueError,
      message: /Task\.core must be a plain object/,
    },
    {
      name: 'lister checks core (L2) before an empty query (L3)',
      operation: 'lister',
      argument: { core: {} },
      error: TaskCoreError,
      message: /may not select by Task\.core/,
    },
    {
      name: 'lister checks core (L2) before reserved meta keys (L4)',
      operation: 'lister',
      argument: { core: { [Label.Object]: id }, meta: { 'a.rescue.io': 'x' } },
      error: TaskCoreError,
      message: /may not select by Task\.core/,
    },
    {
      name: 'lister checks meta keys (L4) before root keys (L5)',
      operation: 'lister',
      argument: { meta: { 'a.rescue.io': 'x' }, root: { [Label.Object]: '*' } },
      error: LabelReservedError,
      message: /Task\.meta key/,
    },
  ];

  it.each(cases)('$name', ({ operation, argument, error, message }) => {
    const call = () => operations[operation](argument);
    expect(call).toThrow(error);
    expect(call).toThrow(message);
  });
});

describe('readTask', () => {
  it('accepts an object without a prototype', () => {
    const task = Object.assign(Object.create(null) as object, { meta: { k: 'v' } });
    expect(readTask(task, 'create')).toEqual({ meta: { k: 'v' } });
  });

  it('reads null maps as absent and keeps empty maps', () => {
    expect(readTask({ meta: null, sync: {} }, 'create')).toEqual({ sync: {} });
  });

  it('accepts object literals of another realm (a vm context), but not class instances of it', () => {
    const foreign: unknown = runInNewContext('({ meta: { k: "v" }, sync: {} })');
    expect(readTask(foreign, 'create')).toEqual({ meta: { k: 'v' }, sync: {} });
    const instance: unknown = runInNewContext(
      'new (class Task { constructor() { this.meta = { k: "v" } } })()',
    );
    expect(() => readTask(instance, 'create')).toThrow(TaskEmptyError);
  });
});
