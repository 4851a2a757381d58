import { existsSync, mkdirSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { UnrecoverableError } from '../../lib/errors.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { useDashboards, useServers } from '../harness/dashboard.js';
import { idOf, until, useWorkerQueue, type WorkerQueue } from '../harness/worker.js';

// The dashboard in a real browser: Debian's Chromium driven by
// playwright-core. Each page on a queue the test filled, an action and its
// result arriving live in another tab, a change made elsewhere arriving over
// Server-Sent Events and by polling, the stream paused while the tab is
// hidden, read-only mode refusing actions, and a failing task's error, stack
// and log, the Finished lists and a bulk reset of dead letters. With
// WRITE_SCREENSHOTS=1 the tests write docs/dashboard/*.png.

const executablePath = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const screenshots = process.env['WRITE_SCREENSHOTS'] === '1';
const shotDir = new URL('../../docs/dashboard/', import.meta.url);
/** A label value that would run script if a page wrote it unescaped. */
const hostile = '<img src=x onerror="window.__pwned=1">';

let browser: Browser;

beforeAll(async () => {
  if (!existsSync(executablePath))
    throw new Error(
      `Chromium is missing at ${executablePath}: apt-get install -y chromium (scripts/setup does it as root), or set CHROMIUM_PATH`,
    );
  browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
});

afterAll(async () => {
  await browser.close();
});

describe('the dashboard in a browser', () => {
  // closed before the queue's engines (afterEach hooks run in the order they are registered)
  const served = useServers();
  const dashboard = useDashboards();
  const queue = useWorkerQueue();
  let contexts: BrowserContext[] = [];
  afterEach(async () => {
    await Promise.all(contexts.map((context) => context.close()));
    contexts = [];
  });

  async function newPage(init?: string): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    contexts.push(context);
    context.setDefaultTimeout(8_000); // a step that fails says which, before the test's timeout
    const page = await context.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
    if (init !== undefined) await page.addInitScript(init);
    return page;
  }

  async function serve(q: WorkerQueue, options: { write?: boolean; pollInterval?: number } = {}) {
    const board = dashboard(q.live('dashboard'), { sampleInterval: 100, ...options });
    return served(await board.listen({ port: 0 }));
  }

  async function shoot(page: Page, name: string): Promise<void> {
    if (!screenshots) return;
    mkdirSync(shotDir, { recursive: true });
    await page.screenshot({ path: new URL(`${name}.png`, shotDir).pathname, fullPage: true });
  }

  it('shows each page of a queue the test filled', async () => {
    const q = queue();
    const engine = q.live('producer');
    const mail = (n: number): Task => ({
      meta: { 'x.api.io/action': 'send-mail', 'x.api.io/user': `u-${n}` },
    });
    for (let n = 0; n < 8; n++) await engine.create(mail(n));
    await engine.create({ meta: { 'x.api.io/action': 'resize', 'x.api.io/image': hostile } });
    const halted = await engine.create({
      core: { [Label.Cancel]: '1' },
      meta: { 'x.api.io/action': 'resize', 'x.api.io/image': 'flaky.png' },
    });
    await engine.create({
      cron: { [Label.Every]: 'day at 08:00 in Europe/Berlin' },
      meta: { 'x.api.io/action': 'report' },
    });
    await engine.create({
      cron: { [Label.Every]: '15 minutes' },
      meta: { 'x.api.io/action': 'sync' },
    });
    const gate = await engine.create({
      gate: { 'y.api.io/leaf-0': 'waiting', 'y.api.io/leaf-1': 'waiting' },
      meta: { 'x.api.io/action': 'merge' },
    });
    const trigger = await engine.create({
      gate: { 'y.api.io/leaf-0': 'trigger' },
      meta: { 'x.api.io/action': 'leaf' },
    });
    // the breaker: a claim whose lease is revoked once halts the task (cancel 1)
    const claimer = q.live('claimer', { expiry: 1 });
    await claimer.search({ meta: { 'x.api.io/image': 'flaky.png' } });
    await until(
      async () => {
        await claimer.expire();
        return (await engine.stats()).halted === 1;
      },
      5_000,
      'the flaky task halted',
    );
    const worker = q.worker(
      q.live('worker-a'),
      [
        {
          labels: { meta: { 'x.api.io/action': 'send-mail' } },
          filter: () => true,
          // runs until the worker stops (stopTimeout aborts the signal)
          ensure: (_task, { signal: stopped }) =>
            new Promise((resolve) => stopped.addEventListener('abort', () => resolve(undefined))),
        },
      ],
      { concurrency: 3, heartbeatInterval: 100, stopTimeout: 50 },
    );
    await worker.start();
    await until(
      async () => (await engine.workers())[0]?.running === 3,
      5_000,
      'worker-a runs three tasks',
    );
    const server = await serve(q, { write: true });
    const page = await newPage();

    await page.goto(`${server.url}/`);
    await page.locator('#live-status[data-state="live"]').waitFor();
    const stat = (name: string) => page.locator(`[data-stat="${name}"]`).textContent();
    expect(await stat('tasks')).toBe('14');
    expect(await stat('owned')).toBe('3');
    expect(await stat('halted')).toBe('1');
    expect(await stat('cronTemplates')).toBe('2');
    expect(await stat('workers')).toBe('1');
    // the counts follow the queue live: three more tasks, one at a time
    for (let count = 15; count <= 17; count++) {
      await engine.create({
        meta: { 'x.api.io/action': 'thumbnail', 'x.api.io/image': `${count}.png` },
      });
      await page.locator('[data-stat="tasks"]', { hasText: String(count) }).waitFor();
    }
    await shoot(page, 'overview');

    await page.getByRole('link', { name: 'Tasks', exact: true }).click();
    await page.locator('select[name="state"]').selectOption('claimable');
    await page.locator('input[name="query"]').fill('x.api.io/action=send-mail');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/state=claimable/);
    expect(await page.locator('tr[data-task]').count()).toBe(5);
    await page.locator('select[name="state"]').selectOption('all');
    await page.locator('input[name="query"]').fill('');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/state=all/);
    expect(await page.locator('tr[data-task]').count()).toBe(17);
    expect(await page.getByText(hostile).count()).toBe(1); // shown as text, not run
    await shoot(page, 'tasks');

    await page.goto(`${server.url}/task/${idOf(trigger)}`);
    expect(await page.locator('h1 .kind').textContent()).toBe('claimable');
    expect(await page.locator('section.map').count()).toBe(7);
    await page.locator(`.relations a[href="/task/${idOf(gate)}"]`).click();
    await page.waitForURL(`**/task/${idOf(gate)}`);
    expect(await page.locator('[data-gate-key]').count()).toBe(2);
    await page.goto(`${server.url}/task/${idOf(halted)}`);
    expect(await page.locator('[data-kind]').textContent()).toBe('halted');
    expect(await page.locator('form[data-action="cycles"]').count()).toBe(1);
    await shoot(page, 'task');

    await page.getByRole('link', { name: 'Templates' }).click();
    expect(await page.locator('table.cron-templates tbody tr').count()).toBe(2);
    expect(await page.locator('table.gate-templates [data-gate="waiting"] li').count()).toBe(2);
    await shoot(page, 'templates');

    await page.getByRole('link', { name: 'Workers' }).click();
    expect(
      await page.locator('tr[data-worker="worker-a"] [data-fact="running"]').textContent(),
    ).toBe('3 / 3');
    expect(await page.locator('tr[data-worker="worker-a"] ul.ids li').count()).toBe(3);
    await shoot(page, 'workers');

    expect(await page.evaluate('window.__pwned')).toBeUndefined();
  });

  // docs/semantics.md §3.14–§3.16: what stats() reads of flow control, on the overview
  it('shows a paused queue, the caps with owned counts and the rate limits with window counts, live', async () => {
    const q = queue();
    const engine = q.live('producer');
    const tenant = 'x.api.io/tenant';
    await engine.setCap({ key: tenant, concurrency: 1 });
    await engine.setRateLimit({ key: tenant, limit: '10 per hour' });
    await engine.pause();
    for (const value of ['hot', 'hot', 'hot', 'cold', hostile])
      await engine.create({ meta: { [tenant]: value } });
    const server = await serve(q);
    const page = await newPage();
    await page.goto(`${server.url}/`);
    await page.locator('#live-status[data-state="live"]').waitFor();
    await page.getByText('The queue is paused since').waitFor();
    const cap = page.locator(`tr[data-cap="${tenant}"]`);
    const rate = page.locator(`tr[data-rate-limit="${tenant}"]`);
    expect(await cap.locator('[data-cap-owned]').textContent()).toBe('0');
    expect(await rate.locator('[data-rate-counted]').textContent()).toBe('0');

    // resumed and claimed elsewhere: the page follows without a reload
    await engine.resume();
    while ((await engine.search()) !== undefined);
    await page.getByText('The queue is paused since').waitFor({ state: 'detached' });
    await cap.locator('[data-cap-owned]', { hasText: '3' }).waitFor();
    expect((await cap.locator('[data-cap-full]').textContent())?.trim()).toBe('3 of 3');
    expect(await cap.locator('strong[data-value="hot"]').textContent()).toContain('hot 1');
    await rate.locator('[data-rate-counted]', { hasText: '3' }).waitFor();
    expect(await rate.locator('span[data-value="hot"]').textContent()).toMatch(
      /hot 1\s+\(reopens in /,
    );
    expect(await page.getByText(hostile).count()).toBe(2); // shown as text, not run
    await shoot(page, 'overview-flow');
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
  });

  it('deletes a task in one tab and the other tab sees it go, live; a task created elsewhere arrives', async () => {
    const q = queue();
    const engine = q.live('producer');
    const doomed = await engine.create({ meta: { kind: 'doomed' } });
    await engine.create({ meta: { kind: 'kept' } });
    const server = await serve(q, { write: true });
    const watcher = await newPage();
    await watcher.goto(`${server.url}/tasks`);
    await watcher.locator('#live-status[data-state="live"]').waitFor();
    expect(await watcher.locator('tr[data-task]').count()).toBe(2);

    const operator = await newPage();
    await operator.goto(`${server.url}/task/${idOf(doomed)}`);
    await operator.getByRole('button', { name: 'Delete (bypass)' }).click();
    await operator.waitForURL(/\/tasks\?done=deleted/);
    expect(await operator.locator('.notice.ok').textContent()).toContain('The task was deleted.');
    expect(await engine.exists({ meta: { kind: 'doomed' } })).toBe(false);

    // the watcher was not reloaded: its list changed over Server-Sent Events
    await watcher.locator(`tr[data-task="${idOf(doomed)}"]`).waitFor({ state: 'detached' });
    const fresh = await engine.create({ meta: { kind: 'fresh' } });
    await watcher.locator(`tr[data-task="${idOf(fresh)}"]`).waitFor();
    expect(await watcher.locator('tr[data-task]').count()).toBe(2);
    expect(await watcher.evaluate("performance.getEntriesByType('navigation').length")).toBe(1);

    // and the overview's counts follow
    await watcher.goto(`${server.url}/`);
    await watcher.locator('#live-status[data-state="live"]').waitFor();
    await engine.create({ meta: { kind: 'one more' } });
    await watcher.locator('[data-stat="tasks"]', { hasText: '3' }).waitFor();
  });

  it('follows the events as they happen, a hostile failure reason shown as text', async () => {
    const q = queue();
    const engine = q.live('producer');
    const server = await serve(q);
    const page = await newPage();
    await page.goto(`${server.url}/events`);
    await page.locator('#live-status[data-state="live"]').waitFor();
    const task = await engine.create({ meta: { kind: 'followed' } });
    const row = (kind: string) => page.locator(`#events-body tr[data-kind="${kind}"]`);
    await row('created')
      .filter({ hasText: idOf(task) })
      .waitFor();
    const worker = q.worker(q.live('worker-a'), [
      {
        filter: () => true,
        ensure: () => Promise.reject(new Error(hostile)),
      },
    ]);
    await worker.start();
    await row('claimed').filter({ hasText: 'worker-a' }).waitFor();
    await row('failed').waitFor();
    expect(await row('failed').locator('td').nth(5).textContent()).toBe(hostile);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    await shoot(page, 'events');
    // the page was not reloaded: the rows were added as the events came
    expect(await page.evaluate("performance.getEntriesByType('navigation').length")).toBe(1);
  });

  it('resets the cycles of a halted task and creates a task from the form', async () => {
    const q = queue();
    const engine = q.live('producer');
    const claimer = q.live('claimer', { expiry: 1 });
    const flaky = await engine.create({ core: { [Label.Cancel]: '1' }, meta: { kind: 'flaky' } });
    await claimer.search();
    await until(
      async () => {
        await claimer.expire();
        return (await engine.stats()).halted === 1;
      },
      5_000,
      'the task halted',
    );
    const server = await serve(q, { write: true });
    const page = await newPage();
    await page.goto(`${server.url}/task/${idOf(flaky)}`);
    expect(await page.locator('[data-kind]').textContent()).toBe('halted');
    await page.getByRole('button', { name: 'Reset cycles' }).click();
    await page.waitForURL(/done=reset/);
    expect(await page.locator('[data-kind]').textContent()).toBe('claimable');
    expect(await page.locator('[data-fact="cycles"]').textContent()).toContain('0 of 1');

    await page.goto(`${server.url}/create`);
    await page.locator('textarea[name="task"]').fill('{"meta": {"kind": "from the form"}}');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(/done=created/);
    expect(await page.locator('section.map[data-map="meta"]').textContent()).toContain(
      'from the form',
    );
    await page.goto(`${server.url}/create`);
    await page.locator('textarea[name="task"]').fill('{"sync": {"a": "b"}}');
    await page.getByRole('button', { name: 'Create' }).click();
    expect(await page.locator('.notice.error').textContent()).toContain('The engine refused');
    expect(await page.locator('textarea[name="task"]').inputValue()).toBe('{"sync": {"a": "b"}}');
  });

  it('shows a failed task’s error, stack and log, the finished lists, and resets dead letters in bulk', async () => {
    const q = queue();
    const engine = q.live('producer');
    const worker = q.worker(
      q.live('worker-a'),
      [
        {
          filter: (task) => task.meta?.['x.api.io/action'] === 'resize',
          ensure: (_task, context) => {
            context.log('fetching s3://images/cat.png');
            context.log('resizing to 640 px');
            return Promise.resolve({ width: 640 });
          },
        },
        {
          filter: (task) => task.meta?.['x.api.io/action'] === 'send-mail',
          ensure: (_task, context) => {
            context.log('connecting to smtp.example.com:25');
            return Promise.reject(new UnrecoverableError('mailbox unavailable: 550 no such user'));
          },
        },
        {
          filter: (task) => task.meta?.['x.api.io/action'] === 'sync',
          ensure: (_task, context) => {
            context.log('GET https://api.example.com/orders');
            return Promise.reject(new Error('upstream answered 503'));
          },
          retry: { backoff: 'exponential', delay: 60_000 },
        },
      ],
      { concurrency: 4 },
    );
    await worker.start();
    for (let n = 0; n < 3; n++)
      await engine.run(
        { meta: { 'x.api.io/action': 'resize', 'x.api.io/image': `${n}.png` } },
        { timeout: 5_000 },
      );
    for (let n = 0; n < 3; n++)
      await engine.create({ meta: { 'x.api.io/action': 'send-mail', 'x.api.io/user': `u-${n}` } });
    const sync = await engine.create({ meta: { 'x.api.io/action': 'sync' } });
    await until(
      async () =>
        (await engine.stats()).halted === 3 &&
        (await engine.status(idOf(sync)))?.failure !== undefined,
      5_000,
      'three mails halted, the sync failed once',
    );
    const server = await serve(q, { write: true });
    const page = await newPage();

    await page.goto(`${server.url}/task/${idOf(sync)}`);
    const failure = page.locator('section[data-outcome="failure"]');
    expect(await failure.locator('[data-error="message"]').textContent()).toContain(
      'upstream answered 503',
    );
    expect(await failure.locator('[data-error="stack"]').textContent()).toMatch(
      /^Error: upstream answered 503\n\s+at /,
    );
    expect(await failure.locator('ol.log li').allTextContents()).toEqual([
      'GET https://api.example.com/orders',
    ]);
    expect(await page.locator('[data-fact="attempts"]').textContent()).toContain('1');
    await shoot(page, 'task-failure');

    await page.getByRole('link', { name: 'Finished', exact: true }).click();
    await page.locator('[data-tab="completed"]').click();
    await page.waitForURL(/state=completed/);
    expect(await page.locator('tr[data-outcome-row]').count()).toBe(3);
    await shoot(page, 'finished');
    await page.locator('tr[data-outcome-row] a').first().click();
    expect(await page.locator('[data-kind]').textContent()).toBe('completed');
    expect(await page.locator('section[data-outcome="outcome"] ol.log li').count()).toBe(2);

    await page.goto(`${server.url}/tasks?state=halted&query=x.api.io%2Faction%3Dsend-mail`);
    expect(await page.locator('td[data-last-error]').allTextContents()).toEqual(
      Array.from({ length: 3 }, () => expect.stringContaining('550 no such user') as unknown),
    );
    await shoot(page, 'halted');
    await page.getByRole('button', { name: 'Reset cycles of all' }).click();
    await page.locator('[data-bulk-result="ok"]').waitFor();
    expect(await page.locator('[data-bulk-result]').textContent()).toContain(
      'Reset the circuit breaker of 3 tasks of halted',
    );
    // the worker takes them again, and halts them again
    await until(async () => (await engine.stats()).halted === 3, 5_000, 'halted again');
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
  });

  it('acts on tasks ticked in the list: the ticks survive a live refresh, select-all, a delete of the selection', async () => {
    const q = queue();
    const engine = q.live('producer');
    const ids: string[] = [];
    for (let n = 0; n < 4; n++)
      ids.push(idOf(await engine.create({ meta: { 'x.api.io/action': 'mail', n: `${n}` } })));
    const [a = '', b = '', c = '', d = ''] = ids;
    const server = await serve(q, { write: true });
    const page = await newPage();
    await page.goto(`${server.url}/tasks?state=claimable`);
    const box = (id: string) => page.locator(`input[data-select][value="${id}"]`);
    await box(a).check();
    await box(c).check();
    expect(await page.locator('[data-selected-count]').textContent()).toBe('2');
    // a change elsewhere refreshes the list: the ticked tasks stay ticked
    const refreshes = Number((await page.locator('body').getAttribute('data-refreshes')) ?? '0');
    await engine.create({ meta: { 'x.api.io/action': 'mail', n: 'new' } });
    await until(
      async () =>
        Number((await page.locator('body').getAttribute('data-refreshes')) ?? '0') > refreshes,
      5_000,
      'the list refreshed',
    );
    expect(await page.locator('input[data-select]').count()).toBe(5);
    expect(await box(a).isChecked()).toBe(true);
    expect(await box(b).isChecked()).toBe(false);
    expect(await box(c).isChecked()).toBe(true);
    await shoot(page, 'selection');
    await page.getByRole('button', { name: 'Delete selected (bypass)' }).click();
    await page.locator('[data-bulk-result="ok"]').waitFor();
    expect(await page.locator('[data-bulk-result]').textContent()).toContain(
      'Removed 2 selected tasks.',
    );
    expect(await engine.status(a)).toMatchObject({ state: 'removed' });
    expect(await engine.status(c)).toMatchObject({ state: 'removed' });
    expect(await engine.status(b)).toMatchObject({ state: 'queued' });

    await page.getByRole('link', { name: 'Back to the tasks' }).click();
    await page.locator('input[data-select-all]').check();
    expect(await page.locator('input[data-select]:checked').count()).toBe(3);
    await page.locator(`input[data-select][value="${d}"]`).uncheck();
    await page.getByRole('button', { name: 'Cancel selected' }).click();
    await page.locator('[data-bulk-result="ok"]').waitFor();
    expect(await page.locator('[data-bulk-result]').textContent()).toContain(
      'Cancelled 2 selected tasks.',
    );
    expect(await engine.status(b)).toMatchObject({ state: 'cancelled' });
    expect(await engine.status(d)).toMatchObject({ state: 'queued' });
  });

  it('refuses actions when read-only: no buttons, and a POST made anyway gets 403', async () => {
    const q = queue();
    const engine = q.live('producer');
    const task = await engine.create({ core: { [Label.Cancel]: '2' }, meta: { kind: 'a' } });
    const server = await serve(q);
    const page = await newPage();
    await page.goto(`${server.url}/task/${idOf(task)}`);
    expect(await page.locator('.mode').textContent()).toBe('read-only');
    expect(await page.locator('form[data-action]').count()).toBe(0);
    expect(await page.locator('.read-only-note').count()).toBe(1);
    const statuses = await page.evaluate(async (id) => {
      const answers = [];
      for (const path of [`/task/${id}/delete`, `/task/${id}/cycles`, '/create']) {
        const response = await fetch(path, {
          method: 'POST',
          body: new URLSearchParams({ csrf: 'x', task: '{"meta":{"a":"b"}}' }),
        });
        answers.push(response.status);
      }
      return answers;
    }, idOf(task));
    expect(statuses).toEqual([403, 403, 403]);
    expect(await engine.exists({ meta: { kind: 'a' } })).toBe(true);
    expect((await engine.stats()).tasks).toBe(1);
  });

  it('polls when Server-Sent Events are not available', async () => {
    const q = queue();
    const engine = q.live('producer');
    const server = await serve(q, { pollInterval: 200 });
    const page = await newPage('delete window.EventSource'); // a browser without Server-Sent Events
    await page.goto(`${server.url}/tasks`);
    expect(await page.locator('#live-status').getAttribute('data-state')).toBe('polling');
    const task = await engine.create({ meta: { kind: 'polled' } });
    await page.locator(`tr[data-task="${idOf(task)}"]`).waitFor();
  });

  it('closes the stream while the tab is hidden, and catches up when it is shown', async () => {
    const q = queue();
    const engine = q.live('producer');
    const server = await serve(q);
    const page = await newPage();
    await page.goto(`${server.url}/tasks`);
    await page.locator('#live-status[data-state="live"]').waitFor();
    const setHidden = (hidden: boolean) =>
      page.evaluate(
        `Object.defineProperty(document, 'hidden', { configurable: true, get: () => ${hidden} });
         document.dispatchEvent(new Event('visibilitychange'));`,
      );

    const streamEnded = page.waitForEvent('requestfailed', (request) =>
      request.url().endsWith('/live'),
    );
    await setHidden(true);
    await streamEnded; // the EventSource was closed: the server pushes nothing to a hidden tab
    expect(await page.locator('#live-status').getAttribute('data-state')).toBe('paused');
    const task = await engine.create({ meta: { kind: 'while hidden' } });

    const reopened = page.waitForRequest((request) => request.url().endsWith('/live'));
    await setHidden(false);
    await reopened;
    await page.locator(`tr[data-task="${idOf(task)}"]`).waitFor();
    await page.locator('#live-status[data-state="live"]').waitFor();
  });
});
