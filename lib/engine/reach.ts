import { RedisUnavailableError } from '../errors.js';
import type { RedisClient } from './connection.js';

/** A call waiting for Redis: how to reject it, and when it began (performance.now ms). */
interface Call {
  readonly reject: (error: unknown) => void;
  readonly startMs: number;
}

/**
 * The queues of an ioredis client (private to it): the commands not sent
 * yet, and those sent before the connection was lost, which it sends again
 * once connected.
 */
interface Queues {
  flushQueue?: (error: Error, options?: { offlineQueue?: boolean; commandQueue?: boolean }) => void;
  prevCommandQueue?: {
    shift(): { command: { reject(error: Error): void } } | undefined;
  } | null;
}

/**
 * Reach bounds how long the engine's calls wait for a Redis that cannot be
 * reached. ioredis keeps a command while it reconnects and gives it up only
 * after 20 reconnections (a minute or more, MaxRetriesPerRequestError); here
 * a call rejects with RedisUnavailableError once the connection has been
 * down for `timeoutMs` while it waited (counted from the call, when it came
 * during the outage). The commands still waiting to be sent, and those ioredis
 * would send again after reconnecting, are then dropped from the queues of a
 * client the engine opened, so none of them runs after its caller heard it
 * failed. While the connection is up a call costs a Set
 * entry, no timer.
 */
