import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * ReplyDropper is a TCP proxy in front of Redis that can lose a reply: once
 * armed, the next bytes Redis sends to a client are swallowed and that
 * client's connection is cut, the way a network fault loses a reply after
 * Redis ran the command. ioredis then connects again and sends the commands
 * it had not heard back about once more.
 */
export interface ReplyDropper {
  readonly url: string;
  /** the next reply to any client is lost, with its connection */
  dropNextReply(): void;
  /** how many replies were dropped */
  readonly dropped: number;
  /** resolves once the armed reply was dropped */
  whenDropped(): Promise<void>;
  close(): Promise<void>;
}

export async function replyDropper(target: string): Promise<ReplyDropper> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let armed = false;
  let dropped = 0;
  let onDrop: (() => void) | undefined;
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: hostname, port: Number(port) });
    sockets.add(client).add(upstream);
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => {
      if (armed) {
        armed = false;
        dropped++;
        close();
        onDrop?.();
        return;
      }
      client.write(chunk);
    });
    for (const socket of [client, upstream]) {
      socket.on('error', close);
      socket.on('close', close);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: listening } = server.address() as AddressInfo;
  return {
    url: `redis://127.0.0.1:${listening}`,
    dropNextReply: () => {
      armed = true;
    },
    get dropped() {
      return dropped;
    },
    whenDropped: () =>
      new Promise<void>((resolve) => {
        onDrop = resolve;
      }),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
