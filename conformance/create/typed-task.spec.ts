import {
  TaskCoreError,
  TaskMetaEmptyError,
  TaskPayloadError,
  UnrecoverableError,
} from '../../lib/errors.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { defineTask } from '../../lib/typed/define-task.js';
import type { StandardSchemaV1 } from '../../lib/typed/standard-schema.js';
import { expectUnchanged } from '../harness/queue-state.js';
import { useQueue } from '../harness/queue.js';
import { idOf, useWorkerQueue, within } from '../harness/worker.js';

// Typed tasks (docs/typed-tasks.md): defineTask's create, run, wait and
// handler, and validation with a Standard Schema v1 schema (one written here:
// the engine depends on no schema library).

interface Mail {
  to: string;
  cc: string[];
}

/** mailSchema takes `{ to: string, cc?: string[] }` and fills in cc. */
const mailSchema: StandardSchemaV1<unknown, Mail> = {
  '~standard': {
    version: 1,
    vendor: 'test',
    validate(value) {
      const given = value as { to?: unknown; cc?: unknown } | null;
      if (typeof given !== 'object' || given === null || typeof given.to !== 'string') {
        return { issues: [{ message: 'Expected a string', path: [{ key: 'to' }] }] };
      }
      // asynchronous, as some libraries' refinements are
      return Promise.resolve({
        value: { to: given.to, cc: Array.isArray(given.cc) ? (given.cc as string[]) : [] },
      });
    },
  },
};

describe('defineTask', () => {
  const queue = useQueue('2023-10-20T00:00:00Z');

  it('creates a task of its meta carrying the payload', async () => {
    const eon = queue().engine('eon');
    const sendMail = defineTask<{ to: string }, { messageId: string }>({
      meta: { kind: 'send-mail' },
    });
    const created = await sendMail.create(eon, { to: 'ann' });
    expect(created).toMatchObject({ meta: { kind: 'send-mail' }, payload: { to: 'ann' } });
    expect((await eon.search())?.payload).toEqual({ to: 'ann' });
    expect(sendMail.meta).toEqual({ kind: 'send-mail' });
  });

  it('checks its meta at once, with create’s errors', () => {
    expect(() => defineTask({ meta: {} })).toThrow(TaskMetaEmptyError);
  });

  // docs/semantics.md §3.13: the kind's priority, and a create's own
  it('creates its tasks with the kind’s priority, or the one a create or run gives', async () => {
    const q = queue();
    const eon = q.engine('eon');
    const plain = defineTask({ meta: { kind: 'report' } });
    const urgent = defineTask({ meta: { kind: 'page-oncall' }, priority: 10 });
    expect([plain.priority, urgent.priority]).toEqual([0, 10]);
    const first = await plain.create(eon, {});
    expect(first.core?.[Label.Priority]).toBeUndefined(); // 0 is no label: the lean create
    const second = await urgent.create(eon, {});
    expect(second.core?.[Label.Priority]).toBe('10');
    const third = await plain.create(eon, {}, { priority: 5 });
    const fourth = await urgent.create(eon, {}, { priority: -1 });
    const fifth = await urgent.create(eon, {}, { priority: 0 }); // the kind's priority off
    expect(fifth.core?.[Label.Priority]).toBeUndefined();
    // claimed highest first, then oldest
    const order: string[] = [];
    for (let task = await eon.search(); task !== undefined; task = await eon.search())
      order.push(idOf(task));
    expect(order).toEqual([second, third, first, fifth, fourth].map(idOf));
    // a unique create keeps its answer, with the priority
    const answer = await urgent.create(eon, {}, { priority: 3, unique: { key: 'once' } });
    expect(answer.task?.core?.[Label.Priority]).toBe('3');
  });

  it('checks a priority as create checks the label, writing nothing', async () => {
    const q = queue();
    const eon = q.engine('eon');
    for (const priority of [1.5, 2 ** 31, -(2 ** 31) - 1, Number.NaN, '5', null]) {
      expect(() => defineTask({ meta: { kind: 'x' }, priority: priority as number })).toThrow(
        TaskCoreError,
      );
    }
    expect(() => defineTask({ meta: { kind: 'x' }, priority: 1.5 })).toThrow(
      'defineTask: "priority" must be an integer from -2147483648 to 2147483647',
    );
    expect(defineTask({ meta: { kind: 'x' }, priority: -(2 ** 31) }).priority).toBe(-(2 ** 31));
    const kind = defineTask({ meta: { kind: 'x' } });
    await kind.create(eon, {}); // the engine connected: what follows writes nothing more
    await expectUnchanged(q.redis, q.prefix, async () => {
      await expect(kind.create(eon, {}, { priority: 0.5 })).rejects.toThrow(TaskCoreError);
      await expect(kind.create(eon, {}, { priority: 2 ** 31 })).rejects.toThrow(
        'task "x": create: "priority" must be an integer',
      );
    });
  });

  it('stores what the schema answers, and refuses what it refuses, writing nothing', async () => {
    const eon = queue().engine('eon');
    const sendMail = defineTask({ meta: { kind: 'send-mail' }, schema: mailSchema });
    expect((await sendMail.create(eon, { to: 'ann' } as Mail)).payload).toEqual({
      to: 'ann',
      cc: [],
    });
    await expectUnchanged(queue().redis, queue().prefix, async () => {
      const wrong = { to: 42 } as unknown as Mail;
      await expect(sendMail.create(eon, wrong)).rejects.toThrow(
        new TaskPayloadError(
          'task "send-mail": the schema refuses the payload: to: Expected a string',
        ),
      );
      await expect(sendMail.run(eon, wrong, { timeout: 1 })).rejects.toBeInstanceOf(
        TaskPayloadError,
      );
    });
  });

  it('refuses a payload that is not JSON as create does', async () => {
    const eon = queue().engine('eon');
    const anything = defineTask({ meta: { kind: 'any' } });
    await expectUnchanged(queue().redis, queue().prefix, async () => {
      await expect(anything.create(eon, new Map())).rejects.toBeInstanceOf(TaskPayloadError);
    });
  });
});

