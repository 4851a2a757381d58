// createDashboard: the web dashboard of one engine's queue, as a fetch
// handler and a Node request listener to mount on your own server, or on a
// server of its own with listen().
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { Engine } from '../engine/engine.js';
import { describe } from '../task/describe.js';
import { newSecret } from './csrf.js';
import { LiveFeed } from './live.js';
import { resolveDashboardOptions, type DashboardOptions } from './options.js';
import { dashboardApp, type DashboardState } from './routes.js';
import {
  hostHeaders,
  isLoopback,
  listenDefaults,
  serveOn,
  type DashboardServer,
  type DashboardListenOptions,
} from './server.js';
import { endStreams } from './sse.js';

/**
 * Dashboard is a running dashboard: mount `fetch` or `handler` on your
 * server (under `basePath`), or call `listen()`. It samples the queue from
 * creation until `close()`.
 */
export interface Dashboard {
  /** fetch answers a WHATWG Request: for Hono, Bun, Deno or anything that speaks fetch. */
  readonly fetch: (request: Request) => Promise<Response>;
  /** handler answers a Node.js request: `http.createServer(dashboard.handler)`. */
  readonly handler: (request: IncomingMessage, response: ServerResponse) => void;
  /** listen serves the dashboard on a server of its own (127.0.0.1:4000 by default). */
  listen(options?: DashboardListenOptions): Promise<DashboardServer>;
  /** close stops sampling and ends the live streams; the engine stays open. */
  close(): Promise<void>;
}

/**
 * createDashboard serves a web dashboard of the engine's queue: counts by
 * state, tasks by state and label query, each task's labels and relations,
 * templates, workers, and events, updated live. Read-only unless `write`.
 *
 *     const dashboard = createDashboard(engine, { write: true, token: process.env.TOKEN });
 *     const server = await dashboard.listen({ port: 4000 });   // http://127.0.0.1:4000
 */
export function createDashboard(engine: Engine, options?: DashboardOptions): Dashboard {
  if (!(engine instanceof Engine))
    throw new TypeError(`createDashboard: engine must be an Engine; got ${describe(engine)}`);
  const resolved = resolveDashboardOptions(options);
  const feed = new LiveFeed(engine, {
    interval: resolved.sampleInterval,
    history: resolved.history,
    onError: resolved.onError,
  });
  const state: DashboardState = {
    engine,
    options: resolved,
    feed,
    secret: newSecret(),
    streams: new Set(),
    allowedHosts: undefined,
  };
  const app = dashboardApp(state);
  const fetch = async (request: Request): Promise<Response> => app.fetch(request);
  const listener = getRequestListener(fetch);
  const handler = (request: IncomingMessage, response: ServerResponse): void => {
    void listener(request, response);
  };
  let closed = false;
  feed.start();
  return {
    fetch,
    handler,
    async listen(listen: DashboardListenOptions = {}) {
      if (closed) throw new Error('Dashboard.listen: the dashboard was closed');
      const host = listen.host ?? listenDefaults.host;
      const port = listen.port ?? listenDefaults.port;
      if (typeof host !== 'string' || host === '')
        throw new TypeError(`Dashboard.listen: "host" must be an address; got ${describe(host)}`);
      if (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65_535)
        throw new RangeError(`Dashboard.listen: "port" must be 0 to 65535; got ${describe(port)}`);
      const guarded = resolved.token !== undefined || resolved.basicAuth !== undefined;
      if (!isLoopback(host) && !guarded)
        throw new Error(
          `Dashboard.listen: binding ${host} (not a loopback address) needs a token or basic auth`,
        );
      const server = await serveOn(handler, host, port, () => endStreams(state.streams));
      if (!guarded && isLoopback(host) && !resolved.hostsGiven) {
        state.allowedHosts = new Set([
          ...(state.allowedHosts ?? []),
          ...hostHeaders(host, server.port),
        ]);
      }
      return server;
    },
    async close() {
      closed = true;
      await feed.stop();
      await endStreams(state.streams);
    },
  };
}
