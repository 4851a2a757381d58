import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { formatQuery } from '../../lib/dashboard/query.js';
import { registerMetrics } from '../../lib/metrics/index.js';
import { Label, Method } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import { Client, dataText, useDashboards, useServers } from '../harness/dashboard.js';
import { idOf, signal, until, useWorkerQueue } from '../harness/worker.js';

// The dashboard over HTTP (its fetch handler, and listen()): what each page
// shows of a queue the test filled, the actions and what refuses them, auth,
// and the live stream. The browser suite (dashboard-browser.spec.ts) drives
// the same pages in Chromium.

const hostile = '<script>alert("x")</script>';

describe('the dashboard over HTTP', () => {
  // closed before the queue's engines (afterEach hooks run in the order they are registered)
  const served = useServers();
  const dashboard = useDashboards();
  const queue = useWorkerQueue();

  it('shows the counts by state and the oldest claimable task on the overview', async () => {
    const engine = queue().live('dash');
    const first = await engine.create({ meta: { kind: 'a' } });
    await engine.create({ meta: { kind: 'b' } });
    await engine.create({ cron: { [Label.Every]: 'hour' }, meta: { kind: 'report' } });
    await engine.create({ gate: { k: 'waiting' }, meta: { kind: 'merge' } });
    await engine.search({ meta: { kind: 'b' } });
    const client = new Client(dashboard(engine));
    const { status, text } = await client.page('/');
    expect(status).toBe(200);
    const stat = (name: string) => dataText(text, 'stat', name);
    expect([stat('tasks'), stat('claimable'), stat('owned'), stat('cronTemplates')]).toEqual([
      '4',
      '1',
      '1',
      '1',
    ]);
    expect(stat('gateTemplates')).toBe('1');
    expect(text).toContain(`href="/task/${idOf(first)}"`);
    expect(text).toContain(engine.keyfmt());
  });

  it('shows the declared caps and their counts on the overview, none without caps', async () => {
    const engine = queue().live('dash');
    const client = new Client(dashboard(engine));
    expect((await client.page('/')).text).not.toContain('Concurrency caps');
    await engine.setCap({ key: 'x.api.io/tenant', concurrency: 1 });
    await engine.setCap({ concurrency: 10 });
    await engine.create({ meta: { 'x.api.io/tenant': hostile } });
    await engine.create({ meta: { 'x.api.io/tenant': 'acme' } });
    await engine.search();
    const { text } = await client.page('/');
    expect(text).toContain('Concurrency caps');
    expect(text).toContain('the whole queue');
    expect(text).toContain('<code>x.api.io/tenant</code>');
    expect(text).toMatch(/<strong data-value="[^"]*"\s*><code>&lt;script&gt;/); // at its cap: bold
    expect(text).not.toContain(hostile);
    // owned per value from engine.stats(): the whole queue 1 of 10, the tenant 1 value at its cap
    expect(text).toMatch(/<tr data-cap="">[\s\S]*?data-cap-owned>1</);
    expect(text).toMatch(/<tr data-cap="x.api.io\/tenant">[\s\S]*?data-cap-full>\s*1 of 1\s*</);
  });

  it('shows a paused queue and the rate limits with the claims of their windows, none without', async () => {
    const engine = queue().live('dash');
    const client = new Client(dashboard(engine));
    const before = (await client.page('/')).text;
    expect(before).not.toContain('Rate limits');
    expect(before).not.toContain('is paused');
    await engine.setRateLimit({ key: 'x.api.io/tenant', limit: '1 per hour' });
    await engine.setRateLimit({ limit: '100 per hour' });
    await engine.create({ meta: { 'x.api.io/tenant': hostile } });
    await engine.create({ meta: { 'x.api.io/tenant': 'acme' } });
    await engine.create({ meta: { 'x.api.io/tenant': 'acme' } });
    await engine.search();
    await engine.search();
    expect(await engine.search()).toBeUndefined(); // both values' windows are full
    await engine.pause();
    const { text } = await client.page('/');
    expect(text).toContain('The queue is paused since');
    expect(text).toContain('Rate limits');
    expect(text).toContain('100 per hour');
    expect(text).toMatch(/<tr data-rate-limit="">[\s\S]*?data-rate-counted>2</);
    expect(text).toMatch(
      /<tr data-rate-limit="x.api.io\/tenant">[\s\S]*?data-rate-closed>\s*2 of 2\s*</,
    );
    expect(text).toMatch(/<strong data-value="acme"><code>acme<\/code> 1/);
    expect(text).not.toContain(hostile);
    await engine.resume();
    expect((await client.page('/')).text).not.toContain('is paused');
  });

  it('lists tasks by state and label query, a page at a time, with hostile labels escaped', async () => {
    const engine = queue().live('dash');
    for (let index = 0; index < 55; index++)
      await engine.create({ meta: { kind: 'mail', n: String(index) } });
    const odd = await engine.create({ meta: { kind: hostile } });
    const client = new Client(dashboard(engine));
    const rows = (page: string) => page.match(/<tr data-task=/g)?.length ?? 0;

    const first = await client.page('/tasks?state=claimable&query=kind%3Dmail');
    expect(first.status).toBe(200);
    expect(rows(first.text)).toBe(50);
    const next = /rel="next" href="([^"]+)"/.exec(first.text)?.[1]?.replace(/&amp;/g, '&');
    expect(next).toContain('cursor=claimable');
    const second = await client.page(next ?? '');
    expect(rows(second.text)).toBe(5);
    expect(second.text).toContain('end of the list');

    const all = await client.page(
      `/tasks?state=all&query=${encodeURIComponent(formatQuery({ meta: { kind: hostile } }))}`,
    );
    expect(rows(all.text)).toBe(1);
    expect(all.text).toContain(`data-task="${idOf(odd)}"`);
    expect(all.text).not.toContain('<script>alert');
    expect(all.text).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');

    const bad = await client.page('/tasks?query=kind');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('expected key=value');
    const reserved = await client.page('/tasks?query=x.rescue.io%2Fa%3D1');
    expect(reserved.status).toBe(400);
  });

  it("shows a task's maps, owner, lease end, cycles and its template and gate relations", async () => {
    const q = queue();
    const engine = q.live('dash');
    const template = await engine.create({
      gate: { 'leaf-0': 'waiting', 'leaf-1': 'waiting' },
      meta: { step: 'merge' },
    });
    const trigger = await engine.create({
      core: { [Label.Cancel]: '3' },
      gate: { 'leaf-0': 'trigger' },
      meta: { step: 'leaf-0', [hostile]: hostile },
      sync: { cursor: 'p1' },
    });
    await engine.search({ meta: { step: 'leaf-0' } });
    const client = new Client(dashboard(engine));

    const page = await client.page(`/task/${idOf(trigger)}`);
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/data-fact="owner">\s*<code>dash<\/code>/);
    expect(page.text).toContain('0 of 3 before it halts');
    expect(page.text).toMatch(/lease end<\/dt>\s*<dd><time datetime=/);
    for (const map of ['core', 'cron', 'gate', 'meta', 'node', 'root', 'sync'])
      expect(page.text).toContain(`data-map="${map}"`);
    expect(page.text).toContain(`href="/task/${idOf(template)}"`); // the gate it counts toward
    expect(page.text).not.toContain('<script>alert');

    const gate = await client.page(`/task/${idOf(template)}`);
    expect(gate.text).toContain('data-kind="gate"');
    expect(gate.text).toMatch(/data-gate-key="leaf-1"[\s\S]*?class="gate waiting"/);

    // a cron template and its child, on the test's fake clock: the ticker emits the child
    const clocked = q.engine('clocked');
    const cron = await clocked.create({
      cron: { [Label.Every]: '5 minutes' },
      meta: { kind: 'report' },
    });
    q.clock.advance(5 * 60_000);
    await clocked.ticker();
    const child = (await clocked.lister({ meta: { kind: 'report' } })).find(
      (task) => task.cron?.[Label.Every] === undefined,
    );
    const onClock = new Client(dashboard(clocked, { clock: q.clock }));
    const cronPage = await onClock.page(`/task/${idOf(cron)}`);
    expect(cronPage.text).toContain('next tick');
    expect(cronPage.text).toContain('last tick');
    expect(cronPage.text).toContain(`href="/task/${idOf(child)}"`);
    const childPage = await onClock.page(`/task/${idOf(child)}`);
    expect(childPage.text).toContain('data-relation="template"');
    expect(childPage.text).toContain(`href="/task/${idOf(cron)}"`);

    expect((await client.page('/task/1697760000000-000000000999')).status).toBe(404);
    expect((await client.page('/task/*')).status).toBe(404);
  });

  it('shows a task held after another with the task it waits for and its labels', async () => {
    const engine = queue().live('dash');
    const first = await engine.create({ meta: { step: 'first' } });
    const held = await engine.create({ meta: { step: 'second' } }, { after: idOf(first) });
    const page = await new Client(dashboard(engine)).page(`/task/${idOf(held)}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('data-kind="held"');
    expect(page.text).toContain(`href="/task/${idOf(first)}"`);
    expect(page.text).toContain('second');
  });

  it('shows cron templates with their ticks and gate templates with their keys', async () => {
    const engine = queue().live('dash');
    const cron = await engine.create({
      cron: { [Label.Every]: '15 minutes' },
      meta: { kind: 'report' },
    });
    await engine.create({
      gate: { 'leaf-0': 'waiting', 'leaf-1': 'waiting' },
      meta: { step: 'merge' },
    });
    await engine.create({ gate: { 'leaf-0': 'trigger' }, meta: { step: 'leaf-0' } });
    const trigger = await engine.search({ meta: { step: 'leaf-0' } });
    await engine.delete(trigger ?? {});
    const { text } = await new Client(dashboard(engine)).page('/templates');
    expect(text).toContain('<code>15 minutes</code>');
    expect(text).toContain(cron.cron?.[Label.TickP1]);
    expect(text).toContain(cron.cron?.[Label.TickM1]);
    expect(text).toMatch(/data-gate="waiting"><ul class="keys">\s*<li><code>leaf-1<\/code>/);
    expect(text).toMatch(/data-gate="deleted"><ul class="keys">\s*<li><code>leaf-0<\/code>/);
  });

  it('shows live workers with their handlers and the tasks they run', async () => {
    const q = queue();
    const engine = q.live('eon');
    const release = signal();
    const worker = q.worker(
      engine,
      [{ labels: { meta: { kind: 'a' } }, filter: () => true, ensure: () => release.promise }],
      { concurrency: 2, heartbeatInterval: 50, presenceTtl: 5_000 },
    );
    await worker.start();
    const task = await engine.create({ meta: { kind: 'a' } });
    await until(async () => (await engine.workers())[0]?.running === 1, 5_000, 'eon runs the task');
    const { text } = await new Client(dashboard(engine)).page('/workers');
    expect(text).toContain('data-worker="eon"');
    expect(dataText(text, 'fact', 'running')).toBe('1 / 2');
    expect(text).toMatch(/<span class="key">kind<\/span>=<span class="value"\s*>a<\/span/);
    expect(text).toContain(`href="/task/${idOf(task)}"`);
    release.resolve();
  });

  it("counts throughput from the queue's events, and lists them on the events page", async () => {
    const engine = queue().live('dash');
    await engine.events(); // the queue records events from now on
    const board = dashboard(engine, { sampleInterval: 50 });
    const first = await engine.create({ meta: { kind: 'a' } });
    await engine.create({ meta: { kind: 'b' } });
    const claimed = await engine.search({ meta: { kind: 'a' } });
    await engine.delete(claimed ?? {});
    const client = new Client(board);
    const throughput = (page: string, name: string) => dataText(page, 'throughput', name);
    let overview = '';
    await until(
      async () => {
        overview = (await client.page('/')).text;
        return throughput(overview, 'completed-1') === '1';
      },
      5_000,
      'the overview counts the completion',
    );
    expect(throughput(overview, 'created-1')).toBe('2');
    expect(throughput(overview, 'claimed-15')).toBe('1');
    expect(throughput(overview, 'failed-5')).toBe('0');

    const events = (await client.page('/events')).text;
    const kinds = [...events.matchAll(/<tr data-event="[^"]+" data-kind="(\w+)"/g)].map(
      (match) => match[1],
    );
    expect(kinds).toEqual(['completed', 'claimed', 'created', 'created']); // newest first
    expect(events).toContain(`href="/task/${idOf(first)}"`);
    const created = (await client.page('/events?kind=created')).text;
    expect(created.match(/<tr data-event=/g)).toHaveLength(2);
  });

  it('refuses every action when read-only, and offers none', async () => {
    const engine = queue().live('dash');
    const task = await engine.create({ core: { [Label.Cancel]: '2' }, meta: { kind: 'a' } });
    const client = new Client(dashboard(engine));
    const page = await client.page(`/task/${idOf(task)}`);
    expect(page.text).not.toContain('data-action=');
    expect(page.text).toContain('Read-only');
    expect((await client.page('/create')).text).not.toContain('<textarea');
    for (const path of [`/task/${idOf(task)}/delete`, `/task/${idOf(task)}/cycles`, '/create']) {
      const response = await client.post(path, { task: '{"meta":{"a":"b"}}' });
      expect(response.status).toBe(403);
      expect(await response.text()).toContain('Read-only');
    }
    expect(await engine.stats()).toMatchObject({ tasks: 1 });
  });

  it('with write access, deletes with bypass, resets cycles and creates, each behind a CSRF token', async () => {
    const engine = queue().live('dash');
    const owned = await engine.create({ meta: { kind: 'a' }, sync: { [Label.Paging]: 'page-2' } });
    await engine.search({ meta: { kind: 'a' } });
    const halted = await engine.create({ core: { [Label.Cancel]: '1' }, meta: { kind: 'h' } });
    const board = dashboard(engine, { write: true });
    const client = new Client(board);
    const page = await client.page(`/task/${idOf(owned)}`);
    expect(page.text).toContain('data-action="delete"');

    // no token, a wrong one, another site's Origin: refused, nothing changed
    expect((await client.post(`/task/${idOf(owned)}/delete`, { csrf: '' })).status).toBe(403);
    expect((await client.post(`/task/${idOf(owned)}/delete`, { csrf: 'forged' })).status).toBe(403);
    const crossSite = await client.post(
      `/task/${idOf(owned)}/delete`,
      {},
      { origin: 'http://evil.example' },
    );
    expect(crossSite.status).toBe(403);
    const stranger = new Client(board);
    await stranger.page('/'); // its own cookie: the first client's token is no good with it
    const stolen = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
    expect((await stranger.post(`/task/${idOf(owned)}/delete`, { csrf: stolen })).status).toBe(403);
    expect(await engine.stats()).toMatchObject({ owned: 1 });

    // delete: gone, although another worker owns it and it pages (not requeued)
    const deleted = await client.post(`/task/${idOf(owned)}/delete`);
    expect(deleted.status).toBe(303);
    expect(deleted.headers.get('location')).toBe('/tasks?done=deleted');
    expect(await engine.stats()).toMatchObject({ tasks: 1, owned: 0 });
    expect((await client.page('/tasks?done=deleted')).text).toContain('The task was deleted.');
    expect((await client.post(`/task/${idOf(owned)}/delete`)).status).toBe(404);

    // reset cycles: a halted task is claimable again
    const claimed = await engine.search({ meta: { kind: 'h' } });
    expect(claimed).toBeDefined();
    await engine.cycles({ ...halted, core: { ...halted.core, [Label.Cycles]: '1' } }); // release it
    const reset = await client.post(`/task/${idOf(halted)}/cycles`);
    expect(reset.status).toBe(303);
    expect(reset.headers.get('location')).toBe(`/task/${idOf(halted)}?done=reset`);
    expect(await engine.stats()).toMatchObject({ claimable: 1, halted: 0 });

    // create: the task is stored; mistakes come back with the text and the reason
    const created = await client.post('/create', {
      task: JSON.stringify({ meta: { kind: 'new' }, node: { [Label.Method]: Method.Any } }),
    });
    expect(created.status).toBe(303);
    const location = created.headers.get('location') ?? '';
    expect(location).toMatch(/^\/task\/\d{13}-\d{12}\?done=created$/);
    expect((await client.page(location)).text).toContain('The task was created.');
    const notJson = await client.post('/create', { task: '{meta' });
    expect(notJson.status).toBe(400);
    expect(await notJson.text()).toContain('This is not JSON');
    const noMeta = await client.post('/create', {
      task: JSON.stringify({ sync: { [hostile]: 'x' } }),
    });
    expect(noMeta.status).toBe(400);
    const refusal = await noMeta.text();
    expect(refusal).toContain('The engine refused');
    expect(refusal).not.toContain('<script>alert');
    expect(await engine.stats()).toMatchObject({ tasks: 2 });
  });

  it('asks for the token, takes it once from the address into a cookie, or as a bearer header', async () => {
    const engine = queue().live('dash');
    const token = 'a-long-enough-token-1234';
    const client = new Client(dashboard(engine, { token }));
    expect((await client.get('/')).status).toBe(401);
    expect((await client.get('/?token=wrong-token-wrong-token')).status).toBe(401);
    const entry = await client.get(`/tasks?state=owned&token=${token}`);
    expect(entry.status).toBe(303);
    expect(entry.headers.get('location')).toBe('/tasks?state=owned');
    expect(entry.headers.getSetCookie().join()).toMatch(/rescue_dashboard_token=.*HttpOnly/);
    expect((await client.get('/tasks?state=owned')).status).toBe(200);
    expect((await client.get('/live')).status).toBe(200);
    const program = new Client(dashboard(engine, { token }));
    expect((await program.get('/', { authorization: `Bearer ${token}` })).status).toBe(200);
  });

  it('serves a registry on /metrics when given one, behind the same token', async () => {
    const engine = queue().live('dash');
    await engine.create({ meta: { k: 'a' } });
    const registry = new Registry();
    registerMetrics(engine, registry, { activity: false });
    const token = 'a-long-enough-token-1234';
    const client = new Client(dashboard(engine, { token, metrics: registry }));
    expect((await client.get('/metrics')).status).toBe(401);
    const scraped = await client.get('/metrics', { authorization: `Bearer ${token}` });
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get('content-type')).toBe(registry.contentType);
    expect(await scraped.text()).toMatch(/^rescue_queue_tasks\{[^}]*state="claimable"[^}]*\} 1$/m);
    const without = new Client(dashboard(engine, {}));
    expect((await without.get('/metrics')).status).toBe(404);
  });

  it('asks for basic auth', async () => {
    const engine = queue().live('dash');
    const client = new Client(
      dashboard(engine, { basicAuth: { username: 'ops', password: 'pw' } }),
    );
    const denied = await client.get('/');
    expect(denied.status).toBe(401);
    expect(denied.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
    const login = `Basic ${Buffer.from('ops:pw').toString('base64')}`;
    expect((await client.get('/', { authorization: login })).status).toBe(200);
  });

  it('serves under a base path, links included', async () => {
    const engine = queue().live('dash');
    const task = await engine.create({ meta: { kind: 'a' } });
    const client = new Client(dashboard(engine, { basePath: '/ops/rescue' }));
    const { status, text } = await client.page('/ops/rescue/tasks');
    expect(status).toBe(200);
    expect(text).toContain(`href="/ops/rescue/task/${idOf(task)}"`);
    expect(text).toContain('src="/ops/rescue/assets/dashboard.js"');
    expect(
      (await client.get('/ops/rescue/assets/dashboard.css')).headers.get('content-type'),
    ).toContain('text/css');
    expect((await client.get('/tasks')).status).toBe(404);
  });

  it('binds 127.0.0.1, refuses other addresses without auth, and answers only its own Host', async () => {
    const engine = queue().live('dash');
    const open = dashboard(engine);
    await expect(open.listen({ host: '0.0.0.0', port: 0 })).rejects.toThrow(
      /needs a token or basic auth/,
    );
    const server = served(await open.listen({ port: 0 }));
    expect(server.host).toBe('127.0.0.1');
    const response = await fetch(`${server.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    const rebound = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(
        {
          host: '127.0.0.1',
          port: server.port,
          path: '/',
          headers: { host: `evil.example:${server.port}` },
        },
        (answer) => {
          answer.resume();
          resolve(answer.statusCode ?? 0);
        },
      );
      request.on('error', reject);
      request.end();
    });
    expect(rebound).toBe(421);
    const guarded = dashboard(engine, { token: 'a-long-enough-token-1234' });
    const anywhere = served(await guarded.listen({ host: '0.0.0.0', port: 0 }));
    expect((await fetch(`http://127.0.0.1:${anywhere.port}/`)).status).toBe(401);
  });

  it('checks the Host on the user’s own server too: a rebound name can neither read nor delete', async () => {
    const engine = queue().live('dash');
    const task = await engine.create({ meta: { kind: 'a' } });
    const server = createServer(dashboard(engine, { write: true }).handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const send = (method: string, path: string, headers: Record<string, string>) =>
        new Promise<number>((resolve, reject) => {
          const request = httpRequest(
            { host: '127.0.0.1', port, path, method, headers },
            (answer) => {
              answer.resume();
              resolve(answer.statusCode ?? 0);
            },
          );
          request.on('error', reject);
          request.end(method === 'POST' ? 'csrf=x' : undefined);
        });
      const evil = `evil.example:${port}`;
      expect(await send('GET', '/', { host: `127.0.0.1:${port}` })).toBe(200);
      expect(await send('GET', '/', { host: evil })).toBe(421);
      const posted = await send('POST', `/task/${idOf(task)}/delete`, {
        host: evil,
        origin: `http://${evil}`,
        'content-type': 'application/x-www-form-urlencoded',
      });
      expect(posted).toBe(421);
      expect(await engine.stats()).toMatchObject({ tasks: 1 });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    const named = new Client(
      dashboard(engine, { allowedHosts: ['ops.example'] }),
      'http://ops.example',
    );
    expect((await named.get('/')).status).toBe(200);
    const other = new Client(dashboard(engine), 'http://ops.example');
    expect((await other.get('/')).status).toBe(421);
  });

  it('tells a live stream when the queue changes, and of each event', async () => {
    const engine = queue().live('dash');
    await engine.events(); // the queue records events from now on
    const board = dashboard(engine, { sampleInterval: 50 });
    const response = await board.fetch(new Request('http://127.0.0.1/live'));
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let received = '';
    const readUntil = async (pattern: RegExp) => {
      while (!pattern.test(received)) {
        const { value, done } = await reader.read();
        if (done) throw new Error('the stream ended');
        received += decoder.decode(value);
      }
    };
    await readUntil(/event: hello/);
    received = '';
    const task: Task = await engine.create({ meta: { kind: 'a' } });
    await readUntil(/event: change/);
    await readUntil(
      new RegExp(
        `event: queue-event\ndata: \\{"id":"[^"]+","kind":"created","task":"${idOf(task)}"`,
      ),
    );
    // close() ends the streams still open
    await board.close();
    let ended = false;
    while (!ended) ended = (await reader.read()).done;
    expect(ended).toBe(true);
  });
});
