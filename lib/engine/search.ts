import { decodeStored } from '../task/codec.js';
import { Label } from '../task/label.js';
import type { Task } from '../task/task.js';
import { formatTime } from '../task/time.js';
import { validateFilter } from '../task/validate.js';
import { assertOpen, readClock, type EngineContext } from './context.js';
import { filterList, noFilters, type FilterList } from './filters.js';
import { argumentNames, argv, type ArgumentValues } from './lua/arguments.js';
import { runRequest } from './run.js';

/** SearchReply is what the search script answers (see search.lua). */
export type SearchReply = [
  kind: 'broadcast' | 'task' | 'none' | 'more',
  id: string,
  record: string,
  floor: string,
  nextDue: string,
  resume: string,
  sequenceBack: '' | '1',
];
/**
 * searchTask delivers a broadcast task or claims a task for this worker
 * (docs/semantics.md §3.2).
 */
export async function searchTask(
  context: EngineContext,
  filterArgument?: unknown,
  exclude: string[] = [],
): Promise<Task | undefined> {
  assertOpen(context, 'search');
  const filter = validateFilter(filterArgument);
  return searchWith(context, filter === undefined ? noFilters : filterList([filter]), exclude);
}

/**
 * Parking says which slot of the worker runtime searches, and for how long
 * (engine ms from the search's instant) it stays parked if there is no work.
 */
export interface Parking {
  slot: string;
  forMs: number;
}

/**
 * searchWith searches with validated filters, tried in turn. Each script is
 * one atomic step of bounded work; a step that could not decide within its
 * budget says where the next one resumes. When two searches of this engine
 * race for the same broadcast task, the ledger lets one deliver it and the
 * other searches again. A runtime slot that finds no work parks: the queue
 * wakes it when a task it may take becomes claimable.
 */
export async function searchWith(
  context: EngineContext,
  filters: FilterList,
  exclude: string[] = [],
  parking?: Parking,
): Promise<Task | undefined> {
  const nowMs = readClock(context.clock).getTime();
  const pruning = pruneLedger(context, nowMs);
  if (pruning !== undefined) await pruning;
  let resume = '';
  for (;;) {
    const reply = (await runRequest(
      context,
      'search',
      (request) => searchArgs(context, filters, nowMs, request, exclude, resume, parking),
      searchSentAgainAt,
    )) as SearchReply;
    const outcome = readSearchReply(context, reply, nowMs, filters.set);
    if (outcome === more) resume = reply[5];
    else if (outcome === retry) resume = '';
    else return outcome;
  }
}

/** Where a search's request is in its arguments: sent again, it is prefixed with `r` (run.ts runRequest). */
const searchSentAgainAt = argumentNames('search').indexOf('request');

/** When the lease of a task a search claimed ends (engine ms), by the task object it returned. */
const leaseEnds = new WeakMap<Task, number>();

/** claimedLeaseEnd tells when the lease of a task this engine's search just claimed ends, without reading its label. */
export function claimedLeaseEnd(task: Task): number | undefined {
  return leaseEnds.get(task);
}

/**
 * The stored records of tasks the lean path claimed (complete-claim.lua),
 * by the task object the search returned: a record still stored as it was
 * is of that claim, and its completion need not decode it (include/lean.lua).
 */
const leanRecords = new WeakMap<Task, LeanClaim>();

/**
 * LeanClaim is a claim the lean path made: the record it answered, the
 * claim's token, and the instant its call was sent with (ms), which the
 * claim wrote as the task's `since` in `owned` (include/owned.lua).
 */
export interface LeanClaim {
  record: string;
  token: string;
  sinceMs: number;
}

/** leanClaimOf tells the claim the lean path made of this task object, if it made it. */
export function leanClaimOf(task: Task): LeanClaim | undefined {
  return leanRecords.get(task);
}

/** What complete-claim.lua answers as a claim's resume when the lean path made it (and as its kind: complete-claim.ts). */
export const leanClaim = 'lean';

/** retry marks a broadcast task a concurrent search of this engine delivered first. */
export const retry = Symbol('retry');

/** more marks a search step that ran out of its budget: the next step resumes it. */
export const more = Symbol('more');

/**
 * searchArgs builds the search script's ARGV for filters, an instant, the
 * request (requests.ts), ids not to claim (the worker runtime's declined
 * tasks), where a step resumes ('' for the first), and the runtime slot that
 * searches.
 */
function searchArgs(
  context: EngineContext,
  filters: FilterList,
  nowMs: number,
  request: string,
  exclude: string[] = [],
  resume = '',
  parking?: Parking,
): (string | number)[] {
  return argv('search', {
    ...foldedSearchValues(context, nowMs, request, exclude),
    filters: filters.texts,
    ...broadcastArgs(context, filters),
    resume,
    filter_ids: filters.ids,
    ...parkingArgs(parking, nowMs),
  });
}

