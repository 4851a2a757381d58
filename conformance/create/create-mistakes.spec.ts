import type { Engine } from '../../lib/engine/engine.js';
import {
  LabelReservedError,
  LabelValueError,
  TaskCoreError,
  TaskCronError,
  TaskKeyError,
  TaskNodeError,
  type RescueError,
} from '../../lib/errors.js';
import { Label } from '../../lib/task/label.js';
import type { Task, TaskInput } from '../../lib/task/task.js';
import { expectUnchanged } from '../harness/queue-state.js';
import { useQueue } from '../harness/queue.js';

// Mistakes a producer makes fail loudly: the typed error, a message that says
// what was meant, and nothing written (docs/semantics.md §3.0, "rejected calls write
// nothing"), on a queue that holds tasks already.

const meta = { kind: 'mail' };

const mistakes: [string, unknown, new (message: string) => RescueError, string][] = [
  [
    'an unknown top-level key',
    { meta, data: { a: 1 } },
    TaskKeyError,
    'create: a task has no key "data"; the keys of a task are core, cron, gate, meta, node, root, sync',
  ],
  ['a misspelt map', { mata: meta }, TaskKeyError, 'did you mean "meta"?'],
  [
    '@every without its scheme',
    { cron: { '@every': '2 minutes' }, meta },
    TaskCronError,
    `did you mean "${Label.Every}" (Label.Every)?`,
  ],
  [
    '@exact without its scheme',
    { cron: { '@exact': '2023-10-21T00:00:00Z' }, meta },
    TaskCronError,
    `did you mean "${Label.Exact}" (Label.Exact)?`,
  ],
  [
    '@defer without its scheme',
    { cron: { '@defer': '2 hours' }, meta },
    TaskCronError,
    `did you mean "${Label.Defer}" (Label.Defer)?`,
  ],
  [
    'every without scheme or @, beside another key',
    { cron: { every: 'hour', note: 'x' }, meta },
    TaskCronError,
    `did you mean "${Label.Every}" (Label.Every)?`,
  ],
  [
    'a misspelt scheme key',
    { cron: { [Label.Every.replace('@', '')]: 'hour' }, meta },
    LabelReservedError,
    `did you mean "${Label.Every}" (Label.Every)?`,
  ],
  [
    'a cron key in meta',
    { meta: { ...meta, '@every': 'hour' } },
    LabelReservedError,
    `did you mean "${Label.Every}" (Label.Every) in Task.cron?`,
  ],
  [
    'a priority that is not an integer',
    { core: { [Label.Priority]: '1e3' }, meta },
    TaskCoreError,
    `"${Label.Priority}" must be an integer from -2147483648 to 2147483647`,
  ],
  [
    'cancel without its scheme',
    { core: { cancel: '3' }, meta },
    TaskCoreError,
    `did you mean "${Label.Cancel}" (Label.Cancel)?`,
  ],
  [
    'method without its scheme',
    { node: { method: 'all' }, meta },
    TaskNodeError,
    `did you mean "${Label.Method}" (Label.Method)?`,
  ],
  [
    'an interval with a leading every',
    { cron: { [Label.Every]: 'every 2 minutes' }, meta },
    TaskCronError,
    'got "every"; did you mean "2 minutes"?',
  ],
  [
    'a misspelt unit',
    { cron: { [Label.Every]: '2 minuts' }, meta },
    TaskCronError,
    'got "minuts"; did you mean "2 minutes"?',
  ],
  [
    'a one-digit hour in a zone',
    { cron: { [Label.Every]: 'day at 8:00 in Europe/Berlin' }, meta },
    TaskCronError,
    'did you mean "day at 08:00 in Europe/Berlin"?',
  ],
  [
    'a Date for @every',
    { cron: { [Label.Every]: new Date('2023-10-21T00:00:00Z') }, meta },
    LabelValueError,
    'must have a string value',
  ],
  [
    'a Date for @exact that is not after now',
    { cron: { [Label.Exact]: new Date('2023-10-20T00:00:01Z') }, meta },
    TaskCronError,
    'must lie after now',
  ],
];

describe('create: mistakes fail loudly and write nothing', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');

  async function seeded(): Promise<Engine> {
    const eon = queue().engine('eon');
    await eon.create({ meta: { k: 'v' } });
    await eon.create({ cron: { [Label.Every]: 'hour' }, meta: { k: 'template' } });
    await eon.search();
    return eon;
  }

  it.each(mistakes)('rejects %s', async (_name, argument, error, message) => {
    const eon = await seeded();
    const before = structuredClone(argument);
    await expectUnchanged(queue().redis, queue().prefix, async () => {
      const reason: unknown = await eon.create(argument as Task).then(
        () => undefined,
        (rejected: unknown) => rejected,
      );
      expect(reason).toBeInstanceOf(error);
      expect((reason as Error).message).toContain(message);
    });
    expect(argument).toEqual(before);
  });

  it('rejects an invalid Date for @exact', async () => {
    const eon = await seeded();
    const at = new Date(Number.NaN);
    const argument = { cron: { [Label.Exact]: at }, meta };
    await expectUnchanged(queue().redis, queue().prefix, async () => {
      await expect(eon.create(argument)).rejects.toThrow(
        new TaskCronError(
          `create: Task.cron "${Label.Exact}" is an invalid Date (its time is NaN)`,
        ),
      );
    });
    expect(argument).toEqual({ cron: { [Label.Exact]: at }, meta });
    expect(Object.keys(argument)).toEqual(['cron', 'meta']);
  });

  it('rejects an unknown key given to run, before anything is created', async () => {
    const eon = await seeded();
    await expectUnchanged(queue().redis, queue().prefix, async () => {
      await expect(eon.run({ meta, extra: 1 } as unknown as Task)).rejects.toBeInstanceOf(
        TaskKeyError,
      );
    });
  });

  it("says what the interval language reads when a copy's @defer is not a duration", async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { k: 'foo' } });
    const copy = await eon.search();
    if (copy === undefined) throw new Error('nothing to claim');
    copy.cron = { [Label.Defer]: '5 minuts' };
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(eon.delete(copy)).rejects.toThrow(
        new TaskCronError(
          `delete: the copy's cron "${Label.Defer}" is not a duration: "5 minuts": a @defer duration is "unit", "1 unit" or "N units" (e.g. "2 hours") with a unit second, minute, hour, day, week or month; did you mean "5 minutes"?`,
        ),
      );
    });
  });
});

describe('create: a Date for @exact', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');

  it('is stored and returned as formatTime of it, and the task is due exactly then', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const at = new Date('2023-10-20T00:01:00.250Z');
    const argument: TaskInput = { cron: { [Label.Exact]: at }, meta };
    const created = await eon.create(argument);
    expect(created.cron).toEqual({ [Label.Exact]: '2023-10-20T00:01:00.25Z' });
    // the caller's object gets the additions only: its Date stays a Date
    expect(argument.cron).toEqual({ [Label.Exact]: at });
    expect(argument.core?.[Label.Object]).toBe(created.core?.[Label.Object]);
    const [listed] = await eon.lister({ meta });
    expect(listed?.cron).toEqual({ [Label.Exact]: '2023-10-20T00:01:00.25Z' });

    q.clock.set('2023-10-20T00:01:00.249Z');
    expect(await eon.search()).toBeUndefined();
    q.clock.set('2023-10-20T00:01:00.250Z');
    expect((await eon.search())?.core?.[Label.Object]).toBe(created.core?.[Label.Object]);
  });
});
