import { has } from '../../lib/matcher/matcher.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import type { Handler } from '../../lib/worker/handler.js';
import { Worker } from '../../lib/worker/worker.js';
import { idOf, next, stored, until, useWorkerQueue, within, resolved } from '../harness/worker.js';

const kind = (name: string) => (task: Task) => has(task.meta, { kind: name });

/** handlerFor takes tasks of one kind; with labels, workers search with them. */
function handlerFor(name: string, labels: boolean, seen: string[] = []): Handler {
  return {
    filter: kind(name),
    ensure: (task) => resolved(seen.push(idOf(task))),
    ...(labels ? { labels: { meta: { kind: name } } } : {}),
  };
}

describe('Worker handlers', () => {
  const queue = useWorkerQueue();

  it('lets two workers with disjoint labelled handlers share a queue: each claims only its kind', async () => {
    const eon = queue().live('eon');
    const etw = queue().live('etw');
    const a: string[] = [];
    const b: string[] = [];
    const aWorker = queue().worker(eon, [handlerFor('a', true, a)], { concurrency: 2 });
    const bWorker = queue().worker(etw, [handlerFor('b', true, b)], { concurrency: 2 });
    await Promise.all([aWorker.start(), bWorker.start()]);
    const created: Task[] = [];
    for (let n = 0; n < 20; n++) {
      created.push(await eon.create({ meta: { kind: n % 2 === 0 ? 'a' : 'b', n: String(n) } }));
    }
    await until(() => a.length + b.length === 20, 3_000, 'all 20 ensured');

    const idsOf = (name: string) =>
      created
        .filter((task) => task.meta?.['kind'] === name)
        .map(idOf)
        .sort();
    expect([...a].sort()).toEqual(idsOf('a'));
    expect([...b].sort()).toEqual(idsOf('b'));
    // labels are search filters: nothing of the other kind was even claimed
    expect(queue().log(aWorker).declined).toEqual([]);
    expect(queue().log(bWorker).declined).toEqual([]);
  });

  it('searches with the labels of each of its handlers in turn', async () => {
    const eon = queue().live('eon');
    const a: string[] = [];
    const b: string[] = [];
    const worker = queue().worker(eon, [handlerFor('a', true, a), handlerFor('b', true, b)]);
    for (let n = 0; n < 3; n++) {
      await eon.create({ meta: { kind: 'a', n: String(n) } });
      await eon.create({ meta: { kind: 'b', n: String(n) } });
    }
    await eon.create({ meta: { kind: 'c' } }); // matches no handler's labels
    await worker.start();
    await until(() => a.length + b.length === 6, 3_000, 'six ensured');

    expect(queue().log(worker).declined).toEqual([]);
    const left = await eon.lister({ meta: { '*': '*' } });
    expect(left.map((task) => [task.meta?.['kind'], task.core?.[Label.Worker]])).toEqual([
      ['c', undefined],
    ]);
  });

  it('releases a task no handler accepts at once (no owner, no cycle), emits task:declined, and another worker gets it', async () => {
    const eon = queue().live('eon', { expiry: 60_000 });
    const etw = queue().live('etw', { expiry: 60_000 });
    // no labels: eon searches unfiltered and claims what it cannot do
    const decliner = queue().worker(eon, [handlerFor('a', false)]);
    let stopping: Promise<void> | undefined;
    // stop at the first decline, so the released state can be inspected
    decliner.once('task:declined', () => {
      stopping = decliner.stop();
    });
    const declined = next(decliner, 'task:declined', 3_000);
    const created = await eon.create({ meta: { kind: 'b' } });
    await decliner.start();
    const [task] = await declined;
    await within(stopping!, 3_000, 'decliner stopped');

    expect(idOf(task)).toBe(idOf(created));
    const left = await stored(eon, idOf(created));
    expect(left?.core?.[Label.Worker]).toBeUndefined();
    expect(left?.core?.[Label.Expiry]).toBeUndefined();
    expect(left?.core?.[Label.Cycles]).toBeUndefined();

    const b: string[] = [];
    const taker = queue().worker(etw, [handlerFor('b', false, b)]);
    await taker.start();
    await until(() => b.length === 1, 3_000, 'etw ensured the task');
    expect(b).toEqual([idOf(created)]);
    expect(queue().log(taker).ensured[0]?.core?.[Label.Cycles]).toBeUndefined();
  });

  it('lets a matching worker have a declined task while the declining worker keeps running', async () => {
    const eon = queue().live('eon', { expiry: 60_000 });
    const etw = queue().live('etw', { expiry: 60_000 });
    const decliner = queue().worker(eon, [handlerFor('a', false)]);
    const b: string[] = [];
    const taker = queue().worker(etw, [handlerFor('b', false, b)]);
    const declined = next(decliner, 'task:declined', 3_000);
    await decliner.start();
    const created = await eon.create({ meta: { kind: 'b' } });
    await declined;
    await taker.start();
    await until(() => b.length === 1, 3_000, 'etw ensured the task');
    expect(b).toEqual([idOf(created)]);
  });

  it('ensures the tasks it can do although an older task it declines stays in the queue (no labels)', async () => {
    const eon = queue().live('eon', { expiry: 60_000 });
    const a: string[] = [];
    const worker = queue().worker(eon, [handlerFor('a', false, a)]);
    await eon.create({ meta: { kind: 'nobody-does-this' } });
    const doable = await eon.create({ meta: { kind: 'a' } });
    await worker.start();
    // the undoable task is the oldest: a worker that re-claims it at every
    // search after declining it never reaches the younger task
    await until(() => a.length === 1, 3_000, 'the doable task ensured');
    expect(a).toEqual([idOf(doable)]);
  });

  it('skips a task it declined in its later searches: declined once while it ensures the newer tasks', async () => {
    const eon = queue().live('eon', { expiry: 60_000 });
    const a: string[] = [];
    // no labels: every search of this worker could claim the undoable task again
    const worker = queue().worker(eon, [handlerFor('a', false, a)]);
    const declined = next(worker, 'task:declined', 3_000);
    const undoable = await eon.create({ meta: { kind: 'nobody-does-this' } });
    await worker.start();
    await declined;
    const doable: string[] = [];
    for (let n = 0; n < 5; n++) {
      // each task is a new search of the worker, and the undoable task is the oldest
      const ensured = next(worker, 'task:ensured', 3_000);
      doable.push(idOf(await eon.create({ meta: { kind: 'a', n: String(n) } })));
      await ensured;
    }

    expect(a).toEqual(doable);
    expect(queue().log(worker).declined.map(idOf)).toEqual([idOf(undoable)]);
    const left = await stored(eon, idOf(undoable));
    expect(left?.core?.[Label.Worker]).toBeUndefined();
    expect(left?.core?.[Label.Cycles]).toBeUndefined();
  });

  it('reports a filter that throws as an error, declines the task, and keeps working', async () => {
    const eon = queue().live('eon', { expiry: 60_000 });
    const broken = new Error('filter broke');
    const good: string[] = [];
    const worker = queue().worker(eon, [
      {
        filter: (task) => {
          if (task.meta?.['kind'] === 'bad') throw broken;
          return kind('good')(task);
        },
        ensure: (task) => resolved(good.push(idOf(task))),
        labels: { meta: { kind: '*' } },
      },
    ]);
    await worker.start();
    const error = next(worker, 'error', 3_000);
    const declined = next(worker, 'task:declined', 3_000);
    const bad = await eon.create({ meta: { kind: 'bad' } });
    expect((await error)[0]).toBe(broken);
    expect(idOf((await declined)[0])).toBe(idOf(bad));
    // take the bad task away, so the rest does not depend on how declined tasks are revisited
    await eon.delete({ core: { [Label.Object]: idOf(bad), [Label.Bypass]: 'true' } });

    const created = await eon.create({ meta: { kind: 'good' } });
    await until(() => good.length === 1, 3_000, 'the good task ensured');
    expect(good).toEqual([idOf(created)]);
    expect(queue().log(worker).failed).toEqual([]);
  });

  it('declines every task when it has no handlers, leaving them unowned', async () => {
    const eon = queue().live('eon', { expiry: 60_000 });
    const worker = queue().worker(eon, []);
    const declined = next(worker, 'task:declined', 3_000);
    const created = await eon.create({ meta: { kind: 'a' } });
    await worker.start();
    expect(idOf((await declined)[0])).toBe(idOf(created));
    await worker.stop();
    expect((await stored(eon, idOf(created)))?.core?.[Label.Worker]).toBeUndefined();
  });

  it('writes errors to stderr instead of crashing when nobody listens for error events', async () => {
    const eon = queue().live('eon', { expiry: 60_000 });
    const broken = new Error('filter broke, nobody listening');
    // a Worker made here, without the harness's error listener
    const worker = new Worker(
      eon,
      [
        {
          filter: () => {
            throw broken;
          },
          ensure: () => Promise.resolve(),
        },
      ],
      { pollInterval: 100, background: false },
    );
    const original = console.error;
    const printed: unknown[][] = [];
    console.error = (...args: unknown[]) => void printed.push(args);
    try {
      const declined = next(worker, 'task:declined', 3_000);
      await worker.start();
      await eon.create({ meta: { kind: 'a' } });
      await declined;
      expect(printed.some((args) => args.includes(broken))).toBe(true);
    } finally {
      await worker.stop();
      console.error = original;
    }
  });
});
