import {
  isClusterClient,
  quitOrDisconnect,
  type Connection,
  type RedisClient,
} from './connection.js';
import { Reach, whenReady } from './reach.js';

/** What a listener hears: a message, or that messages may have been lost (a reconnection), or the end. */
export type Heard = { message: string } | { lost: true } | { closed: Error };

type Listener = (heard: Heard) => void;

/**
 * Watcher is an engine's one subscriber connection for `wait` and `run`,
 * opened on first use: each task waited for is a channel subscribed while
 * someone listens to it. Messages sent while the connection was down are
 * lost, so after a reconnection every listener hears `lost` and reads the
 * state again. On a Redis Cluster the channels are sharded (SSUBSCRIBE), as
 * the scripts publish them with SPUBLISH.
 *
 * With every channel it also subscribes to the queue's `marker` channel (in
 * the same command, so never one without the other), and leaves it with the
 * last: a script asks the marker's subscriber count once to learn that nobody
 * watches any task, instead of asking each task's channel (owners.lua
 * `watched`). Nothing is published on the marker.
 */
export class Watcher {
  private subscriber: RedisClient | undefined;
  /** bounds how long a subscription waits for an unreachable Redis */
  private reach: Reach | undefined;
  private connectedOnce = false;
  private readonly listeners = new Map<string, Set<Listener>>();

  constructor(
    private readonly connection: Connection,
    private readonly marker: string,
    /** the engine's connectTimeout (ms) */
    private readonly timeoutMs: number,
  ) {}

  /** listen subscribes to a channel; resolves once subscribed, with the function that stops listening. */
  async listen(channel: string, listener: Listener): Promise<() => void> {
    const subscriber = this.open();
    let set = this.listeners.get(channel);
    if (set === undefined) this.listeners.set(channel, (set = new Set()));
    set.add(listener);
    const stop = () => {
      const current = this.listeners.get(channel);
      if (current === undefined || !current.delete(listener) || current.size > 0) return;
      this.listeners.delete(channel);
      const channels = this.listeners.size === 0 ? [channel, this.marker] : [channel];
      const left = this.connection.sharded
        ? subscriber.sunsubscribe(...channels)
        : subscriber.unsubscribe(...channels);
      left.catch(() => {}); // gone with the connection anyway
    };
    try {
      // Not during the connection's handshake: a SUBSCRIBE sent then (ioredis
      // writes it at once) puts the connection in subscriber mode before its
      // ready check ran, and that check fails.
      await whenReady(subscriber, this.timeoutMs, this.connection.address);
      // a second listener of the channel waits for the same subscription; the
      // marker again each time: one listen may fail or stop while another starts
      const reach = this.reach as Reach;
      if (this.connection.sharded) await reach.guard(subscriber.ssubscribe(channel, this.marker));
      else await reach.guard(subscriber.subscribe(channel, this.marker));
    } catch (error) {
      stop();
      throw error;
    }
    return stop;
  }

  /** close ends every listener with the reason and closes the connection. */
  async close(reason: Error): Promise<void> {
    const listeners = [...this.listeners.values()].flatMap((set) => [...set]);
    this.listeners.clear();
    for (const listener of listeners) listener({ closed: reason });
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    if (subscriber !== undefined) await quitOrDisconnect(subscriber);
  }

  private open(): RedisClient {
    if (this.subscriber !== undefined) return this.subscriber;
    const { client, sharded } = this.connection;
    const subscriber: RedisClient = isClusterClient(client)
      ? // no slotsRefreshInterval: ioredis re-arms it when quit() falls during a
        // refresh, and the process never exits (see lib/worker/wake.ts)
        client.duplicate([], { shardedSubscribers: true, slotsRefreshInterval: 0 })
      : client.duplicate();
    subscriber.on('error', () => {}); // a failed subscribe rejects its listen; reconnects go on
    subscriber.on('ready', () => {
      if (!this.connectedOnce) {
        this.connectedOnce = true;
        return;
      }
      for (const set of this.listeners.values())
        for (const listener of set) listener({ lost: true });
    });
    subscriber.on(sharded ? 'smessage' : 'message', (channel: string, message: string) => {
      const set = this.listeners.get(channel);
      if (set !== undefined) for (const listener of [...set]) listener({ message });
    });
    this.subscriber = subscriber;
    this.reach = new Reach(subscriber, this.timeoutMs, this.connection.address, true);
    return subscriber;
  }
}
