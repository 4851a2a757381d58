import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { Worker } from '../../lib/worker/worker.js';
import { oneLineError, rescue, rescueJson } from '../harness/cli.js';
import { idOf, useQueue } from '../harness/queue.js';

// `rescue tasks ...` through the built bin against the test Redis, each test
// on its own queue; the engine of the test checks what the CLI did.

describe('rescue tasks', () => {
  const queue = useQueue();
  const q = () => ['--queue', queue().name];

  /** halted makes a task the circuit breaker holds: cancel 1, claimed, its lease ran out. */
  async function halted(meta: Record<string, string>): Promise<string> {
    const engine = queue().engine('one', { expiry: 1_000 });
    const task = await engine.create({ meta, core: { [Label.Cancel]: '1' } });
    await engine.search({ meta });
    queue().clock.advance(2_000);
    await engine.expire();
    return idOf(task);
  }

  it('create stores a task from label flags and from JSON; a task the engine rejects is not stored (exit 1)', async () => {
    const engine = queue().engine();
    const [flags, fromJson, rejected] = await Promise.all([
      rescue([
        'tasks',
        'create',
        ...q(),
        '--meta',
        'kind=mail',
        '--meta',
        'to=a=b',
        '--cancel',
        '3',
        '--retry',
        'fixed 30 seconds x 3',
        '--priority=-5',
      ]),
      rescueJson<Task>([
        'tasks',
        'create',
        ...q(),
        '--task',
        '{"meta":{"kind":"sms"}}',
        '--sync',
        's=1',
      ]),
      rescue(['tasks', 'create', ...q(), '--meta', 'task.rescue.io/worker=me']),
    ]);
    expect(flags.code).toBe(0);
    const id = /^created (\d{13}-\d{12})$/m.exec(flags.stdout)?.[1] ?? '';
    expect(flags.stdout).toContain('meta  to = a=b');
    expect(rejected.code).toBe(1);
    expect(oneLineError(rejected)).toMatch(/^rescue: create: .*rescue\.io/);
    const stored = await engine.lister({ meta: { '*': '*' } });
    expect(
      stored
        .map((task) => task.meta)
        .sort((a, b) => (a?.['kind'] ?? '').localeCompare(b?.['kind'] ?? '')),
    ).toEqual([{ kind: 'mail', to: 'a=b' }, { kind: 'sms' }]);
    expect(stored.find((task) => idOf(task) === id)?.core).toMatchObject({
      [Label.Cancel]: '3',
      [Label.Retry]: 'fixed 30 seconds x 3',
      [Label.Priority]: '-5',
    });
    expect(stored.find((task) => idOf(task) === idOf(fromJson))).toEqual(fromJson);
    expect(fromJson.sync).toEqual({ s: '1' });
  });

  it('create --file stores the tasks of an NDJSON file in order; a rejected line stores none (exit 1)', async () => {
    const engine = queue().engine();
    const folder = await mkdtemp(join(tmpdir(), 'rescue-cli-'));
    const good = join(folder, 'good.ndjson');
    await writeFile(
      good,
      '{"meta":{"n":"1"}}\n\n{"meta":{"n":"2"},"core":{"task.rescue.io/cancel":"2"}}\n',
    );
    const bad = join(folder, 'bad.ndjson');
    await writeFile(bad, '{"meta":{"n":"3"}}\n{"meta":{}}\n');
    const notJson = join(folder, 'not-json.ndjson');
    await writeFile(notJson, '{"meta":{"n":"4"}}\n{meta\n');

    const created = await rescue(['tasks', 'create', ...q(), '--file', good]);
    expect(created.code).toBe(0);
    const ids = [...created.stdout.matchAll(/^created (\d{13}-\d{12})$/gm)].map(
      (match) => match[1],
    );
    expect(ids).toHaveLength(2);
    const rejected = await rescue(['tasks', 'create', ...q(), '--file', bad]);
    expect(rejected.code).toBe(1);
    expect(oneLineError(rejected)).toMatch(/bad\.ndjson line 2: create: /);
    const unreadable = await rescue(['tasks', 'create', ...q(), '--file', notJson]);
    expect(unreadable.code).toBe(2);
    expect(oneLineError(unreadable)).toMatch(/not-json\.ndjson line 2: not JSON/);

    const stored = await engine.lister({ meta: { '*': '*' } });
    expect(stored.map((task) => [idOf(task), task.meta])).toEqual([
      [ids[0], { n: '1' }],
      [ids[1], { n: '2' }],
    ]);
  });

  it('create says what a cron key without its scheme meant and stores nothing (exit 1)', async () => {
    const engine = queue().engine();
    const result = await rescue([
      'tasks',
      'create',
      ...q(),
      '--meta',
      'kind=mail',
      '--cron',
      '@every=2 minutes',
    ]);
    expect(result.code).toBe(1);
    expect(oneLineError(result)).toBe(
      `rescue: create: Task.cron key "@every" has no reserved scheme, so it would be stored as a plain label with no effect; did you mean "${Label.Every}" (Label.Every)?`,
    );
    expect(await engine.lister({ meta: { '*': '*' } })).toEqual([]);
  });

  it('list pages by state and label query, with a cursor, as a table or JSON', async () => {
    const engine = queue().engine();
    const mails = [];
    for (let index = 0; index < 3; index++)
      mails.push(await engine.create({ meta: { kind: 'mail', n: String(index) } }));
    const sms = await engine.create({ meta: { kind: 'sms' } });
    await engine.create({
      meta: { kind: 'mail', n: 'template' },
      cron: { [Label.Every]: '1 hour' },
    });

    type Page = { state: string; tasks: Task[]; cursor: string | null };
    const mailPageArgs = [
      'tasks',
      'list',
      ...q(),
      '--state',
      'claimable',
      '--meta',
      'kind=mail',
      '--limit',
      '2',
    ];
    const [first, all, table] = await Promise.all([
      rescueJson<Page>(mailPageArgs),
      rescueJson<Page>(['tasks', 'list', ...q(), '--query', '{"meta":{"kind":"*"}}']),
      rescue(['tasks', 'list', ...q(), '--state', 'claimable']),
    ]);
    expect(first.tasks.map(idOf)).toEqual(mails.slice(0, 2).map(idOf));
    expect(first.cursor).toEqual(expect.stringMatching(/^claimable:/));
    const second = await rescueJson<Page>([...mailPageArgs, '--cursor', first.cursor ?? '']);
    expect(second).toEqual({ state: 'claimable', tasks: [mails[2]], cursor: null });
    expect(all.tasks).toHaveLength(5);
    expect(all.cursor).toBeNull();

    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID +STATE +OWNER +CYCLES +META$/);
    expect(lines).toHaveLength(5); // the header, four claimable tasks, no cursor line
    expect(table.stdout).toMatch(new RegExp(`${idOf(sms)}  claimable  +0 +kind=sms`));

    const bad = await rescue([
      'tasks',
      'list',
      ...q(),
      '--state',
      'owned',
      '--cursor',
      first.cursor ?? '',
    ]);
    expect(bad.code).toBe(2);
    expect(oneLineError(bad)).toMatch(
      /^rescue: --cursor must be the cursor of a page of state "owned"/,
    );
  });

  it('show prints a task with its owner, lease end and cycles; a task not in the queue exits 4', async () => {
    const live = queue().engine('eon', { clock: () => new Date() });
    const created = await live.create({ meta: { kind: 'mail' }, core: { [Label.Cancel]: '3' } });
    const owned = (await live.search()) as Task;
    const id = idOf(created);
    const [human, asJson, missing] = await Promise.all([
      rescue(['tasks', 'show', id, ...q()]),
      rescueJson<{ task: Task; facts: Record<string, unknown> }>(['tasks', 'show', id, ...q()]),
      rescue(['tasks', 'show', '1697760001000-000000000042', ...q()]),
    ]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(new RegExp(`^id +${id}$`, 'm'));
    expect(human.stdout).toMatch(/^state +owned$/m);
    expect(human.stdout).toMatch(/^owner +eon$/m);
    expect(human.stdout).toMatch(/^lease end +\d{4}-\d\d-\d\dT[\d:.]+Z {2}\(in \d+s\)$/m);
    expect(human.stdout).toMatch(/^cycles +0 \(halts at 3\)$/m);
    expect(human.stdout).toMatch(/^meta +kind = mail$/m);
    expect(asJson.task).toEqual(owned);
    expect(asJson.facts).toMatchObject({
      id,
      kind: 'owned',
      owner: 'eon',
      cycles: 0,
      cancel: 3,
      leaseEnd: owned.core?.[Label.Expiry],
    });
    expect(missing.code).toBe(4);
    expect(oneLineError(missing)).toBe(
      'rescue: task 1697760001000-000000000042 is not in the queue',
    );
  });

  it('show prints the outcome of a finished task, with its result and log, from the outcome records', async () => {
    const engine = queue().engine('eon', { clock: () => new Date() });
    const created = await engine.create({ meta: { kind: 'resize' } });
    const worker = new Worker(engine, [
      {
        filter: () => true,
        ensure: (_task, context) => {
          context.log('resized to 10 px');
          return Promise.resolve({ width: 10 });
        },
      },
    ]);
    const ensured = new Promise((resolve) => worker.once('task:ensured', resolve));
    await worker.start();
    await ensured;
    await worker.stop();

    const id = idOf(created);
    const [human, asJson] = await Promise.all([
      rescue(['tasks', 'show', id, ...q()]),
      rescueJson<{ task: Task | null; outcome: Record<string, unknown> }>([
        'tasks',
        'show',
        id,
        ...q(),
      ]),
    ]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(`task ${id} is not in the queue any more`);
    expect(human.stdout).toMatch(/^state +completed$/m);
    expect(human.stdout).toMatch(/^result +\{"width":10\}$/m);
    expect(human.stdout).toMatch(/^log:\n {2}resized to 10 px$/m);
    expect(asJson.task).toBeNull();
    expect(asJson.outcome).toMatchObject({
      id,
      state: 'completed',
      worker: 'eon',
      result: { width: 10 },
      log: ['resized to 10 px'],
    });
  });

  it('delete removes a task whoever owns it, with --yes; a task not in the queue exits 4', async () => {
    const engine = queue().engine();
    const owned = await engine.create({ meta: { kind: 'mail' } });
    await engine.search();
    const other = await engine.create({ meta: { kind: 'sms' } });
    const [deleted, missing] = await Promise.all([
      rescue(['tasks', 'delete', idOf(owned), '--yes', ...q()]),
      rescue(['tasks', 'delete', '1697760001000-000000000042', '--yes', ...q()]),
    ]);
    expect(deleted).toEqual({ code: 0, stdout: `deleted ${idOf(owned)}\n`, stderr: '' });
    expect(missing.code).toBe(4);
    expect(oneLineError(missing)).toMatch(
      /^rescue: delete: task 1697760001000-000000000042 is not in the queue/,
    );
    expect((await engine.lister({ meta: { '*': '*' } })).map(idOf)).toEqual([idOf(other)]);
    expect((await engine.stats()).owned).toBe(0);
  });

  it('delete by id with --dry-run shows the task and changes nothing; --json prints the outcome', async () => {
    const engine = queue().engine();
    const id = idOf(await engine.create({ meta: { kind: 'mail' } }));
    const [dry, dryJson, missing] = await Promise.all([
      rescue(['tasks', 'delete', id, '--dry-run', ...q()]),
      rescueJson(['tasks', 'delete', id, '--dry-run', ...q()]),
      rescue(['tasks', 'delete', '1697760001000-000000000042', '--dry-run', ...q()]),
    ]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(id);
    expect(dry.stdout).toMatch(/\nwould delete 1 task \(dry run: nothing changed\)\n$/);
    expect(dryJson).toEqual({ action: 'delete', dryRun: true, ids: [id], skipped: [] });
    expect(missing.code).toBe(4);
    expect((await engine.lister({ meta: { '*': '*' } })).map(idOf)).toEqual([id]);
    const done = await rescueJson(['tasks', 'delete', id, '--yes', ...q()]);
    expect(done).toEqual({ action: 'delete', dryRun: false, ids: [id], skipped: [] });
    expect(await engine.lister({ meta: { '*': '*' } })).toEqual([]);
  });

  it('delete by query lists with --dry-run and changes nothing, and removes only what matches with --yes', async () => {
    const engine = queue().engine();
    const a = await engine.create({ meta: { kind: 'mail', to: 'a' } });
    const b = await engine.create({ meta: { kind: 'mail', to: 'b' } });
    const c = await engine.create({ meta: { kind: 'sms', to: 'c' } });
    await engine.search({ meta: { to: 'b' } }); // b is owned
    const before = await queue().keys();

    const dry = await rescue(['tasks', 'delete', '--meta', 'kind=mail', '--dry-run', ...q()]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(idOf(a));
    expect(dry.stdout).toContain(idOf(b));
    expect(dry.stdout).not.toContain(idOf(c));
    expect(dry.stdout).toMatch(/would delete 2 tasks \(dry run: nothing changed\)\n$/);
    expect(await queue().keys()).toEqual(before);
    expect(await engine.lister({ meta: { '*': '*' } })).toHaveLength(3);

    const claimable = await rescueJson<{ ids: string[]; dryRun: boolean }>([
      'tasks',
      'delete',
      '--state',
      'claimable',
      '--meta',
      'kind=mail',
      '--yes',
      ...q(),
    ]);
    expect(claimable).toEqual({ action: 'delete', dryRun: false, ids: [idOf(a)], skipped: [] });
    const rest = await rescue([
      'tasks',
      'delete',
      '--query',
      '{"meta":{"kind":"mail"}}',
      '--yes',
      ...q(),
    ]);
    expect(rest).toEqual({ code: 0, stdout: 'deleted 1 task\n', stderr: '' });
    expect((await engine.lister({ meta: { '*': '*' } })).map(idOf)).toEqual([idOf(c)]);
  });

  it('reset resets the circuit breaker of a halted task; a task without one exits 1', async () => {
    const id = await halted({ kind: 'mail' });
    const engine = queue().engine();
    const plain = await engine.create({ meta: { kind: 'plain' } });
    expect((await engine.stats()).halted).toBe(1);
    const [shown, noBreaker] = await Promise.all([
      rescueJson<{ facts: { kind: string; cycles: number } }>(['tasks', 'show', id, ...q()]),
      rescue(['tasks', 'reset', idOf(plain), ...q()]),
    ]);
    expect(shown.facts).toMatchObject({ kind: 'halted', cycles: 1 });
    expect(noBreaker.code).toBe(1);
    expect(oneLineError(noBreaker)).toBe(
      `rescue: task ${idOf(plain)} has no circuit breaker (core cancel): nothing to reset`,
    );

    const reset = await rescue(['tasks', 'reset', id, ...q()]);
    expect(reset).toEqual({ code: 0, stdout: 'reset 1 task\n', stderr: '' });
    const stats = await engine.stats();
    expect([stats.halted, stats.claimable]).toEqual([0, 2]);
    const [task] = await engine.lister({ meta: { kind: 'mail' } });
    expect(task?.core?.[Label.Cycles]).toBeUndefined();
  });

  it('reset by query resets the halted tasks that match, with --yes; --dry-run only lists them', async () => {
    const mail = await halted({ kind: 'mail' });
    const sms = await halted({ kind: 'sms' });
    const engine = queue().engine();
    const dry = await rescueJson<{ ids: string[] }>([
      'tasks',
      'reset',
      '--meta',
      'kind=*',
      '--dry-run',
      ...q(),
    ]);
    expect(dry.ids.sort()).toEqual([mail, sms].sort());
    expect((await engine.stats()).halted).toBe(2);
    const done = await rescueJson<{ ids: string[] }>([
      'tasks',
      'reset',
      '--meta',
      'kind=mail',
      '--yes',
      ...q(),
    ]);
    expect(done).toEqual({ action: 'reset', dryRun: false, ids: [mail], skipped: [] });
    const page = await engine.tasks({ state: 'halted' });
    expect(page.tasks.map(idOf)).toEqual([sms]);
  });
});