/**
 * foldedSearchValues are the arguments of a search that delete-search's
 * entries share (the folded_search list): a search's without what each
 * entry brings (filters, broadcast floor and skips, slot) and the resume,
 * which it never has.
 */
export function foldedSearchValues(
  context: EngineContext,
  nowMs: number,
  request: string,
  exclude: string[],
): ArgumentValues<'folded_search'> {
  const leaseEndMs = nowMs + context.options.expiry;
  return {
    now_ms: nowMs,
    worker: context.options.worker,
    expiry: formatTime(new Date(leaseEndMs)),
    expiry_ms: leaseEndMs,
    redeliver: idList(context.ledger.redeliverIds(nowMs)),
    start_ms: context.startMs,
    exclude: idList(exclude),
    self_key: context.selfKey,
    request,
  };
}

/** broadcastArgs are where a search's walk over broadcast tasks starts for its filters, and what it skips. */
export function broadcastArgs(
  context: EngineContext,
  filters: FilterList,
): { floors: string; skip: string } {
  const { ledger } = context;
  return {
    floors: `${ledger.floor(filters.set)}:${ledger.base}`,
    skip: idList(ledger.skipIds(filters.set)),
  };
}

/** parkingArgs are the slot and park deadline arguments of a search at nowMs. */
export function parkingArgs(
  parking: Parking | undefined,
  nowMs: number,
): { slot: string; park_until: string } {
  return parking === undefined
    ? { slot: '', park_until: '' }
    : { slot: parking.slot, park_until: String(nowMs + parking.forMs) };
}

/** idList writes ids for the script; '' when there are none (most searches). */
export function idList(ids: readonly string[]): string {
  return ids.length === 0 ? '' : JSON.stringify(ids);
}

/**
 * readSearchReply turns the script's answer into the task handed out, records
 * a broadcast delivery in the ledger, says `retry` when a concurrent search
 * of this engine delivered that broadcast task first, and `more` when the
 * step ran out of its budget. `offset` is where the search's answer starts
 * in `reply` (delete-search puts the delete's result before it).
 */
export function readSearchReply(
  context: EngineContext,
  reply: SearchReply | readonly unknown[],
  nowMs: number,
  filterSet: string,
  offset = 0,
): Task | undefined | typeof retry | typeof more {
  const kind = reply[offset] as SearchReply[0];
  const id = reply[offset + 1] as string;
  const record = reply[offset + 2] as string;
  const floors = reply[offset + 3] as string;
  const nextDue = reply[offset + 4] as string;
  const sequenceBack = reply[offset + 6] as SearchReply[6];
  const colon = floors.indexOf(':');
  const floor = colon < 0 ? Number(floors) : Number(floors.slice(0, colon));
  const base = colon < 0 ? 0 : Number(floors.slice(colon + 1));
  if (sequenceBack === '1') context.ledger.restartFloors();
  else context.ledger.raiseFloor(filterSet, floor, base);
  if (kind === 'more') return more;
  if (kind === 'none') {
    context.nextDueMs = nextDue === '' ? undefined : Number(nextDue);
    return undefined;
  }
  const task = decodeStored(id, record);
  if (kind === 'task') {
    leaseEnds.set(task, nowMs + context.options.expiry);
    if (reply[offset + 5] === leanClaim)
      leanRecords.set(task, { record, token: task.core?.[Label.Token] ?? '', sinceMs: nowMs });
    return task;
  }
  return context.ledger.deliver(id, nowMs, nowMs + context.options.expiry) ? task : retry;
}

/** How often (engine time) the ledger drops entries of tasks that left the queue. */
const ledgerPruneIntervalMs = 60_000;

/**
 * pruneLedger forgets broadcast tasks that are no longer in the queue (an
 * engine may; docs/semantics.md §1.8), at most once a minute and only when the ledger
 * holds something: undefined when nothing is to be done (no need to wait).
 */
export function pruneLedger(context: EngineContext, nowMs: number): Promise<void> | undefined {
  const { ledger } = context;
  if (ledger.size === 0 || nowMs - context.ledgerPrunedMs < ledgerPruneIntervalMs) return undefined;
  context.ledgerPrunedMs = nowMs;
  return dropGone(context);
}

/** dropGone asks the queue which of the ledger's tasks are gone, and forgets them. */
async function dropGone(context: EngineContext): Promise<void> {
  const { ledger } = context;
  const ids = ledger.ids();
  const gone: string[] = [];
  for (let start = 0; start < ids.length; start += 1_000) {
    const batch = ids.slice(start, start + 1_000);
    const scores = await context.reach.guard(
      context.connection.client.zmscore(context.keys.broadcast, ...batch),
    );
    batch.forEach((id, index) => {
      if (scores[index] === null) gone.push(id);
    });
  }
  ledger.forget(gone);
}
