import { UnrecoverableError } from '../../lib/errors.js';
import { Label } from '../../lib/task/label.js';
import { Client, useDashboards } from '../harness/dashboard.js';
import { idOf, until, useWorkerQueue } from '../harness/worker.js';

// The dashboard as an operator's tool when tasks fail (HTTP): the task page
// shows the last failed attempt (error, stack, log, times) and the outcome
// of a halt; a finished task's page shows its outcome while it is kept; the
// Finished page lists completed and failed tasks; the halted list shows each
// task's last error; bulk actions on a state and a query, behind --write and
// the CSRF check; the first-look fixes (the state column, labels beside ids,
// event times to the millisecond, chart axes).

describe('the dashboard when tasks fail', () => {
  const dashboard = useDashboards();
  const queue = useWorkerQueue();

  it('shows the last failed attempt of a queued task: error, stack, log, attempts with times', async () => {
    const q = queue();
    const engine = q.live('dash');
    const worker = q.worker(q.live('w'), [
      {
        filter: () => true,
        ensure: (_task, context) => {
          context.log('calling <the upstream>');
          return Promise.reject(new Error('upstream said <no>'));
        },
        retry: { backoff: 'fixed', delay: 60_000 },
      },
    ]);
    await worker.start();
    const task = await engine.create({ meta: { kind: 'mail' } });
    await until(
      async () => (await engine.status(idOf(task)))?.failure !== undefined,
      5_000,
      'failed once',
    );
    const page = (await new Client(dashboard(engine)).page(`/task/${idOf(task)}`)).text;
    expect(page).toContain('data-outcome="failure"');
    expect(page).toContain('upstream said &lt;no&gt;'); // escaped
    expect(page).toMatch(/data-error="stack"><code>Error: upstream said &lt;no&gt;\n\s+at /);
    expect(page).toContain('<li><code>calling &lt;the upstream&gt;</code></li>');
    expect(page).toMatch(/data-fact="attempts">\s*1\s*</);
    expect(page).toMatch(/data-fact="started"><time datetime=/);
  });

  it('keeps the page of a finished task alive while its outcome is kept, and lists it under Finished', async () => {
    const q = queue();
    const engine = q.live('dash');
    const worker = q.worker(q.live('w'), [
      {
        filter: (task) => task.meta?.['kind'] === 'ok',
        ensure: (_task, context) => {
          context.log('resized');
          return Promise.resolve({ width: 320 });
        },
      },
      {
        filter: (task) => task.meta?.['kind'] === 'bad',
        ensure: () => Promise.reject(new UnrecoverableError('no such image')),
      },
    ]);
    await worker.start();
    const ok = await engine.run({ meta: { kind: 'ok' } }, { timeout: 5_000 });
    const bad = await engine.create({ meta: { kind: 'bad' } });
    await until(async () => (await engine.status(idOf(bad)))?.state === 'halted', 5_000, 'halted');
    await engine.removeTasks({ state: 'halted' }); // its outcome: removed
    const client = new Client(dashboard(engine));
    const finished = await client.page(`/task/${ok.id}`);
    expect(finished.status).toBe(200);
    expect(finished.text).toContain('data-kind="completed"');
    expect(finished.text).toContain('&quot;width&quot;: 320');
    expect(finished.text).toContain('<li><code>resized</code></li>');
    const completed = (await client.page('/finished?state=completed')).text;
    expect(completed).toContain(`data-outcome-row="${ok.id}"`);
    expect(completed).not.toContain(`data-outcome-row="${idOf(bad)}"`);
    const removed = (await client.page('/finished?state=removed')).text;
    expect(removed).toContain(`data-outcome-row="${idOf(bad)}"`);
    expect((await client.page('/finished')).text).toContain(`href="/task/${ok.id}"`);
    expect((await client.page('/task/1697760001000-000000000042')).status).toBe(404);
  });

  it('lists halted tasks with their last error, and the page of one with the outcome of its halt', async () => {
    const q = queue();
    const engine = q.live('dash');
    const worker = q.worker(q.live('w'), [
      { filter: () => true, ensure: () => Promise.reject(new UnrecoverableError('bad address')) },
    ]);
    await worker.start();
    const task = await engine.create({ meta: { kind: 'mail' } });
    await until(async () => (await engine.stats()).halted === 1, 5_000, 'halted');
    const client = new Client(dashboard(engine));
    const list = (await client.page('/tasks?state=halted')).text;
    expect(list).toContain('<th>state</th>');
    expect(list).not.toContain('<th>kind</th>');
    expect(list).toContain('<th>last error</th>');
    expect(list).toMatch(/data-last-error[^>]*>\s*<span class="error-message">bad address</);
    const page = (await client.page(`/task/${idOf(task)}`)).text;
    expect(page).toContain('data-outcome="halt"');
    expect(page).toContain('UNRECOVERABLE');
  });

  it('bulk: resets and deletes the tasks of a state a query matches, only with write access and a CSRF token', async () => {
    const q = queue();
    const engine = q.live('dash');
    const halt = async (kind: string) => {
      const task = await engine.create({ core: { [Label.Cancel]: '1' }, meta: { kind } });
      const claimer = q.live(`claimer-${kind}`, { expiry: 1 });
      await claimer.search({ meta: { kind } });
      await until(
        async () => {
          await claimer.expire();
          return (await engine.status(idOf(task)))?.state === 'halted';
        },
        5_000,
        `${kind} halted`,
      );
      return idOf(task);
    };
    const mail = [await halt('mail'), await halt('mail')];
    const report = await halt('report');
    const readOnly = new Client(dashboard(engine));
    expect((await readOnly.page('/tasks?state=halted')).text).not.toContain('data-action="bulk-');
    const fields = { action: 'reset', 'bulk-state': 'halted', 'bulk-query': 'kind=mail' };
    expect((await readOnly.post('/tasks/bulk', fields)).status).toBe(403);

    const client = new Client(dashboard(engine, { write: true }));
    const list = (await client.page('/tasks?state=halted&query=kind%3Dmail')).text;
    expect(list).toContain('data-action="bulk-reset"');
    expect(list).toContain('name="bulk-query" value="kind=mail"');
    expect((await client.post('/tasks/bulk', { ...fields, csrf: 'forged' })).status).toBe(403);
    expect((await engine.stats()).halted).toBe(3);

    const reset = await client.post('/tasks/bulk', fields);
    expect(reset.status).toBe(200);
    expect(await reset.text()).toContain(
      'Reset the circuit breaker of 2 tasks of halted matching kind=mail.',
    );
    expect((await engine.tasks({ state: 'halted' })).tasks.map(idOf)).toEqual([report]);
    expect((await engine.tasks({ state: 'claimable' })).tasks.map(idOf).sort()).toEqual(
      [...mail].sort(),
    );

    await client.page('/tasks?state=halted');
    const removed = await client.post('/tasks/bulk', {
      action: 'remove',
      'bulk-state': 'halted',
      'bulk-query': '',
    });
    expect(await removed.text()).toContain('Removed 1 task of halted.');
    expect(await engine.status(report)).toMatchObject({ state: 'removed' });
    const wrong = await client.post('/tasks/bulk', {
      action: 'explode',
      'bulk-state': 'halted',
      'bulk-query': '',
    });
    expect(wrong.status).toBe(400);
    expect((await engine.stats()).claimable).toBe(2);
  });

  it('acts on a selection of ids: checkboxes with write access only, each id checked on the server, CSRF', async () => {
    const q = queue();
    const engine = q.live('dash');
    const ids: string[] = [];
    for (let n = 0; n < 4; n++)
      ids.push(idOf(await engine.create({ meta: { kind: 'mail', n: `${n}` } })));
    const plain = await engine.create({ meta: { kind: 'report' } });
    const [a = '', b = '', c = '', d = ''] = ids;
    const readOnly = new Client(dashboard(engine));
    const shown = (await readOnly.page('/tasks?state=claimable')).text;
    expect(shown).not.toContain('data-select');
    expect(shown).not.toContain('id="bulk-selection"');
    const selection = { selection: '1', 'bulk-state': 'claimable', 'bulk-query': '' };
    expect(
      (await readOnly.post('/tasks/bulk', { ...selection, action: 'remove', id: [a] })).status,
    ).toBe(403);

    const client = new Client(dashboard(engine, { write: true }));
    const list = (await client.page('/tasks?state=claimable')).text;
    expect(list).toMatch(new RegExp(`name="id"\\s+value="${a}"\\s+form="bulk-selection"`));
    expect(list).toContain('data-select-all');
    expect(list).toContain('data-action="selection-remove"');
    expect(
      (
        await client.post('/tasks/bulk', {
          ...selection,
          action: 'remove',
          id: [a],
          csrf: 'forged',
        })
      ).status,
    ).toBe(403);
    expect(await engine.status(a)).toMatchObject({ state: 'queued' });

    // remove two ticked tasks; an id that is not one and a task already gone are named, not acted on
    const removed = await client.post('/tasks/bulk', {
      ...selection,
      action: 'remove',
      id: [a, b, 'not-an-id', '1697760001000-000000099999', a],
    });
    expect(removed.status).toBe(200);
    const text = await removed.text();
    expect(text).toContain('Removed 2 selected tasks. 2 left alone.');
    expect(text).toContain(`data-acted="${a}"`);
    expect(text).toContain('data-skipped="not-an-id"');
    expect(text).toContain('not a task id');
    expect(text).toContain('not in the queue (any more)');
    expect(await engine.status(a)).toMatchObject({ state: 'removed' });
    expect(await engine.status(b)).toMatchObject({ state: 'removed' });

    const cancelled = await client.post('/tasks/bulk', { ...selection, action: 'cancel', id: c });
    expect(await cancelled.text()).toContain('Cancelled 1 selected task.');
    expect(await engine.status(c)).toMatchObject({ state: 'cancelled' });
    // reset: a task without a circuit breaker is left alone, and says why
    const reset = await client.post('/tasks/bulk', { ...selection, action: 'reset', id: [d] });
    expect(await reset.text()).toContain('no circuit breaker (core cancel) to reset');
    const none = await client.post('/tasks/bulk', { ...selection, action: 'remove' });
    expect(none.status).toBe(400);
    expect(await none.text()).toContain('No task was selected');
    const many = await client.post('/tasks/bulk', {
      ...selection,
      action: 'remove',
      id: Array.from({ length: 501 }, (_, n) => `x${n}`),
    });
    expect(many.status).toBe(400);
    expect((await engine.tasks({ state: 'claimable' })).tasks.map(idOf).sort()).toEqual(
      [d, idOf(plain)].sort(),
    );
  });

  it('shows labels beside bare ids (events, claimable tasks nobody takes), event times to the ms, chart axes', async () => {
    const q = queue();
    const engine = q.live('dash');
    await engine.events(); // record from now on
    const board = dashboard(engine, { sampleInterval: 50 });
    // a live worker whose handler takes kind=a only: a kind=b task is taken by nobody
    const worker = q.worker(q.live('w'), [
      { labels: { meta: { kind: 'a' } }, filter: () => false, ensure: () => Promise.resolve() },
    ]);
    await worker.start();
    const lonely = await engine.create({ meta: { kind: 'b', image: 'cat.png' } });
    const client = new Client(board);
    let overview = '';
    await until(
      async () => {
        overview = (await client.page('/')).text;
        return overview.includes(`data-unmatched="${idOf(lonely)}"`);
      },
      5_000,
      'the overview names the unmatched task',
    );
    expect(overview).toMatch(
      new RegExp(`data-unmatched="${idOf(lonely)}"[\\s\\S]*?<span class="value"\\s*>b</span`),
    );
    await until(
      async () => (overview = (await client.page('/')).text).includes('data-axis="top"'),
      5_000,
      'the chart has samples',
    );
    expect(overview).toMatch(/data-axis="from">\d\d:\d\d:\d\d</);
    const events = (await client.page('/events')).text;
    const times = [...events.matchAll(/<time datetime="([^"]+)">/g)].map((match) => match[1]);
    expect(times.length).toBeGreaterThan(0);
    for (const time of times) expect(time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(events).toContain('image=cat.png kind=b'); // as stored: keys in order
  });
});
