import type { Engine } from '../../lib/engine/engine.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { useQueue } from '../harness/queue.js';
import { idOf } from '../harness/worker.js';

// Seconds in the interval language wherever a duration or an
// interval is taken: @every (intervals and six-field cron) and @defer.

const everything: Task = { meta: { '*': '*' } };

async function stored(engine: Engine, id: string): Promise<Task | undefined> {
  return (await engine.lister(everything)).find((task) => task.core?.[Label.Object] === id);
}

async function childrenOf(engine: Engine, templateId: string): Promise<Task[]> {
  return (await engine.lister(everything)).filter(
    (task) => task.root?.[Label.Object] === templateId,
  );
}

describe('seconds: @every', () => {
  const queue = useQueue('2023-09-28T14:23:24.161Z');

  it('creates a `10 seconds` template with ticks ten seconds apart', async () => {
    const eon = queue().engine('eon');
    const template = await eon.create({
      cron: { [Label.Every]: '10 seconds' },
      meta: { k: 'foo' },
    });
    expect(template.cron).toEqual({
      [Label.Every]: '10 seconds',
      [Label.TickM1]: '2023-09-28T14:23:20Z',
      [Label.TickP1]: '2023-09-28T14:23:30Z',
    });
  });

  it('emits a child at tick+1 and moves tick+1 ten seconds on', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const templateId = idOf(
      await eon.create({ cron: { [Label.Every]: '10 seconds' }, meta: { k: 'foo' } }),
    );
    q.clock.set('2023-09-28T14:23:29.999Z');
    await eon.ticker();
    expect(await childrenOf(eon, templateId)).toHaveLength(0);
    q.clock.set('2023-09-28T14:23:30.001Z');
    await eon.ticker();
    expect(await childrenOf(eon, templateId)).toHaveLength(1);
    expect((await stored(eon, templateId))?.cron?.[Label.TickP1]).toBe('2023-09-28T14:23:40Z');
  });

  it('emits one child, not one per missed second, after a long pause of an `every second` template', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const templateId = idOf(
      await eon.create({ cron: { [Label.Every]: 'second' }, meta: { k: 'foo' } }),
    );
    q.clock.set('2023-09-28T15:23:24.5Z'); // an hour: 3600 ticks passed
    await eon.ticker();
    expect(await childrenOf(eon, templateId)).toHaveLength(1);
    expect((await stored(eon, templateId))?.cron?.[Label.TickP1]).toBe('2023-09-28T15:23:25Z');
    q.clock.set('2023-09-28T15:23:25.5Z');
    await eon.ticker();
    // the lingering `any` child blocks the next one
    expect(await childrenOf(eon, templateId)).toHaveLength(1);
    expect((await stored(eon, templateId))?.cron?.[Label.TickP1]).toBe('2023-09-28T15:23:26Z');
  });

  it('reads a six-field cron expression with a seconds field first', async () => {
    const eon = queue().engine('eon');
    const template = await eon.create({
      cron: { [Label.Every]: '*/15 * * * * *' },
      meta: { k: 'foo' },
    });
    expect(template.cron?.[Label.TickM1]).toBe('2023-09-28T14:23:15Z');
    expect(template.cron?.[Label.TickP1]).toBe('2023-09-28T14:23:30Z');
  });
});

describe('seconds: @defer', () => {
  const queue = useQueue('2023-10-20T00:00:01Z');

  it('defers a deleted copy by `30 seconds` and hands it out again after them', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { k: 'foo' } });
    const copy = await eon.search();
    copy!.cron = { [Label.Defer]: '30 seconds' };
    await eon.delete(copy!);
    expect((await stored(eon, idOf(copy)))?.cron).toEqual({
      [Label.Defer]: '30 seconds',
      [Label.TickP1]: '2023-10-20T00:00:31Z',
    });
    q.clock.set('2023-10-20T00:00:30.999Z');
    expect(await eon.search()).toBeUndefined();
    q.clock.set('2023-10-20T00:00:31Z');
    expect(idOf(await eon.search())).toBe(idOf(copy));
  });
});
