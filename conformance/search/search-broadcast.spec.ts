import { TaskOutdatedError } from '../../lib/errors.js';
import { Label, Method } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { expectUnchanged } from '../harness/queue-state.js';
import { idOf, useQueue } from '../harness/queue.js';

// docs/semantics.md §3.2 phase 1 (broadcast delivery), §1.7 (broadcast kind), §1.8 (the
// broadcast ledger), §5.2 item 6.

const everything: Task = { meta: { '*': '*' } };
const all = { [Label.Method]: Method.All };

describe('search delivers broadcast tasks (phase 1)', () => {
  const queue = useQueue('2023-10-20T00:00:00Z');

  it('follows the broadcast example of docs/semantics.md §3.2', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    q.clock.set('2023-10-20T00:00:01Z');
    const x = await eon.create({ meta: { k: 'foo' }, node: all });

    // both receive X, as stored (no worker label)
    const forEon = await eon.search();
    const forEtw = await etw.search();
    expect(forEon).toEqual(x);
    expect(forEtw).toEqual(x);
    expect(forEon?.core?.[Label.Worker]).toBeUndefined();

    // a second search by either returns undefined (local leases until :31)
    expect(await eon.search()).toBeUndefined();
    expect(await etw.search()).toBeUndefined();
    q.clock.set('2023-10-20T00:00:30.999Z');
    expect(await eon.search()).toBeUndefined();
    expect(await etw.search()).toBeUndefined();

    // at :32 both receive X again
    q.clock.set('2023-10-20T00:00:32Z');
    const again = await eon.search();
    expect(again).toEqual(x);
    expect(await etw.search()).toEqual(x);

    // eon.delete(X copy) completes it for eon only
    await eon.delete(again!);
    expect(await eon.lister(everything)).toEqual([x]);

    // at 00:01:03 etw receives it again, eon never does
    q.clock.set('2023-10-20T00:01:03Z');
    expect(await eon.search()).toBeUndefined();
    expect(await etw.search()).toEqual(x);
    q.clock.set('2023-10-20T05:00:00Z');
    expect(await eon.search()).toBeUndefined();

    // an engine built after :01 never receives X
    const eth = q.engine('eth');
    expect(await eth.search()).toBeUndefined();
    q.clock.set('2023-10-20T06:00:00Z');
    expect(await eth.search()).toBeUndefined();

    // X stays in the queue until retention (7 days after :01, strictly)
    q.clock.set('2023-10-27T00:00:01Z');
    await eon.expire();
    expect(await eon.lister(everything)).toEqual([x]);
    q.clock.set('2023-10-27T00:00:01.001Z');
    await eon.expire();
    expect(await eon.lister(everything)).toEqual([]);
  });

  it('ends the local lease at now + expiry: the task comes again at exactly that instant', async () => {
    const q = queue();
    const eon = q.engine('eon', { expiry: 500 });
    q.clock.set('2023-10-20T00:00:01Z');
    const x = await eon.create({ meta: { k: 'foo' }, node: all });
    expect(await eon.search()).toEqual(x);
    q.clock.set('2023-10-20T00:00:01.499Z');
    expect(await eon.search()).toBeUndefined();
    q.clock.set('2023-10-20T00:00:01.5Z');
    expect(await eon.search()).toEqual(x);
  });

  it('writes nothing to Redis when it delivers, and adds no worker or expiry', async () => {
    const q = queue();
    const eon = q.engine('eon');
    q.clock.set('2023-10-20T00:00:01Z');
    const x = await eon.create({ meta: { k: 'foo' }, node: all });
    await expectUnchanged(q.redis, q.prefix, async () => {
      const delivered = await eon.search();
      expect(delivered).toEqual(x);
      expect(Object.keys(delivered?.core ?? {})).toEqual([Label.Object]);
    });
  });

  it('returns a copy that shares nothing with what other engines receive', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    q.clock.set('2023-10-20T00:00:01Z');
    const x = await eon.create({ meta: { k: 'foo' }, node: all });
    const first = await eon.search();
    first!.meta!['k'] = 'changed';
    expect(await etw.search()).toEqual(x);
  });

  it('does not deliver to an engine started in the same millisecond as the task', async () => {
    const q = queue();
    q.clock.set('2023-10-20T00:00:01Z');
    const same = q.engine('eon');
    await same.create({ meta: { k: 'foo' }, node: all });
    expect(await same.search()).toBeUndefined();
    q.clock.set('2023-10-20T00:01:00Z');
    expect(await same.search()).toBeUndefined();
  });

  it('delivers to an engine started one millisecond before the task', async () => {
    const q = queue();
    const eon = q.engine('eon');
    q.clock.set('2023-10-20T00:00:00.001Z');
    const x = await eon.create({ meta: { k: 'foo' }, node: all });
    expect(await eon.search()).toEqual(x);
  });

  it('does not deliver tasks created before a restart to the new engine', async () => {
    const q = queue();
    const before = q.engine('eon');
    q.clock.set('2023-10-20T00:00:01Z');
    const x = await before.create({ meta: { k: 'foo' }, node: all });
    expect(await before.search()).toEqual(x);
    await before.close();
    q.clock.set('2023-10-20T00:00:02Z');
    const restarted = q.engine('eon');
    expect(await restarted.search()).toBeUndefined();
    q.clock.set('2023-10-20T00:05:00Z');
    expect(await restarted.search()).toBeUndefined();
    // a task created after the restart is delivered
    const y = await restarted.create({ meta: { k: 'bar' }, node: all });
    q.clock.set('2023-10-20T00:05:01Z');
    expect(await restarted.search()).toEqual(y);
  });

  it('delivers several broadcast tasks oldest first, one per search', async () => {
    const q = queue();
    const eon = q.engine('eon');
    q.clock.set('2023-10-20T00:00:01Z');
    const x1 = await eon.create({ meta: { n: '1' }, node: all });
    const x2 = await eon.create({ meta: { n: '2' }, node: all });
    q.clock.set('2023-10-20T00:00:02Z');
    const x3 = await eon.create({ meta: { n: '3' }, node: all });
    expect(await eon.search()).toEqual(x1);
    expect(await eon.search()).toEqual(x2);
    expect(await eon.search()).toEqual(x3);
    expect(await eon.search()).toBeUndefined();
  });

  it('keeps delivering later broadcast tasks after completing an earlier one', async () => {
    const q = queue();
    const eon = q.engine('eon');
    q.clock.set('2023-10-20T00:00:01Z');
    const x1 = await eon.create({ meta: { n: '1' }, node: all });
    await eon.delete((await eon.search())!);
    const x2 = await eon.create({ meta: { n: '2' }, node: all });
    expect(await eon.search()).toEqual(x2);
    q.clock.set('2023-10-20T00:01:00Z');
    expect(await eon.search()).toEqual(x2);
    expect(await eon.lister(everything)).toEqual([x1, x2]);
  });

  it('delivers a task created after its start by a clock that is behind, after completing a later one', async () => {
    // docs/semantics.md §1.5 / §5.1: new to an engine when created > its start instant,
    // whatever was delivered before; a creating engine may read an earlier clock
    const q = queue();
    const eon = q.engine('eon');
    q.clock.set('2023-10-20T00:00:05Z');
    const later = await eon.create({ meta: { n: 'later' }, node: all });
    expect(await eon.search()).toEqual(later);
    await eon.delete(later);
    expect(await eon.search()).toBeUndefined();
    q.clock.set('2023-10-20T00:00:02Z');
    const earlier = await q
      .engine('etw', { clock: () => new Date('2023-10-20T00:00:02Z') })
      .create({
        meta: { n: 'earlier' },
        node: all,
      });
    expect(await eon.search()).toEqual(earlier);
  });

  it('delivers a broadcast task before claiming an older plain task', async () => {
    const q = queue();
    const eon = q.engine('eon');
    q.clock.set('2023-10-20T00:00:01Z');
    const plain = await eon.create({ meta: { k: 'plain' } });
    const x = await eon.create({ meta: { k: 'broadcast' }, node: all });
    expect(await eon.search()).toEqual(x);
    expect(idOf(await eon.search())).toBe(idOf(plain));
  });

  it('does not let two concurrent searches of one engine deliver the same task in one lease', async () => {
    const q = queue();
    const eon = q.engine('eon');
    q.clock.set('2023-10-20T00:00:01Z');
    const x = await eon.create({ meta: { k: 'foo' }, node: all });
    const results = await Promise.all([eon.search(), eon.search(), eon.search()]);
    expect(results.filter((task) => task !== undefined)).toEqual([x]);
  });

  it('gives two concurrent searches of one engine two different broadcast tasks', async () => {
    const q = queue();
    const eon = q.engine('eon');
    q.clock.set('2023-10-20T00:00:01Z');
    const x = await eon.create({ meta: { n: '1' }, node: all });
    const y = await eon.create({ meta: { n: '2' }, node: all });
    const results = await Promise.all([eon.search(), eon.search()]);
    expect(results.map(idOf).sort()).toEqual([idOf(x), idOf(y)].sort());
  });

  it('delivers a halted broadcast task', async () => {
    const q = queue();
    const eon = q.engine('eon');
    q.clock.set('2023-10-20T00:00:01Z');
    const x = await q.engine('aux').create({
      core: { [Label.Cancel]: '1' },
      meta: { k: 'foo' },
      node: all,
      sync: { [Label.Paging]: '1' },
    });
    // a bypass delete of a paging copy requeues it: cycles 1 = cancel, halted
    await q.engine('aux').delete({ ...x, core: { ...x.core, [Label.Bypass]: 'true' } });
    const [halted] = await eon.lister(everything);
    expect(halted?.core?.[Label.Cycles]).toBe('1');
    expect(await eon.search()).toEqual(halted);
  });

  it.each<[string, Task]>([
    ['an @exact cron map, even once due', { cron: { [Label.Exact]: '2023-10-20T00:00:02Z' } }],
    ['a cron map without effect', { cron: { foo: 'bar' } }],
    ['a cron template', { cron: { [Label.Every]: 'minute' } }],
    ['a gate template', { gate: { g0: 'waiting' } }],
    ['an empty gate', { gate: {} }],
  ])('never delivers or claims a broadcast task with %s', async (_name, extra) => {
    const q = queue();
    const eon = q.engine('eon');
    q.clock.set('2023-10-20T00:00:01Z');
    await eon.create({ ...extra, meta: { k: 'foo' }, node: all });
    expect(await eon.search()).toBeUndefined();
    q.clock.set('2023-10-20T00:05:00Z');
    expect(await eon.search()).toBeUndefined();
    const [stored] = await eon.lister(everything);
    expect(stored?.core?.[Label.Worker]).toBeUndefined();
  });

  it('delivers a broadcast trigger task (not a gate template)', async () => {
    const q = queue();
    const eon = q.engine('eon');
    q.clock.set('2023-10-20T00:00:01Z');
    const x = await eon.create({ gate: { g0: 'trigger' }, meta: { k: 'foo' }, node: all });
    expect(await eon.search()).toEqual(x);
  });

  it('delivers a child emitted by an all template', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const template = await eon.create({
      cron: { [Label.Every]: 'hour' },
      meta: { k: 'foo' },
      node: all,
    });
    q.clock.set('2023-10-20T01:00:01Z');
    await eon.ticker();
    const child = await eon.search();
    expect(child?.root).toEqual({ [Label.Object]: idOf(template) });
    expect(child?.core?.[Label.Worker]).toBeUndefined();
    expect(await q.engine('etw').search()).toBeUndefined(); // started after the child
  });

  it('delivers even when the share gate would refuse this worker', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    await eon.create({ meta: { k: 'a' } });
    await eon.create({ meta: { k: 'b' } });
    expect(await eon.search()).toBeDefined();
    expect(await etw.search()).toBeDefined();
    await eon.create({ meta: { k: 'c' } });
    expect(await etw.search()).toBeUndefined(); // n = 3: etw share 1, used up
    q.clock.set('2023-10-20T00:00:01Z');
    const x = await eon.create({ meta: { k: 'foo' }, node: all });
    expect(await etw.search()).toEqual(x);
  });

  it('does not run root obsolescence in a call that delivers a broadcast task', async () => {
    const q = queue();
    const eon = q.engine('eon');
    q.clock.set('2023-10-20T00:00:01Z');
    const leaf = await eon.create({ meta: { k: 'leaf' }, root: { k: 'foo' } });
    await eon.create({ meta: { k: 'foo' } });
    const x = await eon.create({ meta: { k: 'broadcast' }, node: all });
    expect(await eon.search()).toEqual(x);
    expect(await eon.exists({ core: { [Label.Object]: idOf(leaf) } })).toBe(true);
    expect((await eon.search())?.meta).toEqual({ k: 'foo' });
    expect(await eon.exists({ core: { [Label.Object]: idOf(leaf) } })).toBe(false);
  });

  it('rejects extend of a broadcast copy with TaskOutdatedError and writes nothing', async () => {
    const q = queue();
    const eon = q.engine('eon');
    q.clock.set('2023-10-20T00:00:01Z');
    await eon.create({ meta: { k: 'foo' }, node: all });
    const delivered = await eon.search();
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(eon.extend(delivered!)).rejects.toBeInstanceOf(TaskOutdatedError);
    });
  });

  it('completes a received task locally: delete writes nothing and the task stays', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const etw = q.engine('etw');
    q.clock.set('2023-10-20T00:00:01Z');
    const x = await eon.create({ meta: { k: 'foo' }, node: all });
    const delivered = await eon.search();
    await expectUnchanged(q.redis, q.prefix, async () => {
      await eon.delete(delivered!);
      await eon.delete(delivered!); // done already: still local
    });
    expect(await etw.search()).toEqual(x);
  });

  it('goes to Redis for a broadcast copy this engine never received: TaskOutdatedError', async () => {
    const q = queue();
    const eon = q.engine('eon');
    q.clock.set('2023-10-20T00:00:01Z');
    const x = await eon.create({ meta: { k: 'foo' }, node: all });
    await q.engine('etw').search();
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(eon.delete(x)).rejects.toBeInstanceOf(TaskOutdatedError);
    });
  });

  // docs/semantics.md §1.8: an engine MAY forget ledger entries of tasks that are no
  // longer in the queue. The next two tests keep the tasks in the queue past
  // the cleanup age (no expire runs), so their entries must still count.
  it('keeps a completed task done while it is still in the queue, past the retention age', async () => {
    const q = queue();
    const eon = q.engine('eon', { cleanup: 60_000 });
    q.clock.set('2023-10-20T00:00:01Z');
    const y = await eon.create({ meta: { k: 'y' }, node: all }); // received, never completed
    q.clock.set('2023-10-20T00:00:02Z');
    const x = await eon.create({ meta: { k: 'x' }, node: all });
    expect(await eon.search()).toEqual(y);
    expect(await eon.search()).toEqual(x);
    await eon.delete(x);
    q.clock.set('2023-10-20T00:01:03Z'); // both older than cleanup, still stored
    expect(await eon.lister(everything)).toEqual([y, x]);
    // 5.2 item 6: again after every local lease "until it deletes the task"
    expect(await eon.search({ meta: { k: 'x' } })).toBeUndefined();
  });

  it('keeps the local lease of a task older than the retention age that is still in the queue', async () => {
    const q = queue();
    const eon = q.engine('eon', { cleanup: 60_000 });
    q.clock.set('2023-10-20T00:00:01Z');
    const x = await eon.create({ meta: { k: 'x' }, node: all });
    q.clock.set('2023-10-20T00:01:03Z');
    expect(await eon.search()).toEqual(x);
    expect(await eon.search()).toBeUndefined(); // local lease until 00:01:33
  });

  it('does not hand a broadcast task out again during a lease after the lease is renewed', async () => {
    const q = queue();
    const eon = q.engine('eon');
    q.clock.set('2023-10-20T00:00:01Z');
    const x = await eon.create({ meta: { k: 'foo' }, node: all });
    expect(await eon.search()).toEqual(x);
    q.clock.set('2023-10-20T00:00:31Z');
    expect(await eon.search()).toEqual(x); // new lease until 00:01:01
    q.clock.set('2023-10-20T00:01:00.999Z');
    expect(await eon.search()).toBeUndefined();
    q.clock.set('2023-10-20T00:01:01Z');
    expect(await eon.search()).toEqual(x);
  });
});
