import { keyScheme } from '../task/label.js';

/**
 * queueKeys is the one place that builds the Redis keys of a queue. Every key
 * starts with `rescue.io:{<queue>}`: the braces are a Redis Cluster hash tag,
 * so all keys of one queue live in one slot and multi-key scripts work on a
 * cluster unchanged. `docs/redis-layout.md` describes each key and which
 * scripts read or write it.
 */
export function queueKeys(queue: string): QueueKeys {
  const prefix = `${keyScheme}:{${queue}}`;
  const key = (name: KeyName) => `${prefix}:${name}`;
  const keys = Object.fromEntries(keyNames.map((name) => [name, key(name)])) as Record<
    KeyName,
    string
  >;
  return {
    prefix,
    ...keys,
    all: keyNames.map(key),
    retired: retiredKeyNames.map((name) => `${prefix}:${name}`),
    progress: `${prefix}:progress`,
    workers: `${prefix}:workers`,
    worker: (worker: string) => `${prefix}:worker:${worker}`,
    expireLock: `${prefix}:lock:expire`,
    tickerLock: `${prefix}:lock:ticker`,
  };
}

/**
 * keyNames lists the keys of a queue in the order scripts receive them as
 * KEYS; the Lua prelude maps `K.<name>` to its position.
 */
export const keyNames = [
  'tasks', // hash: object id -> task JSON
  'sequence', // string: INCR counter for object ids
  'claims', // string: INCR counter for the fencing tokens of claims
  'requests', // hash: `<engine instance>:<slot>` -> `<request number>|<ms>|<answer>` of idempotent writes
  'requests-sweep', // string: HSCAN cursor of expire's sweep for answers kept longer than an hour
  'layout', // string: layout version of this queue's keys
  'ready', // zset (lex, score 0): unowned claimable `any` tasks without cron
  'ready-cron', // zset (lex): unowned claimable `any` tasks with a cron map (due exact / deferred / other)
  'ready-uni', // zset (lex): `<target worker>\0<id>` of unowned claimable `uni` tasks
  'ready-prio', // zset (lex): `<priority tag><id>` of unowned claimable `any` tasks with a priority other than 0 (higher first, then oldest)
  'targets', // hash: id of each task in `ready-uni` -> its target worker (to find its member without the record)
  'waiting', // zset: unowned exact / deferred tasks not yet due, score = due ms
  'promoted', // zset: exact / deferred tasks in a ready pool, score = due ms (a search whose clock is behind skips them)
  'due', // hash: id -> due ms of every exact / deferred task
  'leases', // zset: owned tasks, score = lease end ms
  'owners', // hash: worker -> number of tasks it owns
  'owner-order', // zset (lex): the JavaScript-order key of each worker that owns tasks (share gate: who sorts first)
  'owned', // zset (lex, score 0): `<id>:<claimed ms>:<worker>` of each owned task: whose `owners` count it is in, since when ('' after a repair)
  'broadcast', // zset: `all` tasks without cron that are not gate templates, score = sequence number (store order)
  'halted', // zset (lex): ids of tasks the circuit breaker holds (cycles reached cancel)
  'halted-since', // zset: the tasks of `halted`, score = ms it halted (haltedRetention)
  'retention', // zset (lex): tasks retention may delete (no cron, not a gate template) outside `ready` and `owned`
  'templates', // zset: cron templates, score = tick+1 ms
  'ticker-check', // zset: cron templates whose tick-1 may need maintenance, score = when
  'children', // zset (lex): `<template id><child id>`
  'gates', // zset (lex): `<gate key>\0<template id>` of gate templates
  'gate-templates', // zset (lex): ids of gate templates
  'watched', // hash: meta key -> '1' (listed in meta-tasks) or 'k' (being listed) once an exact root or metaIndexes named it
  'meta-tasks', // zset (lex): `<encoded pair>\0<id>` of each task whose meta has the pair, for watched keys
  'meta-indexes', // hash: meta key -> '1' for each key an engine's metaIndexes option declared (kept while no root needs it)
  'roots', // hash: group id -> `{"a": anchor pair, "r": root}` of each root some leaf has
  'root-leaves', // zset (lex): `<group id>\0<leaf id>` of each leaf
  'root-anchors', // zset (lex): `<encoded pair>\0<group id>` of each group of an exact root
  'wild-roots', // zset (lex): group ids of roots with patterns
  'witnesses', // hash: group id -> a task whose meta has the group's root
  'obsolete-groups', // zset (lex): group ids that have a witness: search deletes their leaves
  'root-jobs', // list: JSON of the jobs that read the queue for roots, first in first out
  'sweep', // string: HSCAN cursor of expire's sweep for records that are not tasks
  'filters', // hash: filter id -> the filter (a query workers search with), for wake-ups and pools
  'filter-seen', // zset: filter id, score = when a worker last searched with it (ms): unused filters are dropped
  'filter-pools', // hash: filter id -> '' (its pool is complete) or where filling it goes on
  'ready-filtered', // zset (lex): `<filter id>\0<target worker or ''>\0<id>` of claimable tasks a pooled filter matches
  'parked', // zset (lex): `<filter id or ''>\0<deadline ms>\0<worker>\0<slot>` of idle worker slots
  'parked-slots', // hash: `<worker>\0<slot>` -> `<deadline ms>\0<filter ids, each followed by ','>`
  'parked-workers', // zset (lex): `<worker>\0<slot>` of idle worker slots (unicast wake-ups)
  'events', // stream (capped, about 10,000): `e` created / emitted / claimed / completed / ... of each task change, for tail
  'signal', // pub/sub channel (not a key) on which scripts announce claimable work
  'outcomes', // hash: id -> JSON of what became of a task that finished (completed, failed, cancelled, timeout)
  'outcome-expiry', // zset: ids in `outcomes`, score = when the record goes (ms); expire trims it, the count is capped
  'outcome-large', // zset: ids in `outcomes` whose record is over 4 KiB, score = when it goes (ms); capped at 200
  'attempts', // hash: id of a task in the queue -> `<failed|timeout>|<JSON>` of its last failed attempt
  'attempt-log', // hash: id of a task in the queue -> JSON array of its last 10 ended attempts (include/attempt-log.lua)
  'held', // hash: id of a task created `after` another -> `<predecessor id>\0<due ms or ''>\0<stored JSON>`
  'followers', // zset (lex): `<predecessor id>\0<id>` of each held task
  'held-sweep', // string: HSCAN cursor of expire's sweep for held tasks whose predecessor is gone or a template
  'features', // hash: name of an optional key -> '1' once the queue wrote it (include/features.lua: one read for hot paths)
  'unique', // hash: unique key -> `<id>\0<ttl ms>` of the task that holds it (while it lives, then for ttl)
  'unique-expiry', // zset: unique keys whose task ended, score = when the key is free (ms)
  'schedules', // hash: schedule name -> id of its cron template (engine.schedule)
  'paused', // string: when the queue was paused (ms; engine.pause): searches hand out nothing while it exists
  'caps', // hash: meta key -> most tasks of one value owned at once, '' -> most tasks owned at once (engine.setCap)
  'cap-counts', // hash: `<meta key>\0<value>` -> how many tasks of the value are owned, for each capped value
  'cap-holders', // hash: id of an owned task -> JSON list of the cap-counts fields it holds a slot in
  'rates', // hash: meta key -> `<limit>:<window ms>`, '' -> the whole queue's (engine.setRateLimit)
  'rate-windows', // hash: `<meta key>\0<value>` ('' the whole queue) -> `<reopen ms>:<claims>` of its window, claims -1 while held (context.rateLimit)
  'rate-expiry', // zset: rate-windows fields, score = when the window reopens (ms): claims prune those past
  'paused-queries', // hash: id of a paused query (lib/engine/filters.ts filterId) -> `<paused ms>\0<query JSON>` (engine.pause(query))
  'aside', // zset (lex): `<field>\0<priority tag><id>` of claimable tasks set aside: field `<meta key>\0<value>` (a lane: cap or rate limit) or `\0<paused query id>`
  'aside-of', // hash: id -> `a<aside member>` of a task in `aside`, or `r<JSON list of lane fields>` of a laned task in a ready pool
  'lane-ready', // hash: lane field `<meta key>\0<value>` -> how many of its tasks are in the ready pools
  'aside-refill', // zset (lex): lane fields whose room a step could not fill: searches go on with them
  'control', // pub/sub channel (not a key) on which cancel tells workers which running task to stop
  'watch', // prefix of the pub/sub channels `<watch>:<id>` (not keys) on which a task's outcome and progress are told
] as const;

