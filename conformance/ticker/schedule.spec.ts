import { TaskCronError, TaskMetaEmptyError } from '../../lib/errors.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { rescue, rescueJson } from '../harness/cli.js';
import { Client, useDashboards } from '../harness/dashboard.js';
import { expectUnchanged } from '../harness/queue-state.js';
import { useQueue } from '../harness/queue.js';

// Named schedules (docs/semantics.md §3.12): engine.schedule(name, template)
// creates or updates the one cron template of a name, keeping its ticks when
// the interval stays; engine.unschedule(name) removes it.

const meta = { kind: 'report' };
const hourly: Task = { cron: { [Label.Every]: 'hour' }, meta };

describe('engine.schedule', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');

  it('creates the template of a name once; running it again changes nothing', async () => {
    const eon = queue().engine('eon');
    const first = await eon.schedule('nightly-report', hourly);
    expect(first.action).toBe('created');
    expect(first.task).toMatchObject({
      core: { [Label.Schedule]: 'nightly-report' },
      cron: {
        [Label.Every]: 'hour',
        [Label.TickM1]: '2023-10-20T00:00:00Z',
        [Label.TickP1]: '2023-10-20T01:00:00Z',
      },
    });
    const again = await eon.schedule('nightly-report', hourly);
    expect(again).toMatchObject({ action: 'unchanged', id: first.id });
    expect(await eon.lister({ meta })).toHaveLength(1);
  });

  it('gives one template to two engines that schedule a name at once', async () => {
    const q = queue();
    const [a, b] = [q.engine('a'), q.engine('b')];
    const answers = await Promise.all([
      a.schedule('report', hourly),
      b.schedule('report', hourly),
      a.schedule('report', { ...hourly, meta: { ...meta, v: '2' } }),
      b.schedule('report', { ...hourly, meta: { ...meta, v: '3' } }),
    ]);
    expect(answers.filter((answer) => answer.action === 'created')).toHaveLength(1);
    expect(new Set(answers.map((answer) => answer.id)).size).toBe(1);
    expect(await a.lister({ meta })).toHaveLength(1);
  });

  it('keeps the ticks when only labels or the payload change, and emits children with the new ones', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const first = await eon.schedule('report', hourly);
    q.clock.set('2023-10-20T00:30:00Z');
    const updated = await eon.schedule('report', {
      ...hourly,
      meta: { ...meta, format: 'pdf' },
      payload: { to: 'ops' },
    });
    expect(updated).toMatchObject({ action: 'updated', id: first.id });
    expect(updated.task?.cron).toEqual(first.task?.cron);
    q.clock.set('2023-10-20T01:00:00Z');
    await eon.ticker();
    const child = await eon.search({ meta: { format: 'pdf' } });
    expect(child?.root).toEqual({ [Label.Object]: first.id });
    expect(child?.payload).toEqual({ to: 'ops' });
  });

  it('recomputes the ticks when the interval changes, its zone included', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const first = await eon.schedule('report', hourly);
    q.clock.set('2023-10-20T00:30:00Z');
    const daily = await eon.schedule('report', {
      cron: { [Label.Every]: 'day at 08:00 in Europe/Berlin' },
      meta,
    });
    expect(daily).toMatchObject({ action: 'updated', id: first.id });
    expect(daily.task?.cron).toEqual({
      [Label.Every]: 'day at 08:00 in Europe/Berlin',
      [Label.TickM1]: '2023-10-19T06:00:00Z',
      [Label.TickP1]: '2023-10-20T06:00:00Z',
    });
    q.clock.set('2023-10-20T01:00:00Z');
    await eon.ticker(); // no longer due at 01:00
    expect(await eon.exists({ meta, root: { [Label.Object]: first.id } })).toBe(false);
  });

  it('unschedule removes the template of the name; then the name is free', async () => {
    const eon = queue().engine('eon');
    const first = await eon.schedule('report', hourly);
    expect(await eon.unschedule('report')).toBe(true);
    expect(await eon.unschedule('report')).toBe(false);
    expect(await eon.lister({ meta })).toEqual([]);
    const again = await eon.schedule('report', hourly);
    expect(again.action).toBe('created');
    expect(again.id).not.toBe(first.id);
  });

  it('makes a new template when the one of the name was removed otherwise', async () => {
    const eon = queue().engine('eon');
    const first = await eon.schedule('report', hourly);
    await eon.delete({ core: { [Label.Object]: first.id, [Label.Bypass]: 'true' } });
    expect((await eon.schedule('report', hourly)).action).toBe('created');
  });

  const refused: [string, unknown, unknown, new (message: string) => Error][] = [
    ['an empty name', '', hourly, TypeError],
    ['a name of another kind', 7, hourly, TypeError],
    ['a task that is not a cron template', 'report', { meta }, TaskCronError],
    [
      'an exact task',
      'report',
      { cron: { [Label.Exact]: '2023-10-21T00:00:00Z' }, meta },
      TaskCronError,
    ],
    ['a template without meta', 'report', { cron: { [Label.Every]: 'hour' } }, TaskMetaEmptyError],
  ];

  it.each(refused)('refuses %s, writing nothing', async (_name, name, template, error) => {
    const eon = queue().engine('eon');
    await eon.schedule('report', hourly);
    await expectUnchanged(queue().redis, queue().prefix, async () => {
      await expect(eon.schedule(name as string, template as Task)).rejects.toBeInstanceOf(error);
    });
  });
});

describe('named schedules where people look', () => {
  const dashboard = useDashboards();
  const queue = useQueue('2023-10-20T00:00:01Z');

  it('rescue templates and the dashboard list templates with their names', async () => {
    const engine = queue().engine('eon');
    await engine.schedule('nightly-report', hourly);
    await engine.create({ cron: { [Label.Every]: 'day' }, meta: { kind: 'unnamed' } });
    const q = ['--queue', queue().name];
    const listed = await rescueJson<{ cron: { name: string | null }[] }>(['templates', ...q]);
    expect(listed.cron.map((template) => template.name).sort()).toEqual(
      [null, 'nightly-report'].sort(),
    );
    const human = await rescue(['templates', ...q]);
    expect(human.stdout).toMatch(/^NAME +ID +EVERY/m);
    expect(human.stdout).toContain('nightly-report');
    const page = await new Client(dashboard(engine)).page('/templates');
    expect(page.text).toMatch(/data-schedule="nightly-report"/);
  });
});