describe('defineTask with a worker', () => {
  const queue = useWorkerQueue();

  it('gives the handler the typed payload and run() its result; other kinds are left alone', async () => {
    const q = queue();
    const eon = q.live('eon');
    const sendMail = defineTask({ meta: { kind: 'send-mail' }, schema: mailSchema });
    const square = defineTask<{ n: number }, number>({ meta: { kind: 'square' } });
    const seen: unknown[] = [];
    const worker = q.worker(eon, [
      sendMail.handler(async (payload, context) => {
        seen.push(payload, context.task.meta, context.signal.aborted);
        context.log(`to ${payload.to}`);
        await context.extend();
        return { messageId: `<${payload.to}>` };
      }),
    ]);
    await worker.start();
    const other = await square.create(eon, { n: 3 });
    const outcome = await within(
      sendMail.run(eon, { to: 'ann' } as Mail, { timeout: 10_000 }),
      10_000,
      'the run',
    );
    expect(outcome).toMatchObject({ state: 'completed', result: { messageId: '<ann>' } });
    expect(outcome.log).toEqual(['to ann']);
    expect(seen).toEqual([{ to: 'ann', cc: [] }, { kind: 'send-mail' }, false]);
    expect(await eon.status(idOf(other))).toMatchObject({ state: 'queued' });
    const again = await sendMail.wait(eon, outcome.id);
    expect(again.result).toEqual({ messageId: '<ann>' });
  });

  it('halts a task whose payload its schema refuses, without running the handler', async () => {
    const q = queue();
    const eon = q.live('eon');
    const sendMail = defineTask({ meta: { kind: 'send-mail' }, schema: mailSchema });
    let ran = 0;
    const worker = q.worker(eon, [
      sendMail.handler(() => {
        ran++;
        return Promise.resolve({});
      }),
    ]);
    await worker.start();
    // written around the typed layer: a payload the schema refuses
    const task: Task = await eon.create({ meta: { kind: 'send-mail' }, payload: { to: 1 } });
    const outcome = await within(eon.wait(idOf(task), { timeout: 10_000 }), 10_000, 'the halt');
    expect(outcome.state).toBe('failed');
    expect(outcome.error).toMatchObject({
      code: new UnrecoverableError('').code,
      message: expect.stringContaining('to: Expected a string') as string,
    });
    expect(ran).toBe(0);
    expect((await eon.status(idOf(task)))?.task?.core?.[Label.Cycles]).toBe('1');
  });
});
