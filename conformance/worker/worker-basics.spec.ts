import { has } from '../../lib/matcher/matcher.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import type { Handler } from '../../lib/worker/handler.js';
import { Worker } from '../../lib/worker/worker.js';
import {
  idOf,
  next,
  signal,
  stored,
  until,
  useWorkerQueue,
  within,
  resolved,
} from '../harness/worker.js';

const kind = (name: string) => (task: Task) => has(task.meta, { kind: name });

describe('Worker: search, ensure, delete', () => {
  const queue = useWorkerQueue();

  // concurrency 1 sends each completion alone; 4 and 30 fold them into shared calls (lib/worker/completions.ts)
  it.each([1, 4, 30])(
    'ensures every task exactly once when nothing fails (3 workers × concurrency %i, 2,000 tasks)',
    async (concurrency) => {
      const eon = queue().live('eon');
      const calls = new Map<string, number>();
      const handler: Handler = {
        filter: kind('bulk'),
        ensure: async (task) => {
          calls.set(idOf(task), (calls.get(idOf(task)) ?? 0) + 1);
          await Promise.resolve();
        },
      };
      const total = 2_000;
      const created: string[] = [];
      for (let start = 0; start < total; start += 500) {
        const batch = await Promise.all(
          Array.from({ length: 500 }, (_, index) =>
            eon.create({ meta: { kind: 'bulk', n: String(start + index) } }),
          ),
        );
        created.push(...batch.map(idOf));
      }
      // pollInterval 60 s: nothing here may depend on polling
      const options = { concurrency, pollInterval: 60_000 };
      const workers = [
        queue().worker(eon, [handler], options),
        queue().worker(queue().live('etw'), [handler], options),
        queue().worker(queue().live('eth'), [handler], options),
      ];
      await Promise.all(workers.map((worker) => worker.start()));
      const ensured = () =>
        workers.reduce((sum, worker) => sum + queue().log(worker).ensured.length, 0);
      await until(() => ensured() >= total, 15_000, `${total} tasks ensured`);

      expect(calls.size).toBe(total);
      expect([...calls.values()].every((count) => count === 1)).toBe(true);
      const ensuredIds = workers.flatMap((worker) => queue().log(worker).ensured.map(idOf));
      expect(ensuredIds.sort()).toEqual([...created].sort());
      expect(await eon.exists({ meta: { '*': '*' } })).toBe(false);
      for (const worker of workers) {
        const log = queue().log(worker);
        expect({
          failed: log.failed,
          lost: log.lost,
          declined: log.declined,
          errors: log.errors,
        }).toEqual({ failed: [], lost: [], declined: [], errors: [] });
        expect(log.ensured.length).toBeGreaterThan(0); // all three took part
      }
    },
    20_000,
  );

  it('runs up to concurrency ensures at once and leaves the other tasks unclaimed', async () => {
    const eon = queue().live('eon');
    const gate = signal();
    let running = 0;
    let most = 0;
    const worker = queue().worker(
      eon,
      [
        {
          filter: kind('slow'),
          ensure: async () => {
            running++;
            most = Math.max(most, running);
            await gate.promise;
            running--;
          },
        },
      ],
      { concurrency: 3 },
    );
    for (let n = 0; n < 5; n++) await eon.create({ meta: { kind: 'slow', n: String(n) } });
    await worker.start();
    await until(() => running === 3, 3_000, 'three ensures running');

    const tasks = await eon.lister({ meta: { '*': '*' } });
    expect(tasks.map((task) => task.core?.[Label.Worker] ?? 'none')).toEqual([
      'eon',
      'eon',
      'eon',
      'none',
      'none',
    ]);
    gate.resolve();
    await until(() => queue().log(worker).ensured.length === 5, 3_000, 'all five ensured');
    expect(most).toBe(3);
  });

  it('runs the first handler whose filter accepts the task', async () => {
    const eon = queue().live('eon');
    const ran: string[] = [];
    const worker = queue().worker(eon, [
      { filter: kind('a'), ensure: (task) => resolved(ran.push(`first:${task.meta?.['kind']}`)) },
      { filter: () => true, ensure: (task) => resolved(ran.push(`second:${task.meta?.['kind']}`)) },
    ]);
    await worker.start();
    const a = next(worker, 'task:ensured', 3_000, (task) => task.meta?.['kind'] === 'a');
    await eon.create({ meta: { kind: 'a' } });
    await a;
    const b = next(worker, 'task:ensured', 3_000, (task) => task.meta?.['kind'] === 'b');
    await eon.create({ meta: { kind: 'b' } });
    await b;
    expect(ran).toEqual(['first:a', 'second:b']);
  });

  it('hands ensure the claimed task and an unaborted signal, and deletes the task once ensure resolves', async () => {
    const eon = queue().live('eon', { expiry: 10_000 });
    let seen: { task: Task; aborted: boolean } | undefined;
    const worker = queue().worker(eon, [
      {
        filter: kind('a'),
        ensure: async (task, context) => {
          seen = { task: structuredClone(task), aborted: context.signal.aborted };
          await Promise.resolve();
        },
      },
    ]);
    await worker.start();
    const ensured = next(worker, 'task:ensured', 3_000);
    const created = await eon.create({ meta: { kind: 'a' } });
    const [task, info] = await ensured;

    expect(idOf(task)).toBe(idOf(created));
    expect(seen?.aborted).toBe(false);
    expect(seen?.task.core?.[Label.Worker]).toBe('eon');
    expect(seen?.task.core?.[Label.Expiry]).toBeDefined();
    expect(seen?.task.meta).toEqual({ kind: 'a' });
    expect(info.durationMs).toBeGreaterThanOrEqual(0);
    expect(await eon.exists({ meta: { '*': '*' } })).toBe(false);
  });

  it('requeues instead of deleting when ensure set a paging value on the task, counting a cycle', async () => {
    const eon = queue().live('eon');
    const pages: (string | undefined)[] = [];
    const worker = queue().worker(eon, [
      {
        filter: kind('pages'),
        ensure: async (task) => {
          pages.push(task.sync?.[Label.Paging]);
          task.sync = { [Label.Paging]: pages.length < 3 ? String(pages.length) : '0' };
          await Promise.resolve();
        },
      },
    ]);
    await worker.start();
    await eon.create({ meta: { kind: 'pages' } });
    await until(() => queue().log(worker).ensured.length === 3, 3_000, 'three pages ensured');

    expect(pages).toEqual([undefined, '1', '2']);
    expect(
      queue()
        .log(worker)
        .ensured.map((task) => task.core?.[Label.Cycles]),
    ).toEqual([undefined, '1', '2']);
    expect(await eon.exists({ meta: { '*': '*' } })).toBe(false);
  });

  it('emits task:failed with the error of a rejected ensure and leaves the task owned', async () => {
    const eon = queue().live('eon', { expiry: 60_000 });
    const boom = new Error('boom');
    const worker = queue().worker(eon, [
      {
        filter: kind('a'),
        ensure: () => Promise.reject(boom),
      },
    ]);
    await worker.start();
    const failed = next(worker, 'task:failed', 3_000);
    const created = await eon.create({ meta: { kind: 'a' } });
    const [task, error] = await failed;

    expect(idOf(task)).toBe(idOf(created));
    expect(error).toBe(boom);
    const left = await stored(eon, idOf(created));
    expect(left?.core?.[Label.Worker]).toBe('eon');
    expect(left?.core?.[Label.Cycles]).toBeUndefined();
    expect(queue().log(worker).ensured).toEqual([]);
  });

  it('treats an ensure that throws synchronously as a failed ensure', async () => {
    const eon = queue().live('eon', { expiry: 60_000 });
    const boom = new Error('thrown before any await');
    const worker = queue().worker(eon, [
      {
        filter: kind('a'),
        ensure: () => {
          throw boom;
        },
      },
    ]);
    await worker.start();
    const failed = next(worker, 'task:failed', 3_000);
    const created = await eon.create({ meta: { kind: 'a' } });
    const [, error] = await failed;

    expect(error).toBe(boom);
    expect((await stored(eon, idOf(created)))?.core?.[Label.Worker]).toBe('eon');
    expect(queue().log(worker).errors).toEqual([]);
  });

  it('retries a failed task on another worker after its lease, with the cycle counted', async () => {
    const eon = queue().live('eon', { expiry: 400 });
    const etw = queue().live('etw', { expiry: 400 });
    const failing = queue().worker(eon, [
      { filter: kind('retry'), ensure: () => Promise.reject(new Error('first attempt fails')) },
    ]);
    await failing.start();
    const failed = next(failing, 'task:failed', 3_000);
    const created = await eon.create({ meta: { kind: 'retry' } });
    await failed;
    // stop() leaves a failed task owned: only expire gives it back
    await failing.stop();
    expect((await stored(eon, idOf(created)))?.core?.[Label.Worker]).toBe('eon');

    let retried: Task | undefined;
    const retrying = queue().worker(
      etw,
      [{ filter: kind('retry'), ensure: (task) => resolved((retried = structuredClone(task))) }],
      { background: true, expireInterval: 50 },
    );
    const ensured = next(retrying, 'task:ensured', 3_000);
    await retrying.start();
    const [task] = await ensured;

    expect(idOf(task)).toBe(idOf(created));
    expect(retried?.core?.[Label.Worker]).toBe('etw');
    expect(retried?.core?.[Label.Cycles]).toBe('1');
    expect(await etw.exists({ meta: { '*': '*' } })).toBe(false);
  });

  it('types its events: typed listeners get their arguments, and tsc rejects unknown events and mismatched listeners', async () => {
    // Compiled, never called: `npm run typecheck` fails on an unused @ts-expect-error,
    // so these lines fail as soon as the event types get looser.
    function mistyped(worker: Worker): void {
      // @ts-expect-error not an event of a Worker
      worker.on('task:done', () => undefined);
      // @ts-expect-error task:ensured passes the task first
      worker.on('task:ensured', (id: string) => id);
      // @ts-expect-error durationMs is a number
      worker.on('task:ensured', (_task: Task, info: { durationMs: string }) => info);
      // @ts-expect-error task:failed passes the task and the error
      worker.emit('task:failed', new Error('no task'));
      // @ts-expect-error an error is unknown, not a string
      worker.on('error', (error: string) => error);
    }
    expect(typeof mistyped).toBe('function');

    const eon = queue().live('eon', { expiry: 60_000 });
    const boom = new Error('boom');
    const worker = queue().worker(eon, [
      {
        filter: kind('ok'),
        ensure: async (_task, context) => {
          await context.progress({ step: 1 });
        },
      },
      { filter: kind('fails'), ensure: () => Promise.reject(boom) },
    ]);
    const heard: string[] = [];
    worker.on('task:ensured', (task: Task, info: { durationMs: number }) =>
      heard.push(`ensured ${String(task.meta?.['kind'])} ${typeof info.durationMs}`),
    );
    worker.on('task:failed', (task: Task, error: unknown) =>
      heard.push(`failed ${String(task.meta?.['kind'])} ${error === boom}`),
    );
    worker.on('task:progress', (task: Task, value: unknown) =>
      heard.push(`progress ${String(task.meta?.['kind'])} ${JSON.stringify(value)}`),
    );
    await worker.start();
    const ensured = next(worker, 'task:ensured', 3_000);
    await eon.create({ meta: { kind: 'ok' } });
    await ensured;
    const failed = next(worker, 'task:failed', 3_000);
    await eon.create({ meta: { kind: 'fails' } });
    await failed;

    expect(heard).toEqual(['progress ok {"step":1}', 'ensured ok number', 'failed fails true']);
  });

  it('rejects invalid options with a TypeError naming the option', () => {
    const eon = queue().live('eon');
    expect(() => new Worker(eon, [], { concurrency: 0 })).toThrow(/concurrency/);
    expect(() => new Worker(eon, [], { concurrency: 1.5 })).toThrow(TypeError);
    expect(() => new Worker(eon, [], { expireInterval: -1 })).toThrow(/expireInterval/);
    expect(() => new Worker(eon, [], { tickerInterval: 0 })).toThrow(/tickerInterval/);
    expect(
      () => new Worker(eon, [], { concurrency: 2, expireInterval: 10, tickerInterval: 10 }),
    ).not.toThrow();
  });

  it('can be started only once', async () => {
    const worker = queue().worker(queue().live('eon'), []);
    await worker.start();
    await expect(within(worker.start(), 1_000, 'second start')).rejects.toThrow(/already started/);
  });
});
