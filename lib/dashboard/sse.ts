// The live stream a browser listens to (Server-Sent Events): `change` when
// the queue changed (the page fetches its live region again), `failure` when
// the queue cannot be read, `queue-event` for each event of the queue's
// feed, and a comment every 15 s so proxies keep the connection open.
import type { Context } from 'hono';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import type { LiveFeed, LiveMessage } from './live.js';

/** ms between keep-alive comments. */
const pingInterval = 15_000;

/** OpenStreams are the streams of a dashboard, so close() can end them. */
export type OpenStreams = Set<SSEStreamingApi>;

/** liveStream answers a request with a stream of the feed's messages until the browser leaves. */
export function liveStream(c: Context, feed: LiveFeed, streams: OpenStreams): Response {
  return streamSSE(c, async (stream) => {
    streams.add(stream);
    const send = (message: LiveMessage): void => {
      const event = message.type === 'event' ? 'queue-event' : message.type;
      const data =
        message.type === 'event' ? JSON.stringify(message.event) : JSON.stringify(message);
      stream.writeSSE({ event, data }).catch(() => undefined);
    };
    const unsubscribe = feed.subscribe(send);
    const ping = setInterval(() => {
      stream.write(': ping\n\n').catch(() => undefined);
    }, pingInterval);
    ping.unref();
    try {
      await stream.writeSSE({ event: 'hello', data: '{}', retry: 3_000 });
      if (feed.failure !== undefined) send({ type: 'failure', message: feed.failure });
      await new Promise<void>((resolve) => {
        if (stream.aborted || stream.closed) resolve();
        stream.onAbort(resolve);
        closers.set(stream, resolve);
      });
    } finally {
      clearInterval(ping);
      unsubscribe();
      streams.delete(stream);
      closers.delete(stream);
    }
  });
}

const closers = new WeakMap<SSEStreamingApi, () => void>();

/** endStreams ends every open stream (the dashboard closes). */
export async function endStreams(streams: OpenStreams): Promise<void> {
  await Promise.all(
    [...streams].map(async (stream) => {
      closers.get(stream)?.();
      await stream.close().catch(() => undefined);
    }),
  );
}
