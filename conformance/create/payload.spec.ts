import { TaskLimitError, TaskPayloadError } from '../../lib/errors.js';
import { Label } from '../../lib/task/label.js';
import { limits } from '../../lib/task/limits.js';
import type { Task } from '../../lib/task/task.js';
import { rescue, rescueJson } from '../harness/cli.js';
import { Client, useDashboards } from '../harness/dashboard.js';
import { expectUnchanged } from '../harness/queue-state.js';
import { useQueue } from '../harness/queue.js';
import { idOf, useWorkerQueue, within } from '../harness/worker.js';

// A task's payload (docs/semantics.md §1.11): one JSON value stored with it,
// read back exactly, never matched by queries, within payloadBytes, carried
// to the children of templates like sync, kept across a requeue.

const meta = { kind: 'mail' };
const payload = {
  to: 'ann@example.com',
  n: Number.MAX_SAFE_INTEGER, // 16 and 17 digits: more than Lua's cjson keeps
  f: 0.1 + 0.2,
  list: [],
  map: {},
  nested: [{ a: [1, 2.5, true, null] }],
  __proto__: 'an own key',
};

describe('payload', () => {
  const queue = useQueue('2023-10-20T00:00:00Z');

  it('is stored with the task and read back exactly, through a claim', async () => {
    const eon = queue().engine('eon');
    const argument: Task = { meta, payload: JSON.parse(JSON.stringify(payload)) as unknown };
    const created = await eon.create(argument);
    expect(created.payload).toEqual(argument.payload);
    const claimed = await eon.search();
    expect(JSON.stringify(claimed?.payload)).toBe(JSON.stringify(argument.payload));
    const [listed] = await eon.lister({ meta });
    expect(JSON.stringify(listed?.payload)).toBe(JSON.stringify(argument.payload));
    const record = await queue().redis.hget(queue().key.tasks, idOf(created));
    expect(JSON.parse(record ?? '{}')).toMatchObject({ payload: JSON.stringify(argument.payload) });
  });

  it('is a copy: changing the caller’s value after create changes nothing stored', async () => {
    const eon = queue().engine('eon');
    const value = { n: 1 };
    const created = await eon.create({ meta, payload: value });
    value.n = 2;
    expect(created.payload).toEqual({ n: 1 });
    expect((await eon.search())?.payload).toEqual({ n: 1 });
  });

  it('takes every JSON value, null and scalars included; undefined means none', async () => {
    const eon = queue().engine('eon');
    for (const value of [null, 0, 'text', false, [1, 'a']]) {
      expect((await eon.create({ meta, payload: value })).payload).toEqual(value);
    }
    const none = await eon.create({ meta, payload: undefined });
    expect('payload' in none).toBe(false);
    const stored = await eon.lister({ meta });
    expect(stored.map((task) => task.payload)).toEqual([
      null,
      0,
      'text',
      false,
      [1, 'a'],
      undefined,
    ]);
  });

  it('is never matched by queries', async () => {
    const eon = queue().engine('eon');
    await eon.create({ meta, payload: { kind: 'other' } });
    expect(await eon.exists({ meta: { kind: 'other' } })).toBe(false);
    expect(await eon.exists({ payload: { kind: 'mail' }, meta })).toBe(true);
    expect(await eon.exists({ meta: { kind: 'mail' } })).toBe(true);
  });

  const refused: [string, unknown, new (message: string) => Error, string][] = [
    ['a function', { f: () => 1 }, TaskPayloadError, 'Task.payload.f must be a JSON value'],
    ['a Date', new Date(0), TaskPayloadError, 'got an instance of Date'],
    ['a Map', { m: new Map() }, TaskPayloadError, 'Task.payload.m must be a JSON value'],
    ['NaN', [1, Number.NaN], TaskPayloadError, 'Task.payload[1] is NaN'],
    ['undefined in an array', [undefined], TaskPayloadError, 'Task.payload[0] must be'],
    ['a bigint', { n: 1n }, TaskPayloadError, 'got bigint 1'],
    ['a lone surrogate', { s: '\ud800' }, TaskPayloadError, 'lone UTF-16 surrogate'],
    ['a cycle', cyclic(), TaskPayloadError, 'or holds a cycle'],
    [
      'a payload over the limit',
      { s: 'x'.repeat(limits.payloadBytes) },
      TaskLimitError,
      `the limit is ${limits.payloadBytes.toLocaleString('en-US')} bytes per payload`,
    ],
  ];

  it.each(refused)(
    'refuses %s with a typed error, writing nothing',
    async (_n, value, error, text) => {
      const eon = queue().engine('eon');
      await eon.create({ meta: { k: 'seed' } });
      await expectUnchanged(queue().redis, queue().prefix, async () => {
        const reason = await eon
          .create({ meta, payload: value })
          .catch((rejected: unknown) => rejected);
        expect(reason).toBeInstanceOf(error);
        expect((reason as Error).message).toContain(text);
      });
    },
  );

  it('takes a payload exactly at the limit', async () => {
    const eon = queue().engine('eon');
    const text = 'x'.repeat(limits.payloadBytes - 2); // its JSON adds two quotes
    expect((await eon.create({ meta, payload: text })).payload).toBe(text);
  });

  it('is carried to the children of a cron template', async () => {
    const q = queue();
    const eon = q.engine('eon');
    await eon.create({ cron: { [Label.Every]: 'hour' }, meta, payload: { report: 'daily' } });
    q.clock.set('2023-10-20T01:00:00Z');
    await eon.ticker();
    const child = await eon.search();
    expect(child?.root?.[Label.Object]).toBeDefined();
    expect(child?.payload).toEqual({ report: 'daily' });
  });

  it('is carried to the task a gate template emits', async () => {
    const eon = queue().engine('eon');
    await eon.create({ gate: { g: 'waiting' }, meta: { k: 'gated' }, payload: [1, 2] });
    await eon.create({ gate: { g: 'trigger' }, meta: { k: 'trigger' } });
    const trigger = await eon.search({ meta: { k: 'trigger' } });
    await eon.delete(trigger as Task);
    const emitted = await eon.search({ meta: { k: 'gated' } });
    expect(emitted?.payload).toEqual([1, 2]);
  });

  it('stays with a task its worker requeues (paging)', async () => {
    const eon = queue().engine('eon');
    await eon.create({ meta, payload: { page: 1 } });
    const copy = (await eon.search()) as Task;
    copy.sync = { [Label.Paging]: 'next' };
    delete copy.payload; // the copy's payload is not what is kept
    await eon.delete(copy);
    expect((await eon.lister({ meta }))[0]?.payload).toEqual({ page: 1 });
  });
});

