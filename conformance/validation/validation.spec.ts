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
} from '../../spec/fixtures/validation-cases.js';
import type { Engine } from '../../lib/engine/engine.js';
import {
  LabelReservedError,
  LabelValueError,
  TaskCoreError,
  TaskCronError,
  TaskGateError,
  TaskMetaEmptyError,
  TaskNodeError,
} from '../../lib/errors.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { expectUnchanged } from '../harness/queue-state.js';
import { useQueue } from '../harness/queue.js';

// Every rule that needs only the argument: the call throws its error class and
// the queue's keys are byte-identical before and after. A few tasks are
// stored first so that "writes nothing" is checked against a real queue.
describe('rejected calls write nothing', () => {
  const queue = useQueue(validationNow.toISOString());

  async function seeded(): Promise<Engine> {
    const eon = queue().engine('eon');
    await eon.create({ meta: { k: 'v' } });
    await eon.create({ cron: { 'time.rescue.io/@every': 'hour' }, meta: { k: 'template' } });
    await eon.create({ gate: { g: 'waiting' }, meta: { k: 'gate' } });
    await eon.search();
    return eon;
  }

  const operations: [
    string,
    RejectCase[],
    (engine: Engine, argument: unknown) => Promise<unknown>,
  ][] = [
    ['create', createRejects, (engine, argument) => engine.create(argument as Task)],
    ['delete', deleteRejects, (engine, argument) => engine.delete(argument as Task)],
    ['extend', extendRejects, (engine, argument) => engine.extend(argument as Task)],
    ['cycles', cyclesRejects, (engine, argument) => engine.cycles(argument as Task)],
    ['exists', existsRejects, (engine, argument) => engine.exists(argument as Task)],
    ['lister', listerRejects, (engine, argument) => engine.lister(argument as Task)],
    ['search', searchRejects, (engine, argument) => engine.search(argument as Task)],
  ];

  for (const [operation, cases, call] of operations) {
    it.each(cases.map((c) => [`${operation} ${c.rule}: ${c.name}`, c] as const))(
      '%s',
      async (_name, c) => {
        const engine = await seeded();
        const before = structuredClone(c.argument);
        await expectUnchanged(queue().redis, queue().prefix, async () => {
          await expect(call(engine, c.argument)).rejects.toBeInstanceOf(c.error);
        });
        // 3.0: a rejected call leaves the caller's object as it was, too
        expect(c.argument).toEqual(before);
      },
    );
  }
});

const meta = { k: 'v' };
const id = '1697760001000-000000000999'; // no stored task has this id
const past = '2023-10-19T00:00:00Z';

/** s2 makes S2 cases: each argument must be rejected with LabelValueError. */
function s2(cases: [string, unknown][]): RejectCase[] {
  return cases.map(([name, argument]) => ({ rule: 'S2', name, argument, error: LabelValueError }));
}

// S2 applies to every one of the seven maps and comes before every other rule
// (3.0 "Order"): a bad map or a label value that is not a string decides the
// error even where a later rule would fail too.
const shapeFirst: [string, RejectCase[]][] = [
  [
    'create',
    s2([
      ['core that is a string', { core: 'x', meta }],
      ['a cron that is an array', { cron: [], meta }],
      ['a gate label that is a number', { gate: { g: 1 }, meta }],
      ['a node that is a number', { meta, node: 5 }],
      ['a root label that is a boolean', { meta, root: { r: true } }],
      ['a sync that is a string', { meta, sync: 'x' }],
      ['a bad meta value beside core {}', { core: {}, meta: { k: 1 } }],
    ]),
  ],
  [
    'delete',
    s2([
      ['core that is a string', { core: 'x' }],
      ['a worker label that is a number', { core: { [Label.Object]: id, [Label.Worker]: 5 } }],
      ['a sync that is an array', { core: { [Label.Object]: id }, sync: [] }],
    ]),
  ],
  [
    'extend',
    s2([
      ['an object id that is a number', { core: { [Label.Object]: 7 } }],
      ['a node that is a string', { core: { [Label.Object]: id }, node: 'any' }],
    ]),
  ],
  [
    'cycles',
    s2([
      ['a cron that is a string, without cancel', { core: { [Label.Object]: id }, cron: 'x' }],
      ['a cancel that is a number', { core: { [Label.Object]: id, [Label.Cancel]: 2 } }],
    ]),
  ],
  [
    'exists',
    s2([
      ['a sync that is a number, alone', { sync: 5 }],
      ['a gate that is an array', { gate: [], meta }],
      ['a bad value in a reserved meta key', { meta: { 'a.rescue.io/b': 1 } }],
    ]),
  ],
  [
    'lister',
    s2([
      ['a core that is a number', { core: 5, meta }],
      ['a root label that is null', { root: { r: null }, meta }],
    ]),
  ],
  [
    'search',
    s2([
      ['a core label that is a number', { core: { [Label.Worker]: 1 } }],
      ['a sync that is a string', { sync: 'x' }],
      ['a node that is an array', { node: [] }],
    ]),
  ],
];

