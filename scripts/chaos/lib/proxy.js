// A TCP proxy between the engines of a chaos run and Redis that injects
// network faults on the reply path: it swallows a reply and then cuts the
// connection (ioredis then resends the commands it had sent), cuts
// connections outright, and holds every reply for a while. It frames the
// replies (RESP), so a fault always hits whole replies.
import { Buffer } from 'node:buffer';
import { createConnection, createServer } from 'node:net';
import { now } from './log.js';
import { replyEnd } from './resp.js';

/** startProxy listens on a free loopback port and forwards to the Redis at `target`. */
export async function startProxy(target, log) {
  const links = new Set();
  let holding = false;
  const server = createServer((client) => {
    const upstream = createConnection({ host: target.host, port: target.port });
    const link = {
      client,
      upstream,
      pending: Buffer.alloc(0),
      held: [],
      swallow: false,
      lastRequestAt: 0,
    };
    links.add(link);
    const close = () => {
      links.delete(link);
      client.destroy();
      upstream.destroy();
    };
    client.on('data', (chunk) => {
      link.lastRequestAt = performance.now();
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => fromServer(link, chunk));
    client.on('error', close);
    upstream.on('error', close);
    client.on('close', close);
    upstream.on('close', close);
  });
  server.on('error', () => {});

  function fromServer(link, chunk) {
    link.pending = link.pending.length === 0 ? chunk : Buffer.concat([link.pending, chunk]);
    let start = 0;
    for (;;) {
      const end = replyEnd(link.pending, start);
      if (end < 0) break;
      const reply = link.pending.subarray(start, end);
      start = end;
      if (link.swallow) {
        log.write({ t: 'proxy-swallow', at: now(), bytes: reply.length });
        cut(link);
        return;
      }
      if (holding) link.held.push(Buffer.from(reply));
      else link.client.write(reply);
    }
    link.pending = link.pending.subarray(start);
  }

  function cut(link) {
    links.delete(link);
    link.client.destroy();
    link.upstream.destroy();
  }

  /** busy returns a random link whose client sent something in the last `withinMs`, if any. */
  function busy(withinMs) {
    const recent = [...links].filter((link) => performance.now() - link.lastRequestAt < withinMs);
    return recent[Math.floor(Math.random() * recent.length)];
  }

  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `redis://127.0.0.1:${port}`,
    /** dropReply makes a busy connection swallow its next reply and then cuts it. */
    dropReply() {
      const link = busy(50);
      if (link !== undefined) link.swallow = true;
      return link !== undefined;
    },
    /** cutConnection closes a busy connection at once (both sides). */
    cutConnection() {
      const link = busy(50);
      if (link !== undefined) cut(link);
      return link !== undefined;
    },
    /** hold keeps every reply back for ms, then sends them in order. */
    hold(ms) {
      holding = true;
      setTimeout(() => {
        holding = false;
        for (const link of links) {
          for (const reply of link.held) link.client.write(reply);
          link.held = [];
        }
      }, ms);
    },
    async close() {
      for (const link of links) cut(link);
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