export class Reach {
  /** the calls under way, in the order they began */
  private readonly calls = new Set<Call>();
  /** since when the connection is down (performance.now ms); undefined while it is up */
  private downSince: number | undefined;
  private cause: unknown;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly client: RedisClient,
    readonly timeoutMs: number,
    private readonly address: string,
    /** true for a client the engine opened: its commands not sent yet may be dropped */
    private readonly owned: boolean,
  ) {
    if (client.status !== 'ready') this.downSince = performance.now();
    client.on('ready', () => {
      this.downSince = undefined;
      this.cause = undefined;
      clearTimeout(this.timer);
      this.timer = undefined;
    });
    const down = () => {
      this.downSince ??= performance.now();
      if (this.calls.size > 0) this.arm();
    };
    client.on('close', down);
    client.on('reconnecting', down);
    // a client of the caller's keeps its own 'error' listeners (ioredis
    // prints errors when there are none): its calls reject without a cause
    if (owned) {
      client.on('error', (error: unknown) => {
        this.cause = error;
      });
    }
  }

  /**
   * givenUp: the connection has been down for the whole timeout, so a call
   * that failed for want of it is not sent again.
   */
  get givenUp(): boolean {
    return this.downSince !== undefined && performance.now() - this.downSince >= this.timeoutMs;
  }

  /** guard settles as the call does, or rejects with RedisUnavailableError (see the class). */
  guard<T>(call: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry: Call = { reject, startMs: performance.now() };
      this.calls.add(entry);
      if (this.downSince !== undefined) this.arm();
      call.then(
        (value) => {
          if (this.calls.delete(entry)) resolve(value);
        },
        (error: unknown) => {
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- what the call rejected with
          if (this.calls.delete(entry)) reject(this.unavailable(error));
        },
      );
    });
  }

  /** rejectAll rejects every call under way (the engine closes). */
  rejectAll(error: Error): void {
    const calls = [...this.calls];
    this.calls.clear();
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const call of calls) call.reject(error);
  }

  /** arm plans the check of the oldest call's deadline. */
  private arm(): void {
    if (this.timer !== undefined || this.downSince === undefined) return;
    const first = this.calls.values().next().value;
    if (first === undefined) return;
    const dueMs = Math.max(first.startMs, this.downSince) + this.timeoutMs;
    this.timer = setTimeout(() => this.expire(), Math.max(0, dueMs - performance.now()));
  }

  /** expire rejects the calls whose time ran out while the connection was down. */
  private expire(): void {
    this.timer = undefined;
    const downSince = this.downSince;
    if (downSince === undefined) return;
    const nowMs = performance.now();
    const error = new RedisUnavailableError(
      `Redis at ${this.address} could not be reached within ${this.timeoutMs} ms (the engine option connectTimeout)`,
      this.cause === undefined ? undefined : { cause: this.cause },
    );
    let expired = false;
    for (const call of this.calls) {
      // calls are in the order they began: the first one still in time ends the sweep
      if (Math.max(call.startMs, downSince) + this.timeoutMs > nowMs) break;
      this.calls.delete(call);
      call.reject(error);
      expired = true;
    }
    // what waits to be sent goes too: it would run when Redis is back, after
    // its caller heard it failed (the calls it belongs to were all given up
    // or are given up with it)
    if (expired && this.owned) this.dropUnsent(error);
    this.arm();
  }

  private dropUnsent(error: Error): void {
    const queues = this.client as unknown as Queues;
    try {
      queues.flushQueue?.(error, { commandQueue: false });
      // sent before the connection was lost: they may have run, and are not
      // sent again (their callers heard they may have)
      const resent = queues.prevCommandQueue;
      if (resent !== undefined && resent !== null) {
        for (let item = resent.shift(); item !== undefined; item = resent.shift())
          item.command.reject(error);
      }
    } catch {
      // a client without that queue: its commands wait for ioredis's own limits
    }
  }

  /** unavailable turns ioredis's "no connection" failures into RedisUnavailableError. */
  private unavailable(error: unknown): unknown {
    if (error instanceof RedisUnavailableError || !connectionLost(error)) return error;
    return new RedisUnavailableError(
      `Redis at ${this.address} could not be reached: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/** The error codes of a socket that failed under a command. */
const socketCodes = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED']);

/**
 * connectionLost: ioredis failed the command for want of a connection (so
 * the script may or may not have run), not because Redis answered or the
 * engine refused it.
 */
export function connectionLost(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof RedisUnavailableError) return true;
  if (error.name === 'MaxRetriesPerRequestError') return true;
  if (error.message === 'Connection is closed.') return true;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && socketCodes.has(code);
}

/** The calls of whenReady waiting for one client, and the listeners they share. */
interface ReadyWait {
  readonly waiters: Set<{ ready(): void; ended(): void }>;
  /** the last connection error since the first of them began */
  cause: unknown;
  detach(): void;
}

const readyWaits = new WeakMap<RedisClient, ReadyWait>();

/**
 * whenReady resolves once the client's connection is ready, at once when it
 * is: a subscriber must not subscribe during the connection's handshake (its
 * ready check would run on a connection in subscriber mode). Rejects with
 * RedisUnavailableError when it is not ready within timeoutMs, or when the
 * client is closed. The calls waiting for one client share one listener of
 * each event (each has its own timer): 40 waits started before a fresh
 * engine's subscriber is ready must not add 120 listeners to it (Node warns
 * of a leak beyond 10).
 */
export function whenReady(client: RedisClient, timeoutMs: number, address: string): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const wait = readyWait(client);
    const waiter = {
      ready: () => {
        clearTimeout(timer);
        resolve();
      },
      ended: () => {
        clearTimeout(timer);
        reject(new RedisUnavailableError(`Redis at ${address}: the connection was closed`));
      },
    };
    const timer = setTimeout(() => {
      wait.waiters.delete(waiter);
      if (wait.waiters.size === 0) wait.detach();
      reject(
        new RedisUnavailableError(
          `Redis at ${address} could not be reached within ${timeoutMs} ms (the engine option connectTimeout)`,
          wait.cause === undefined ? undefined : { cause: wait.cause },
        ),
      );
    }, timeoutMs);
    wait.waiters.add(waiter);
  });
}

/** readyWait is the shared wait of a client's whenReady calls, its listeners added by the first. */
function readyWait(client: RedisClient): ReadyWait {
  const existing = readyWaits.get(client);
  if (existing !== undefined) return existing;
  const settle = (how: 'ready' | 'ended') => {
    wait.detach();
    for (const waiter of wait.waiters) waiter[how]();
  };
  const onReady = () => settle('ready');
  const onEnd = () => settle('ended');
  const onError = (error: unknown) => {
    wait.cause = error;
  };
  const wait: ReadyWait = {
    waiters: new Set(),
    cause: undefined,
    detach: () => {
      readyWaits.delete(client);
      client.off('ready', onReady);
      client.off('end', onEnd);
      client.off('error', onError);
    },
  };
  client.on('ready', onReady);
  client.on('end', onEnd);
  client.on('error', onError);
  readyWaits.set(client, wait);
  return wait;
}