// Where two rules fail, the one listed first decides (3.0 "Order").
const firstRuleDecides: [string, RejectCase[]][] = [
  [
    'create',
    [
      { rule: 'C2 before C4', name: 'core {} and meta {}', argument: { core: {}, meta: {} } },
      {
        rule: 'C3 before C4',
        name: "cancel '0' without meta",
        argument: { core: { [Label.Cancel]: '0' } },
        error: TaskCoreError,
      },
      { rule: 'C4 before C5', name: 'node {} without meta', argument: { node: {} } },
      {
        rule: 'C4 before C17',
        name: 'meta {} and a reserved sync key',
        argument: { meta: {}, sync: { 'sync.rescue.io/x': 'v' } },
      },
      {
        rule: 'C5 before C9',
        name: 'node {} with cron and root',
        argument: { cron: { [Label.Every]: 'hour' }, meta, node: {}, root: {} },
      },
      {
        rule: 'C8 before C9',
        name: 'method mny with cron and root',
        argument: {
          cron: { [Label.Every]: 'hour' },
          meta,
          node: { [Label.Method]: 'mny' },
          root: { r: 'x' },
        },
      },
      {
        rule: 'C9 before C10',
        name: 'cron, gate and root',
        argument: { cron: { [Label.Every]: 'hour' }, gate: { g: 'trigger' }, meta, root: {} },
      },
      {
        rule: 'C10 before C15',
        name: 'a deleted gate value with root',
        argument: { gate: { g: 'deleted' }, meta, root: {} },
      },
      {
        rule: 'C11 before C15',
        name: 'cron {} with a deleted gate value',
        argument: { cron: {}, gate: { g: 'deleted' }, meta },
      },
      {
        rule: 'C12 before C17',
        name: '@defer with a reserved meta key',
        argument: { cron: { [Label.Defer]: 'hour' }, meta: { 'a.rescue.io/k': 'v' } },
      },
      {
        rule: 'C13 before C16',
        name: 'an unreadable @every with a waiting gate',
        argument: { cron: { [Label.Every]: 'foo' }, gate: { g: 'waiting' }, meta },
      },
      {
        rule: 'C14 before C16',
        name: 'a past @exact with a waiting gate',
        argument: { cron: { [Label.Exact]: past }, gate: { g: 'waiting' }, meta },
      },
      {
        rule: 'C15 before C16',
        name: 'a deleted and an unknown gate value',
        argument: { gate: { a: 'deleted', b: 'done' }, meta },
      },
      {
        rule: 'C16 before C17',
        name: 'an unknown gate value with a reserved meta key',
        argument: { gate: { g: 'done' }, meta: { 'a.rescue.io/k': 'v' } },
      },
    ].map((c) => ({ ...c, error: c.error ?? firstError(c.rule) })),
  ],
  [
    'cycles',
    [
      {
        rule: 'Y4 before Y5',
        name: 'an unknown id without cancel',
        argument: { core: { [Label.Object]: id } },
        error: TaskCoreError,
      },
    ],
  ],
  [
    'lister',
    [
      { rule: 'L2 before L3', name: 'core {} alone', argument: { core: {} }, error: TaskCoreError },
      {
        rule: 'L2 before L4',
        name: 'a core query with a reserved meta key',
        argument: { core: { x: 'y' }, meta: { 'a.rescue.io/k': '*' } },
        error: TaskCoreError,
      },
    ],
  ],
];

/** firstError is the error class of the rule named first in "Cx before Cy". */
function firstError(rule: string): RejectCase['error'] {
  const errors: Record<string, RejectCase['error']> = {
    C2: TaskCoreError,
    C3: TaskCoreError,
    C4: TaskMetaEmptyError,
    C5: TaskNodeError,
    C8: LabelValueError,
    C9: TaskCronError,
    C10: TaskGateError,
    C11: TaskCronError,
    C12: TaskCronError,
    C13: TaskCronError,
    C14: TaskCronError,
    C15: LabelReservedError,
    C16: LabelValueError,
  };
  const error = errors[rule.split(' ')[0] ?? ''];
  if (error === undefined) throw new Error(`no error class for ${rule}`);
  return error;
}

describe('the first failing rule decides the error, and nothing is written', () => {
  const queue = useQueue(validationNow.toISOString());
  const calls: Record<string, (engine: Engine, argument: unknown) => Promise<unknown>> = {
    create: (engine, argument) => engine.create(argument as Task),
    delete: (engine, argument) => engine.delete(argument as Task),
    extend: (engine, argument) => engine.extend(argument as Task),
    cycles: (engine, argument) => engine.cycles(argument as Task),
    exists: (engine, argument) => engine.exists(argument as Task),
    lister: (engine, argument) => engine.lister(argument as Task),
    search: (engine, argument) => engine.search(argument as Task),
  };

  for (const [operation, cases] of [...shapeFirst, ...firstRuleDecides]) {
    it.each(cases.map((c) => [`${operation} ${c.rule}: ${c.name}`, c] as const))(
      '%s',
      async (_name, c) => {
        const eon = queue().engine('eon');
        await eon.create({ meta: { k: 'v' } });
        await eon.search();
        const before = structuredClone(c.argument);
        await expectUnchanged(queue().redis, queue().prefix, async () => {
          const error: unknown = await calls[operation]!(eon, c.argument).then(
            () => undefined,
            (reason: unknown) => reason,
          );
          expect(error?.constructor).toBe(c.error);
        });
        expect(c.argument).toEqual(before);
      },
    );
  }
});
