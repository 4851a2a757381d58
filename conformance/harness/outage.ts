import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * OutageProxy is a TCP proxy in front of Redis that can cut the network: on
 * cut() every connection through it is dropped and new ones are accepted but
 * hear nothing (a black hole: no refusal, no reply, as when a host or a link
 * is gone); restore() forwards again. Its port stays the same throughout.
 */
export interface OutageProxy {
  readonly url: string;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function outageProxy(target: string): Promise<OutageProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let down = false;
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('error', () => client.destroy());
    client.on('close', () => sockets.delete(client));
    if (down) return; // held open, silent
    const upstream = createConnection({ host: hostname, port: Number(port) });
    sockets.add(upstream);
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(upstream);
    };
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => client.write(chunk));
    for (const socket of [client, upstream]) {
      socket.on('error', close);
      socket.on('close', close);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: listening } = server.address() as AddressInfo;
  return {
    url: `redis://127.0.0.1:${listening}`,
    cut: () => {
      down = true;
      for (const socket of sockets) socket.destroy();
    },
    restore: () => {
      down = false;
      // the silent connections go: their clients connect again and are forwarded
      for (const socket of sockets) socket.destroy();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** elapsed runs the call and says how it ended and after how many ms. */
export async function elapsed(
  call: () => Promise<unknown>,
): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  try {
    await call();
    return { error: undefined, ms: performance.now() - started };
  } catch (error) {
    return { error, ms: performance.now() - started };
  }
}
