import { describe, reason } from '../task/describe.js';
import { assertOpen, readClock, type EngineContext } from './context.js';

/** The kinds of events, in the order `rescue tail` and the dashboard list them. */
export const queueEventKinds = [
  'created',
  'emitted',
  'claimed',
  'completed',
  'requeued',
  'removed',
  'revoked',
  'released',
  'reset',
  'failed',
] as const;

/**
 * The kinds of events in a queue's `events` stream (`engine.events()`, `rescue tail`):
 *
 *     created     a task was stored by create
 *     emitted     a template's child was stored (a cron tick, a gate that opened)
 *     claimed     a worker took a task (search)
 *     completed   a task was deleted by its owner
 *     requeued    a delete paged or deferred the task instead
 *     removed     a delete with bypass (an operator's), retention or an obsolete root deleted a task
 *     revoked     expire took a task whose lease ended from its owner
 *     released    an owner gave a task back
 *     reset       cycles reset the task's circuit breaker (worker: its owner until then, if any)
 *     failed      a Worker's ensure rejected (the task stays owned until its lease ends)
 */
export type QueueEventKind = (typeof queueEventKinds)[number];

/** QueueEvent is one entry of the `events` stream. */
export interface QueueEvent {
  /** The stream entry id: `after` for the next call. */
  readonly id: string;
  readonly kind: QueueEventKind;
  /** The task's object id. */
  readonly task: string;
  /** The worker it concerns (the claimer, the owner), or '' when none. */
  readonly worker: string;
  /** When, by the clock of the engine that caused it. */
  readonly at: Date;
  /** Why, for `failed`: the error's message (200 characters at most). */
  readonly reason?: string;
}

/** QueueEventsOptions selects what `engine.events()` reads. */
export interface QueueEventsOptions {
  /** Read the events after this id; none: the newest `limit` events. */
  after?: string;
  /**
   * How many events at most.
   * @defaultValue 100
   */
  limit?: number;
}

/** How many events the stream keeps, about (XADD MAXLEN ~, in include/owners.lua). */
const eventsKept = 10_000;
/**
 * How long the queue records events after the last `events()` call (ms): the
 * scripts add to the stream only while it exists (XADD NOMKSTREAM), so a
 * queue nobody watches pays nothing for it.
 */
const eventsWatchMs = 600_000;
const eventsMostLimit = 1_000;

/**
 * readEvents reads the queue's recent events, oldest first: after an entry
 * id (XRANGE, exclusive), or the newest `limit` (XREVRANGE). Poll it with the
 * last id to follow the queue. Each call also keeps the queue recording them
 * for eventsWatchMs more: it renews the stream's TTL, or makes the stream
 * (with a `watch` entry, not listed) when there is none.
 */
export async function readEvents(
  context: EngineContext,
  options: QueueEventsOptions = {},
): Promise<QueueEvent[]> {
  assertOpen(context, 'events');
  const { after, limit = 100 } = options;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > eventsMostLimit)
    throw new RangeError(
      `events: option "limit" must be an integer from 1 to ${eventsMostLimit}; got ${describe(limit)}`,
    );
  if (after !== undefined && (typeof after !== 'string' || !/^\d+-\d+$/.test(after)))
    throw new TypeError(`events: option "after" must be a stream id; got ${describe(after)}`);
  const client = context.connection.client;
  if ((await client.pexpire(context.keys.events, eventsWatchMs)) === 0) {
    // no stream yet (or it ran out): make one, and the scripts record from now on
    await client
      .multi()
      .xadd(context.keys.events, 'MAXLEN', '~', eventsKept, '*', 'e', 'watch')
      .pexpire(context.keys.events, eventsWatchMs)
      // the scripts' hot paths learn from `features` that the stream exists (include/features.lua)
      .hset(context.keys.features, 'events', '1')
      .exec();
  }
  const entries =
    after === undefined
      ? (await client.xrevrange(context.keys.events, '+', '-', 'COUNT', limit)).reverse()
      : await client.xrange(context.keys.events, `(${after}`, '+', 'COUNT', limit);
  return entries.flatMap(([id, fields]) => {
    const map = new Map<string, string>();
    for (let index = 0; index + 1 < fields.length; index += 2)
      map.set(fields[index] ?? '', fields[index + 1] ?? '');
    const kind = map.get('e');
    if (kind === undefined || kind === 'watch') return [];
    const why = map.get('why');
    return [
      {
        id,
        kind: kind as QueueEventKind,
        task: map.get('id') ?? '',
        worker: map.get('w') ?? '',
        at: new Date(Number(map.get('at') ?? 0)),
        ...(why === undefined ? {} : { reason: why }),
      },
    ];
  });
}

/** recordFailure adds a `failed` event (a Worker's ensure rejected) while the queue records events. */
export async function recordFailure(
  context: EngineContext,
  task: string,
  error: unknown,
): Promise<void> {
  const at = readClock(context.clock).getTime();
  await context.connection.client.xadd(
    context.keys.events,
    'NOMKSTREAM',
    'MAXLEN',
    '~',
    eventsKept,
    '*',
    'e',
    'failed',
    'id',
    task,
    'w',
    context.options.worker,
    'at',
    String(at),
    'why',
    reason(error).slice(0, 200),
  );
}
