import { channelSubscribers } from '../harness/redis.js';
import { has } from '../../lib/matcher/matcher.js';
import type { Task } from '../../lib/task/task.js';
import { parseTime } from '../../lib/task/time.js';
import { subscribeQueue } from '../harness/redis.js';
import { idOf, next, until, useWorkerQueue } from '../harness/worker.js';

const kind = (name: string) => (task: Task) => has(task.meta, { kind: name });

describe('Worker progress', () => {
  const queue = useWorkerQueue();

  it('publishes context.progress(value) on the queue’s progress channel and as a local task:progress event', async () => {
    const eon = queue().live('eon');
    const channel = `${eon.keyfmt()}:progress`;
    const messages: { channel: string; message: string }[] = [];
    const subscriber = await subscribeQueue(channel, (message) =>
      messages.push({ channel, message }),
    );
    try {
      const worker = queue().worker(eon, [
        {
          filter: kind('a'),
          ensure: async (_task, context) => {
            await context.progress({ done: 1, of: 2 });
            await context.progress('half way');
          },
        },
      ]);
      await worker.start();
      const before = Date.now();
      const ensured = next(worker, 'task:ensured', 3_000);
      const created = await eon.create({ meta: { kind: 'a' } });
      await ensured;
      await until(() => messages.length >= 2, 3_000, 'two progress messages');

      const parsed = messages.map(({ channel: from, message }) => ({
        from,
        ...(JSON.parse(message) as { id: string; worker: string; at: string; value: unknown }),
      }));
      expect(parsed.map(({ from, id, worker, value }) => ({ from, id, worker, value }))).toEqual([
        { from: channel, id: idOf(created), worker: 'eon', value: { done: 1, of: 2 } },
        { from: channel, id: idOf(created), worker: 'eon', value: 'half way' },
      ]);
      for (const { at } of parsed) {
        expect(parseTime(at).getTime()).toBeGreaterThanOrEqual(before - 1);
        expect(parseTime(at).getTime()).toBeLessThanOrEqual(Date.now());
      }
      expect(
        queue()
          .log(worker)
          .progress.map(({ task, value }) => [idOf(task), value]),
      ).toEqual([
        [idOf(created), { done: 1, of: 2 }],
        [idOf(created), 'half way'],
      ]);
    } finally {
      await subscriber.stop();
    }
  });

  it('emits task:progress before the progress call resolves', async () => {
    const eon = queue().live('eon');
    let heard = false;
    let heardBeforeResolve: boolean | undefined;
    const worker = queue().worker(eon, [
      {
        filter: kind('a'),
        ensure: async (_task, context) => {
          await context.progress(1);
          heardBeforeResolve = heard;
        },
      },
    ]);
    worker.on('task:progress', () => (heard = true));
    await worker.start();
    const ensured = next(worker, 'task:ensured', 3_000);
    await eon.create({ meta: { kind: 'a' } });
    await ensured;
    expect(heardBeforeResolve).toBe(true);
  });
});

describe('progress to waiters', () => {
  const queue = useWorkerQueue();

  it('reaches onProgress of wait and run, in order, before the outcome', async () => {
    const q = queue();
    const eon = q.live('eon');
    const worker = q.worker(eon, [
      {
        filter: kind('a'),
        ensure: async (_task, context) => {
          await context.progress({ done: 1, of: 2 });
          await context.progress(undefined);
          await context.progress('half way');
          return 'finished';
        },
      },
    ]);
    const heard: { value: unknown; worker: string }[] = [];
    const claims: string[] = [];
    const outcome = eon.run(
      { meta: { kind: 'a' } },
      {
        timeout: 3_000,
        onProgress: (value, worker) => heard.push({ value, worker }),
        onClaim: (worker) => claims.push(worker),
      },
    );
    // the run listens before the worker takes the task
    await until(
      async () => {
        const [task] = await eon.lister({ meta: { kind: 'a' } });
        if (task === undefined) return false;
        const channel = `${eon.keyfmt()}:watch:${idOf(task)}`;
        return (await channelSubscribers(q.redis, channel)) === 1;
      },
      3_000,
      'the run listens',
    );
    await worker.start();
    expect(await outcome).toMatchObject({ state: 'completed', result: 'finished' });
    expect(heard).toEqual([
      { value: { done: 1, of: 2 }, worker: 'eon' },
      { value: null, worker: 'eon' },
      { value: 'half way', worker: 'eon' },
    ]);
    expect(claims).toEqual(['eon']);
  });
});
