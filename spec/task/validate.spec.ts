import {
  LabelReservedError,
  LabelValueError,
  TaskCoreError,
  TaskCronError,
  TaskMetaEmptyError,
  TaskNodeError,
} from '../../lib/errors.js';
import { Label } from '../../lib/task/label.js';
import {
  readTask,
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
    ['a cron with a user key', { cron: { foo: 'bar' }, meta }],
    ['an empty gate (a template that never fires)', { gate: {}, meta }],
    ['trigger values with cron', { cron: { [Label.Every]: 'hour' }, gate: { g: 'trigger' }, meta }],
    ['the paging key in sync', { meta, sync: { [Label.Paging]: 'anything' } }],
    ['a root with patterns', { meta, root: { '*': 'foo' } }],
    ['other properties, ignored', { meta, extra: 1 }],
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

  it('copies the maps it returns and drops other properties', () => {
    const argument = { meta: { k: 'v' }, extra: 1 };
    const { task } = validateCreate(argument, now);
    expect(task).toEqual({ meta: { k: 'v' } });
    expect(task.meta).not.toBe(argument.meta);
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

describe('readTask', () => {
  it('accepts an object without a prototype', () => {
    const task = Object.assign(Object.create(null) as object, { meta: { k: 'v' } });
    expect(readTask(task, 'create')).toEqual({ meta: { k: 'v' } });
  });

  it('reads null maps as absent and keeps empty maps', () => {
    expect(readTask({ meta: null, sync: {} }, 'create')).toEqual({ sync: {} });
  });
});
