import type { Clock } from '../clock.js';
import { BroadcastLedger } from './broadcast-ledger.js';
import { openConnection, type Connection } from './connection.js';
import type { EngineObserver } from './observe.js';
import { queueKeys, workerOrderKey, type QueueKeys } from './keys.js';
import { stepMicros } from './lua/loader.js';
import { scriptsFor, type ScriptSet } from './lua/scripts.js';
import type { ResolvedEngineOptions } from './options.js';
import { Reach } from './reach.js';
import { Requests } from './requests.js';
import type { Watcher } from './watch.js';

/**
 * EngineContext is everything an operation needs, built once by the Engine's
 * constructor: resolved options, the clock, the connection, the queue's keys
 * and the broadcast ledger.
 */
export interface EngineContext {
  readonly options: ResolvedEngineOptions;
  readonly clock: Clock;
  readonly connection: Connection;
  /** The engine's scripts: of the connection's kind (SPUBLISH on a cluster), with its stepTime. */
  readonly scripts: ScriptSet;
  readonly keys: QueueKeys;
  readonly ledger: BroadcastLedger;
  /** The slots of this engine's idempotent writes (requests.ts). */
  readonly requests: Requests;
  /** The start instant: one clock reading taken by the constructor. */
  readonly startMs: number;
  /** The worker id in the owners' order of the share gate (keys.ts workerOrderKey). */
  readonly selfKey: string;
  /** When (engine time) search last dropped ledger entries of tasks that left the queue. */
  ledgerPrunedMs: number;
  /** The earliest due time of a waiting exact or deferred task, as the last empty search saw it. */
  nextDueMs: number | undefined;
  closed: boolean;
  /** The queue's layout check: under way or done (undefined: not yet, or it failed to reach Redis). */
  layoutCheck: Promise<void> | undefined;
  /** True once the queue's layout was read and found to be ours (or not yet written). */
  layoutChecked: boolean;
  /** True once this engine saw the queue's layout key written (read, or written by its create): the lean creates skip writing it. */
  layoutStored: boolean;
  /** The listing of the queue's tasks by the metaIndexes keys: under way (meta-index.ts). */
  metaIndexesListing: Promise<void> | undefined;
  /** True once the queue listed its tasks by every metaIndexes key. */
  metaIndexesListed: boolean;
  /** Called by close() before the connection closes: workers running on this engine stop with it. */
  readonly closeHooks: Set<(reason: Error) => Promise<void>>;
  /**
   * The calls waiting for Redis: they reject with RedisUnavailableError when
   * it cannot be reached within connectTimeout, and when the engine closes
   * (connections it opened).
   */
  readonly reach: Reach;
  /** The subscriber connection of wait and run, opened on first use. */
  watcher: Watcher | undefined;
  /** Who observes the engine's operations and its workers (observe.ts): metrics, tracing. */
  readonly observers: Set<EngineObserver>;
}

export function createEngineContext(options: ResolvedEngineOptions): EngineContext {
  const startMs = readClock(options.clock).getTime();
  const connection = openConnection(options.redis);
  return {
    options,
    clock: options.clock,
    connection,
    scripts: scriptsFor(connection.sharded, stepMicros(options.stepTime)),
    keys: queueKeys(options.queue),
    ledger: new BroadcastLedger(),
    requests: new Requests(),
    startMs,
    selfKey: workerOrderKey(options.worker),
    ledgerPrunedMs: startMs,
    nextDueMs: undefined,
    closed: false,
    layoutCheck: undefined,
    layoutChecked: false,
    layoutStored: false,
    metaIndexesListing: undefined,
    metaIndexesListed: false,
    closeHooks: new Set(),
    reach: new Reach(
      connection.client,
      options.connectTimeout,
      connection.address,
      connection.owned,
    ),
    watcher: undefined,
    observers: new Set(),
  };
}

/** readClock reads the clock once and checks it gave a valid Date in 1970-2286. */
export function readClock(clock: Clock): Date {
  const now = clock();
  const ms = now instanceof Date ? now.getTime() : Number.NaN;
  if (!Number.isFinite(ms) || ms < 0 || ms > 9_999_999_999_999) {
    throw new RangeError('Engine clock must return a valid Date between 1970 and 2286');
  }
  return new Date(ms);
}

/** openContext is the first step of every operation: a closed engine rejects. */
export function assertOpen(context: EngineContext, operation: string): void {
  if (context.closed) throw new Error(`Engine.${operation}: the engine is closed`);
}
