// The dashboard's routes on a Hono app: security headers, the host check,
// auth, the pages (whole, or only their live region for the browser's
// refresh), the live stream, the assets, and the actions behind the write
// and CSRF checks.
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { Engine } from '../engine/engine.js';
import {
  bulkAction,
  createAction,
  cyclesAction,
  deleteAction,
  type ActionResult,
} from './actions.js';
import { asset } from './assets.js';
import { authorized, authRequired, tokenCookie, tokenMatches } from './auth.js';
import { csrfCookie, csrfPasses, csrfToken, newSeed, sameOrigin } from './csrf.js';
import { hostAllowed } from './hosts.js';
import { html } from './html.js';
import type { LiveFeed } from './live.js';
import type { ResolvedDashboardOptions } from './options.js';
import { createPage } from './pages/create.js';
import { eventsPage } from './pages/events.js';
import { finishedPage } from './pages/finished.js';
import type { PageDeps } from './pages/deps.js';
import { overviewPage } from './pages/overview.js';
import { taskPage } from './pages/task.js';
import { tasksPage } from './pages/tasks.js';
import { templatesPage } from './pages/templates.js';
import { workersPage } from './pages/workers.js';
import { liveStream, type OpenStreams } from './sse.js';
import { layout, notice, type Page, type PageContext } from './views/layout.js';

/** DashboardState is what the routes of one dashboard share. */
export interface DashboardState {
  readonly engine: Engine;
  readonly options: ResolvedDashboardOptions;
  readonly feed: LiveFeed;
  /** the key CSRF tokens are signed with */
  readonly secret: Buffer;
  readonly streams: OpenStreams;
  /**
   * Host headers accepted besides the option allowedHosts (`127.0.0.1:4000`,
   * …), or undefined for any: set by listen() on a loopback address without
   * auth (and without allowedHosts), so that only its own port answers.
   */
  allowedHosts: Set<string> | undefined;
}

