import type { Task } from '../../lib/task/task.js';
import { idOf, next, until, useWorkerQueue } from '../harness/worker.js';

// context.log(line): a capped per-task log, kept with the task's outcome (or
// with its failed attempt), which engine.status returns.

describe('context.log', () => {
  const queue = useWorkerQueue();

  it('keeps the lines with the outcome of a completed task', async () => {
    const q = queue();
    const eon = q.live('eon');
    const worker = q.worker(eon, [
      {
        filter: () => true,
        ensure: (task: Task, context) => {
          context.log(`resizing ${task.meta?.['k']}`);
          context.log('done');
          return Promise.resolve();
        },
      },
    ]);
    await worker.start();
    const outcome = await eon.run({ meta: { k: 'a.png' } }, { timeout: 3_000 });
    expect(outcome.log).toEqual(['resizing a.png', 'done']);
    expect((await eon.status(outcome.id))?.outcome?.log).toEqual(['resizing a.png', 'done']);
  });

  it('keeps the lines of a failed attempt with the task', async () => {
    const q = queue();
    const eon = q.live('eon');
    const worker = q.worker(eon, [
      {
        filter: () => true,
        ensure: (_task, context) => {
          context.log('calling upstream');
          return Promise.reject(new Error('upstream said no'));
        },
      },
    ]);
    const failed = next(worker, 'task:failed', 3_000);
    await worker.start();
    const task = await eon.create({ meta: { k: 'a' } });
    await failed;
    await until(
      async () => (await eon.status(idOf(task)))?.failure !== undefined,
      3_000,
      'the failure recorded',
    );
    expect((await eon.status(idOf(task)))?.failure?.log).toEqual(['calling upstream']);
  });

  it('caps the log at 100 lines of at most 1,000 characters, and says how many lines it dropped', async () => {
    const q = queue();
    const eon = q.live('eon');
    const worker = q.worker(eon, [
      {
        filter: () => true,
        ensure: (_task, context) => {
          context.log('x'.repeat(5_000));
          for (let line = 1; line < 250; line++) context.log(`line ${line}`);
          return Promise.resolve();
        },
      },
    ]);
    await worker.start();
    const { log } = await eon.run({ meta: { k: 'a' } }, { timeout: 3_000 });
    expect(log).toHaveLength(100);
    expect(log[0]).toHaveLength(1_000);
    expect(log[0]?.endsWith('…')).toBe(true);
    expect(log[98]).toBe('line 98');
    expect(log[99]).toBe('… 151 more line(s) dropped: a task keeps 100 lines');
  });
});