describe('payload and the worker', () => {
  const queue = useWorkerQueue();

  it('reaches the handler, and run() returns its result', async () => {
    const q = queue();
    const eon = q.live('eon');
    const seen: unknown[] = [];
    const worker = q.worker(eon, [
      {
        filter: () => true,
        ensure: (task) => {
          seen.push(task.payload);
          return Promise.resolve({ echoed: task.payload });
        },
      },
    ]);
    await worker.start();
    const outcome = await within(eon.run({ meta, payload: { to: 'bo' } }), 10_000, 'the run');
    expect(seen).toEqual([{ to: 'bo' }]);
    expect(outcome).toMatchObject({ state: 'completed', result: { echoed: { to: 'bo' } } });
  });
});

function cyclic(): unknown {
  const value: Record<string, unknown> = {};
  value['self'] = value;
  return value;
}

describe('payload where people look', () => {
  const dashboard = useDashboards();
  const queue = useQueue('2023-10-20T00:00:00Z');
  const hostile = '<script>alert("x")</script>';

  it('the dashboard task page shows it as JSON, escaped', async () => {
    const engine = queue().engine('dash');
    const task = await engine.create({ meta, payload: { to: 'ann', note: hostile } });
    const page = await new Client(dashboard(engine)).page(`/task/${idOf(task)}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('data-map="payload"');
    expect(page.text).toContain('&quot;to&quot;: &quot;ann&quot;');
    expect(page.text).not.toContain('<script>alert');
  });

  it('rescue tasks create takes it in --task, and tasks show prints it', async () => {
    const q = ['--queue', queue().name];
    const created = await rescueJson<Task>([
      'tasks',
      'create',
      ...q,
      '--task',
      '{"meta":{"kind":"mail"},"payload":{"to":"ann","n":[1,2]}}',
    ]);
    expect(created.payload).toEqual({ to: 'ann', n: [1, 2] });
    const shown = await rescue(['tasks', 'show', idOf(created), ...q]);
    expect(shown.stdout).toMatch(/^payload +\{"to":"ann","n":\[1,2\]\}$/m);
    const query = await rescue(['tasks', 'list', ...q, '--query', '{"payload":{}}']);
    expect(query.code).toBe(2);
  });
});
