// listen(): the dashboard on a server of its own. It binds to 127.0.0.1 by
// default and refuses any other address unless a token or basic auth guards
// it; on a loopback address without auth it answers only requests that name
// that address (so a web page cannot reach it through DNS rebinding).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isIP } from 'node:net';

/** DashboardListenOptions says where listen() binds. */
export interface DashboardListenOptions {
  /**
   * The address to bind; anything but a loopback address needs `token` or `basicAuth`.
   * @defaultValue '127.0.0.1'
   */
  host?: string;
  /**
   * The port; 0 picks a free one.
   * @defaultValue 4000
   */
  port?: number;
}

/** DashboardServer is a running listen(): its address, and how to stop it. */
export interface DashboardServer {
  /** `http://host:port` (the base path not included) */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** stops the server (and the dashboard's live streams); the engine stays open */
  close(): Promise<void>;
}

export const listenDefaults = { host: '127.0.0.1', port: 4000 } as const;

/** isLoopback tells whether an address is only reachable from this machine. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare === 'localhost' || bare === '::1') return true;
  return isIP(bare) === 4 && bare.startsWith('127.');
}

/** hostHeaders are the Host headers a browser sends to a loopback address and port. */
export function hostHeaders(host: string, port: number): Set<string> {
  const names = new Set([host, 'localhost', '127.0.0.1', '[::1]']);
  const bare = host.replace(/^\[|\]$/g, '');
  if (isIP(bare) === 6) names.add(`[${bare}]`);
  return new Set([...names].map((name) => `${name}:${port}`.toLowerCase()));
}

/** serveOn starts an HTTP server with the listener and resolves once it listens. */
export function serveOn(
  listener: (request: IncomingMessage, response: ServerResponse) => void,
  host: string,
  port: number,
  beforeClose: () => Promise<void>,
): Promise<DashboardServer> {
  const server = createServer(listener);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      const shown = isIP(address.address) === 6 ? `[${address.address}]` : address.address;
      resolve({
        url: `http://${shown}:${address.port}`,
        host: address.address,
        port: address.port,
        async close() {
          await beforeClose();
          await new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          });
        },
      });
    });
  });
}
