import type { Engine } from '../../lib/engine/engine.js';
import { Label, Method } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { useQueue } from '../harness/queue.js';

// docs/semantics.md §3.2 phase 4 (unicast first), §1.7 (unicast kind), §5.2 item 8.

const everything: Task = { meta: { '*': '*' } };

function uni(worker: string): Record<string, string> {
  return { [Label.Method]: Method.Uni, [Label.Worker]: worker };
}

async function claimName(engine: Engine, filter?: Task): Promise<string | undefined> {
  return (await engine.search(filter))?.meta?.['name'];
}

describe('search unicast tasks', () => {
  const queue = useQueue('2023-10-20T00:00:00Z');

  it('hands a unicast task only to its worker', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    const eth = q.engine('eth');
    await eon.create({ meta: { name: 'u' }, node: uni('etw') });
    expect(await claimName(eon)).toBeUndefined();
    expect(await claimName(eth)).toBeUndefined();
    const claimed = await etw.search();
    expect(claimed?.meta).toEqual({ name: 'u' });
    expect(claimed?.core?.[Label.Worker]).toBe('etw');
    expect(claimed?.node).toEqual(uni('etw'));
  });

  it('never hands a unicast task to another worker, even with a filter that names it', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const stored = await eon.create({ meta: { name: 'u' }, node: uni('etw') });
    expect(
      await claimName(eon, { core: { [Label.Object]: stored.core?.[Label.Object] ?? '' } }),
    ).toBeUndefined();
    expect(await claimName(eon, { node: { [Label.Method]: Method.Uni } })).toBeUndefined();
    expect((await eon.lister(everything))[0]?.core?.[Label.Worker]).toBeUndefined();
  });

  it('prefers a unicast task for this worker over older any tasks', async () => {
    const eon = queue().engine('eon');
    await eon.create({ meta: { name: 'any-1' } });
    await eon.create({ meta: { name: 'any-2' } });
    await eon.create({ meta: { name: 'uni' }, node: uni('eon') });
    expect(await claimName(eon)).toBe('uni');
    expect(await claimName(eon)).toBe('any-1');
    expect(await claimName(eon)).toBe('any-2');
  });

  it('hands out its unicast tasks oldest first', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { name: 'u0' }, node: uni('eon') });
    await eon.create({ meta: { name: 'other' }, node: uni('etw') });
    q.clock.set('2023-10-20T00:00:00.001Z');
    await eon.create({ meta: { name: 'u1' }, node: uni('eon') });
    expect(await claimName(eon)).toBe('u0');
    expect(await claimName(eon)).toBe('u1');
    expect(await claimName(eon)).toBeUndefined();
  });

  it('lets other workers take any tasks around unicast tasks they never get', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { name: 'u' }, node: uni('etw') });
    await eon.create({ meta: { name: 'a' } });
    expect(await claimName(eon)).toBe('a');
    expect(await claimName(eon)).toBeUndefined();
  });

  it('counts unicast tasks for other workers in n', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    await eon.create({ meta: { name: 'u1' }, node: uni('eth') });
    await eon.create({ meta: { name: 'u2' }, node: uni('eth') });
    for (const name of ['a', 'b', 'c']) await eon.create({ meta: { name } });
    expect(await claimName(eon)).toBe('a');
    // W = [eon, etw], n = 5: etw share 2 (with n = 3 it would be 1)
    expect(await claimName(etw)).toBe('b');
    expect(await claimName(etw)).toBe('c');
    expect(await claimName(etw)).toBeUndefined();
  });

  it('applies the share gate to unicast tasks too', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    await eon.create({ meta: { name: 'a' } });
    await eon.create({ meta: { name: 'b' } });
    await eon.create({ meta: { name: 'u' }, node: uni('etw') });
    expect(await claimName(eon)).toBe('a');
    expect(await claimName(eon)).toBe('b'); // n = 3, W = [eon]
    expect(await claimName(etw)).toBe('u'); // W = [eon, etw]: etw share 1
    expect(await claimName(etw)).toBeUndefined();
  });

  it('refuses a unicast task for this worker when its share is used up', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    await eon.create({ meta: { name: 'a' } });
    await eon.create({ meta: { name: 'b' } });
    expect(await claimName(eon)).toBe('a');
    expect(await claimName(etw)).toBe('b');
    await eon.create({ meta: { name: 'u' }, node: uni('etw') });
    // n = 3, W = [eon, etw]: etw share 1, own 1
    expect(await claimName(etw)).toBeUndefined();
    expect(await claimName(eon)).toBeUndefined(); // eon may not take it either
  });

  it('hands a unicast @exact task to its worker only from its instant on', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    await eon.create({
      cron: { [Label.Exact]: '2023-10-20T00:00:05Z' },
      meta: { name: 'u' },
      node: uni('etw'),
    });
    expect(await claimName(etw)).toBeUndefined();
    q.clock.set('2023-10-20T00:00:04.999Z');
    expect(await claimName(etw)).toBeUndefined();
    q.clock.set('2023-10-20T00:00:05Z');
    expect(await claimName(eon)).toBeUndefined();
    expect(await claimName(etw)).toBe('u');
  });

  it('prefers a due unicast @exact task over an older any task', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ meta: { name: 'any' } });
    await eon.create({
      cron: { [Label.Exact]: '2023-10-20T00:00:05Z' },
      meta: { name: 'u' },
      node: uni('eon'),
    });
    q.clock.set('2023-10-20T00:00:05Z');
    expect(await claimName(eon)).toBe('u');
    expect(await claimName(eon)).toBe('any');
  });

  it('offers a revoked unicast task to its worker again', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    await eon.create({ meta: { name: 'u' }, node: uni('etw') });
    expect(await claimName(etw)).toBe('u');
    q.clock.set('2023-10-20T00:00:30Z');
    await eon.expire();
    expect(await claimName(eon)).toBeUndefined();
    const again = await etw.search();
    expect(again?.meta).toEqual({ name: 'u' });
    expect(again?.core?.[Label.Cycles]).toBe('1');
  });

  it('keeps a unicast task for a worker that never searches in the queue', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const stored = await eon.create({ meta: { name: 'u' }, node: uni('nobody') });
    for (const worker of ['eon', 'etw', 'eth']) {
      expect(await claimName(q.engine(worker))).toBeUndefined();
    }
    expect(await eon.lister(everything)).toEqual([stored]);
  });
});