const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** dashboardApp builds the Hono app of one dashboard. */
export function dashboardApp(state: DashboardState): Hono {
  const { options } = state;
  const root = new Hono();
  const app = options.basePath === '' ? root : root.basePath(options.basePath);
  const cookiePath = options.basePath === '' ? '/' : options.basePath;

  const guard: MiddlewareHandler = async (c, next) => {
    c.header('Content-Security-Policy', contentSecurityPolicy);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('X-Frame-Options', 'DENY');
    c.header('Referrer-Policy', 'same-origin'); // no-referrer would make the browser send `Origin: null` with forms
    // a fetch handler may be given a Request without a Host header: its URL names the host
    const host = c.req.header('host') ?? new URL(c.req.url).host;
    if (
      !hostAllowed(options.allowedHosts, host) ||
      (state.allowedHosts !== undefined && !state.allowedHosts.has(host.toLowerCase()))
    )
      return c.text('421: this dashboard answers only on its own address', 421);
    await next();
  };

  const auth: MiddlewareHandler = async (c, next) => {
    if (!authRequired(options)) return next();
    const given = c.req.query('token');
    if (given !== undefined && c.req.method === 'GET' && tokenMatches(options, given)) {
      // Lax: the cookie comes along when a link elsewhere opens the dashboard; cross-site
      // POSTs do not carry it, and the actions check a CSRF token besides.
      setCookie(c, tokenCookie, given, {
        httpOnly: true,
        sameSite: 'Lax',
        path: cookiePath,
        secure: isHttps(c),
      });
      const url = new URL(c.req.url);
      url.searchParams.delete('token');
      return c.redirect(`${url.pathname}${url.search}`, 303);
    }
    const request = {
      authorization: c.req.header('authorization'),
      cookieToken: getCookie(c, tokenCookie),
    };
    if (authorized(options, request)) return next();
    if (options.basicAuth !== undefined)
      c.header('WWW-Authenticate', 'Basic realm="rescue dashboard", charset="UTF-8"');
    return c.text(
      options.token !== undefined
        ? '401: open this address with ?token=<token>, or send Authorization: Bearer <token>'
        : '401: sign in',
      401,
    );
  };
  app.use('*', guard, auth);

  app.get('/assets/:name', (c) => {
    const found = asset(c.req.param('name'));
    if (found === undefined) return c.text('404', 404);
    return c.body(found.body, 200, { 'Content-Type': found.type, 'Cache-Control': 'no-cache' });
  });

  app.get('/favicon.ico', (c) => c.body(null, 204));
  const { metrics } = options;
  if (metrics !== undefined) {
    app.get('/metrics', async (c) =>
      c.body(await metrics.metrics(), 200, { 'Content-Type': metrics.contentType }),
    );
  }
  app.get('/live', (c) => liveStream(c, state.feed, state.streams));

  const deps = (c: Context): PageDeps => ({
    engine: state.engine,
    feed: state.feed,
    context: pageContext(c, state, cookiePath),
  });

  app.get('/', async (c) => {
    const d = deps(c);
    return render(c, d.context, await overviewPage(d));
  });
  app.get('/tasks', async (c) => {
    const d = deps(c);
    const page = await tasksPage(d, {
      state: c.req.query('state'),
      query: c.req.query('query'),
      cursor: c.req.query('cursor'),
      done: c.req.query('done'),
    });
    return render(c, d.context, page);
  });
  app.get('/finished', async (c) => {
    const d = deps(c);
    return render(c, d.context, await finishedPage(d, c.req.query('state')));
  });
  app.get('/task/:id', async (c) => {
    const d = deps(c);
    return render(c, d.context, await taskPage(d, c.req.param('id'), c.req.query('done')));
  });
  app.get('/templates', async (c) => {
    const d = deps(c);
    const page = await templatesPage(d, { cron: c.req.query('cron'), gate: c.req.query('gate') });
    return render(c, d.context, page);
  });
  app.get('/workers', async (c) => {
    const d = deps(c);
    return render(c, d.context, await workersPage(d));
  });
  app.get('/events', async (c) => {
    const d = deps(c);
    return render(c, d.context, await eventsPage(d, c.req.query('kind')));
  });
  app.get('/create', (c) => {
    const d = deps(c);
    return render(c, d.context, createPage(d.context));
  });

  const action =
    (run: (d: PageDeps, c: Context, form: Record<string, unknown>) => Promise<ActionResult>) =>
    async (c: Context): Promise<Response> => {
      const d = deps(c);
      if (!options.write)
        return render(
          c,
          d.context,
          refusal(403, 'Read-only: this dashboard was started without write access (--write).'),
        );
      // all: an action on a selection carries one `id` field a task
      const form = await c.req.parseBody({ all: true });
      const token = typeof form['csrf'] === 'string' ? form['csrf'] : undefined;
      if (
        !sameOrigin(c.req.header('origin'), c.req.url) ||
        !csrfPasses(state.secret, getCookie(c, csrfCookie), token)
      )
        return render(
          c,
          d.context,
          refusal(
            403,
            'The form is out of date or came from elsewhere (CSRF check): reload the page and try again.',
          ),
        );
      const result = await run(d, c, form);
      if ('redirect' in result) return c.redirect(result.redirect, 303);
      return render(c, d.context, result.page);
    };
  app.post(
    '/task/:id/delete',
    action((d, c) => deleteAction(d, c.req.param('id') ?? '')),
  );
  app.post(
    '/task/:id/cycles',
    action((d, c) => cyclesAction(d, c.req.param('id') ?? '')),
  );
  app.post(
    '/tasks/bulk',
    action((d, _c, form) => bulkAction(d, form)),
  );
  app.post(
    '/create',
    action((d, _c, form) => createAction(d, typeof form['task'] === 'string' ? form['task'] : '')),
  );

  app.notFound((c) => {
    const d = deps(c);
    return render(c, d.context, refusal(404, 'There is no such page.'));
  });
  app.onError((error, c) => {
    options.onError(error);
    const d = deps(c);
    return render(
      c,
      d.context,
      refusal(500, `The page failed: ${error.name}. The queue may be unreachable.`),
    );
  });
  return root;
}

function refusal(status: number, message: string): Page {
  return {
    name: 'overview',
    title: String(status),
    status,
    live: false,
    content: html`<h1>${status}</h1>
      ${notice('error', message)}`,
  };
}

function isHttps(c: Context): boolean {
  return new URL(c.req.url).protocol === 'https:';
}

/** pageContext reads the request's CSRF seed (or gives the browser one) and what pages need. */
function pageContext(c: Context, state: DashboardState, cookiePath: string): PageContext {
  let seed = getCookie(c, csrfCookie);
  if (seed === undefined || !/^[A-Za-z0-9_-]{32}$/.test(seed)) {
    seed = newSeed();
    setCookie(c, csrfCookie, seed, {
      httpOnly: true,
      sameSite: 'Strict',
      path: cookiePath,
      secure: isHttps(c),
    });
  }
  return {
    base: state.options.basePath,
    write: state.options.write,
    csrf: csrfToken(state.secret, seed),
    now: state.options.clock(),
    queue: state.engine.keyfmt(),
    pollInterval: state.options.pollInterval,
  };
}

/** render answers with the whole page, or its live region when the browser refreshes it. */
function render(c: Context, context: PageContext, page: Page): Response {
  const fragment = c.req.header('x-rescue-fragment') === '1';
  const body = fragment ? page.content.text : layout(context, page).text;
  return c.html(body, (page.status ?? 200) as 200, {
    'Cache-Control': 'no-store',
    Vary: 'X-Rescue-Fragment',
  });
}
