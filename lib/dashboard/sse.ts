// The live stream a browser listens to (Server-Sent Events): `change` when
// the queue changed (the page fetches its live region again), `failure` when
// the queue cannot be read, `queue-event` for each event of the queue's feed
// (`gap` when more came at once than are sent one by one), and a comment
// every 15 s so proxies keep the connection open. A browser that stops
// reading is cut off rather than buffered for without end.
import type { Context } from 'hono';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import type { LiveFeed, LiveMessage } from './live.js';

/** ms between keep-alive comments. */
const pingInterval = 15_000;
/** Messages a stream may have waiting to be read before it is ended. */
const pendingMost = 1_000;

/** OpenStreams are the streams of a dashboard, so close() can end them. */
export type OpenStreams = Set<SSEStreamingApi>;

/** liveStream answers a request with a stream of the feed's messages until the browser leaves. */
export function liveStream(c: Context, feed: LiveFeed, streams: OpenStreams): Response {
  return streamSSE(c, async (stream) => {
    streams.add(stream);
    let pending = 0;
    const write = (written: Promise<unknown>): void => {
      pending++;
      if (pending > pendingMost) stream.abort();
      written.then(
        () => pending--,
        () => pending--,
      );
    };
    const send = (message: LiveMessage): void => {
      const event = message.type === 'event' ? 'queue-event' : message.type;
      const data = JSON.stringify(message.type === 'event' ? message.event : message);
      write(stream.writeSSE({ event, data }));
    };
    const unsubscribe = feed.subscribe(send);
    const ping = setInterval(() => write(stream.write(': ping\n\n')), pingInterval);
    ping.unref();
    try {
      await stream.writeSSE({ event: 'hello', data: '{}', retry: 3_000 });
      if (feed.failure !== undefined) send({ type: 'failure', message: feed.failure });
      await new Promise<void>((resolve) => {
        if (stream.aborted || stream.closed) resolve();
        stream.onAbort(resolve);
      });
    } finally {
      clearInterval(ping);
      unsubscribe();
      streams.delete(stream);
    }
  });
}

/** endStreams ends every open stream (the dashboard or its server closes). */
export function endStreams(streams: OpenStreams): Promise<void> {
  for (const stream of streams) stream.abort();
  return Promise.resolve();
}
