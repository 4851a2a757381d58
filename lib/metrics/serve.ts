import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/** ServeMetricsOptions: where the endpoint listens. */
export interface ServeMetricsOptions {
  /**
   * port to listen on; 0 picks a free one (see `url`).
   * @defaultValue 9464
   */
  readonly port?: number;
  /**
   * host to listen on: loopback by default, so the endpoint is not exposed
   * unless asked (`'0.0.0.0'` for every interface).
   * @defaultValue '127.0.0.1'
   */
  readonly host?: string;
  /**
   * path the registry is served at; other paths answer 404.
   * @defaultValue '/metrics'
   */
  readonly path?: string;
}

/** MetricsServer is a listening endpoint; close() stops it. */
export interface MetricsServer {
  /** The endpoint's address, e.g. `http://127.0.0.1:9464/metrics`. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** serveMetricsDefaults: the defaults of ServeMetricsOptions (9464 is the usual Prometheus exporter port). */
const serveMetricsDefaults = { port: 9464, host: '127.0.0.1', path: '/metrics' } as const;

/**
 * serveMetrics serves a registry over node:http for Prometheus to scrape:
 * GET (or HEAD) on `path` answers the registry's text, in its content type;
 * a failed scrape answers 500 with the error's message.
 */
export async function serveMetrics(
  registry: Registry,
  options: ServeMetricsOptions = {},
): Promise<MetricsServer> {
  const port = options.port ?? serveMetricsDefaults.port;
  const host = options.host ?? serveMetricsDefaults.host;
  const path = options.path ?? serveMetricsDefaults.path;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new RangeError(`serveMetrics: port must be an integer in 0-65535; got ${String(port)}`);
  }
  if (!path.startsWith('/'))
    throw new RangeError(`serveMetrics: path must start with /; got ${path}`);
  const server = createServer((request, response) => {
    void answer(registry, path, request, response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${bound}${path}`,
    port: bound,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        server.closeIdleConnections();
      }),
  };
}

async function answer(
  registry: Registry,
  path: string,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://localhost');
  if (url.pathname !== path) {
    response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
    return;
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.writeHead(405, { allow: 'GET, HEAD' }).end();
    return;
  }
  try {
    const body = await registry.metrics();
    response.writeHead(200, { 'content-type': registry.contentType });
    response.end(request.method === 'HEAD' ? undefined : body);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`${message}\n`);
  }
}
