import type { Dashboard } from '../../lib/dashboard/dashboard.js';
import { createDashboard } from '../../lib/dashboard/dashboard.js';
import type { DashboardOptions } from '../../lib/dashboard/options.js';
import type { DashboardServer } from '../../lib/dashboard/server.js';
import type { Engine } from '../../lib/engine/engine.js';

/**
 * useDashboards hands a test dashboards that are closed after it (before the
 * queue's engines: register it before useQueue / useWorkerQueue, since
 * afterEach hooks run in the order they were registered). A failure a
 * dashboard reports (a page that threw) fails the test.
 */
export function useDashboards(): (engine: Engine, options?: DashboardOptions) => Dashboard {
  let open: Dashboard[] = [];
  let failures: unknown[] = [];
  afterEach(async () => {
    const closing = open;
    const reported = failures;
    open = [];
    failures = [];
    await Promise.all(closing.map((dashboard) => dashboard.close()));
    if (reported.length > 0) throw reported[0];
  });
  return (engine, options = {}) => {
    const dashboard = createDashboard(engine, {
      onError: (error) => failures.push(error),
      ...options,
    });
    open.push(dashboard);
    return dashboard;
  };
}

/** useServers closes the dashboard servers a test started (register it before useDashboards). */
export function useServers(): (server: DashboardServer) => DashboardServer {
  let open: DashboardServer[] = [];
  afterEach(async () => {
    const closing = open;
    open = [];
    await Promise.all(closing.map((server) => server.close()));
  });
  return (server) => {
    open.push(server);
    return server;
  };
}

/**
 * Client talks to a dashboard's fetch handler as a browser would: it keeps
 * cookies and reads the CSRF token out of the forms it was given.
 */
export class Client {
  readonly cookies = new Map<string, string>();
  private lastCsrf: string | undefined;

  constructor(
    private readonly dashboard: Dashboard,
    private readonly origin = 'http://127.0.0.1:4000',
  ) {}

  async get(path: string, headers: Record<string, string> = {}): Promise<Response> {
    return this.send(path, { method: 'GET', headers });
  }

  /** page GETs a page and returns its status and text, keeping the form token it carries. */
  async page(
    path: string,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; text: string }> {
    const response = await this.get(path, headers);
    const text = await response.text();
    const token = /name="csrf" value="([^"]+)"/.exec(text)?.[1];
    if (token !== undefined) this.lastCsrf = token;
    return { status: response.status, text };
  }

  /** post sends a form (a list: the field once a value); `csrf` defaults to the token of the last page read. */
  async post(
    path: string,
    fields: Record<string, string | readonly string[]> = {},
    headers: Record<string, string> = {},
  ): Promise<Response> {
    const form = new URLSearchParams();
    for (const [name, value] of Object.entries({ csrf: this.lastCsrf ?? '', ...fields }))
      for (const one of typeof value === 'string' ? [value] : value) form.append(name, one);
    return this.send(path, {
      method: 'POST',
      body: form.toString(),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: this.origin,
        ...headers,
      },
    });
  }

  private async send(
    path: string,
    init: { method: string; body?: string; headers: Record<string, string> },
  ): Promise<Response> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const headers = { ...(cookie === '' ? {} : { cookie }), ...init.headers };
    const request = new Request(`${this.origin}${path}`, {
      method: init.method,
      headers,
      redirect: 'manual',
      ...(init.body === undefined ? {} : { body: init.body }),
    });
    const response = await this.dashboard.fetch(request);
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const equals = pair.indexOf('=');
      this.cookies.set(pair.slice(0, equals).trim(), pair.slice(equals + 1).trim());
    }
    return response;
  }
}

/** text of the element with the given data attribute and value in a page (first match). */
export function dataText(page: string, attribute: string, value: string): string | undefined {
  const match = new RegExp(`data-${attribute}="${value}"[^>]*>([^<]*)<`).exec(page);
  return match?.[1]?.trim();
}