export type KeyName = (typeof keyNames)[number];

/**
 * featureKeys: the optional keys whose use a queue notes in its `features`
 * hash, under the key's name (include/features.lua reads and writes it; its
 * feature_key names the same keys, spec/engine/features.spec.ts checks).
 */
export const featureKeys = [
  'followers', 'roots', 'watched', 'attempts', 'broadcast', 'waiting', 'obsolete-groups', 'promoted',
  'root-jobs', 'ready-cron', 'ready-uni', 'ready-prio', 'filters', 'filter-pools', 'parked-slots', 'events',
  'paused', 'caps', 'cap-holders', 'rates', 'rate-windows', 'paused-queries', 'aside-of', 'aside-refill',
] as const satisfies readonly KeyName[]; // prettier-ignore

export type QueueKeys = Record<KeyName, string> & {
  /** `rescue.io:{<queue>}`, what `keyfmt()` returns. */
  prefix: string;
  /** Every key, in `keyNames` order. */
  all: string[];
  /** The keys of `retiredKeyNames`: repair drops them. */
  retired: string[];
  /** Pub/sub channel on which workers publish their handlers' progress (not a key). */
  progress: string;
  /** zset: worker id -> its last heartbeat (engine ms), the index of the presence keys. */
  workers: string;
  /** The presence key of a running Worker: its description, with a TTL its heartbeat renews. */
  worker: (worker: string) => string;
  /** Redlock leases: which worker runs expire, and ticker, this interval. */
  expireLock: string;
  tickerLock: string;
};

/** layoutVersion names the key layout above; a queue written by another layout is refused, not misread. */
export const layoutVersion = '4';

/**
 * retiredKeyNames: keys an earlier layout wrote that this one does not;
 * repair drops them when it moves a queue to this layout (repair-start.lua).
 * `holders` (layout 3 and before: id -> `<claimed ms>:<worker>`) became `owned`.
 */
const retiredKeyNames = ['holders'] as const;

/**
 * workerOrderKey writes a worker id so that byte order is JavaScript's string order,
 * four hex digits per UTF-16 code unit: the owners of a queue are kept in
 * this order in Redis (the share gate counts those that sort first). Its Lua twin
 * is js_key in include/owners.lua.
 */
export function workerOrderKey(worker: string): string {
  let key = '';
  for (let index = 0; index < worker.length; index++) {
    key += worker.charCodeAt(index).toString(16).padStart(4, '0');
  }
  return key;
}

/** watchChannel is the pub/sub channel on which a task's outcome, claim and progress are told. */
export function watchChannel(keys: QueueKeys, id: string): string {
  return `${keys.watch}:${id}`;
}
