import { formatTime } from '../task/time.js';
import type { EngineContext } from './context.js';
import type { FilterList } from './filters.js';
import type { Task } from '../task/task.js';
import { argumentNames, argv, type ArgumentValues } from './lua/arguments.js';
import { broadcastArgs, idList, leanClaim, leanClaimOf, type Parking } from './search.js';

/**
 * The arguments of complete-claim.lua, the worker runtime's common step: the
 * call's header (the complete_claim list of lua/arguments.ts), then a
 * claim_entry list per entry. It takes what a worker's plain
 * completion needs, passed apart so the script splits no string; the
 * completions it cannot carry (another worker's copy, a requeue, a gate,
 * sync, spawned tasks; entries of different filters or parking) go to
 * delete-search.lua instead.
 */

/** ClaimEntry is one entry of a call: the task to complete (none for a claim alone) and its slot's parking. */
export interface ClaimEntry {
  /** The delete as delete-search folds it (delete.ts prepareDelete `folded`), or undefined for a claim alone. */
  folded?: ArgumentValues<'folded_delete'>;
  /** The copy completed: the record its lean claim answered goes along, while the copy is of that claim. */
  task?: Task;
  parking?: Parking;
}

/**
 * claimEntryArgs are an entry's six arguments, or undefined when
 * complete-claim cannot carry its delete: the copy is not of this engine's
 * worker, or has rare fields.
 */
export function claimEntryArgs(
  context: EngineContext,
  entry: ClaimEntry,
): (string | number)[] | undefined {
  const slot = entry.parking?.slot ?? '';
  if (entry.folded === undefined)
    return argv('claim_entry', { id: '', token: '', record: '', since: '', outcome: '', slot });
  const { id, worker, token, outcome, rare } = entry.folded;
  if (worker !== context.options.worker || rare !== '') return undefined;
  const claim = entry.task === undefined ? undefined : leanClaimOf(entry.task);
  // a copy whose token was changed since is not of that claim: the script decodes the record
  if (claim === undefined || claim.token !== token)
    return argv('claim_entry', { id, token, record: '', since: '', outcome, slot });
  return argv('claim_entry', {
    id,
    token,
    record: claim.record,
    since: claim.sinceMs,
    outcome,
    slot,
  });
}

/**
 * sharedParking: how long the entries' slots park (ms; '' when none parks), or
 * undefined when they differ (complete-claim takes one for the call).
 */
export function sharedParking(entries: readonly ClaimEntry[]): string | undefined {
  let forMs: number | undefined;
  for (const { parking } of entries) {
    if (parking === undefined) continue;
    if (forMs !== undefined && forMs !== parking.forMs) return undefined;
    forMs = parking.forMs;
  }
  return forMs === undefined ? '' : String(forMs);
}

/**
 * claimHeaderArgs are complete-claim.lua's complete_claim arguments for a call at nowMs with
 * the request (requests.ts) passed as its key and number, the searches'
 * filters, the ids none may claim and how long their slots park.
 */
export function claimHeaderArgs(
  context: EngineContext,
  nowMs: number,
  request: string,
  filters: FilterList,
  exclude: readonly string[],
  parkForMs: string,
): (string | number)[] {
  const leaseEndMs = nowMs + context.options.expiry;
  const { floors, skip } = broadcastArgs(context, filters);
  const redeliver = idList(context.ledger.redeliverIds(nowMs));
  const excluded = idList(exclude);
  const rare =
    redeliver === '' && excluded === '' && filters.texts === '' && skip === ''
      ? ''
      : JSON.stringify(
          argv('claim_rare', {
            redeliver,
            exclude: excluded,
            filters: filters.texts,
            filter_ids: filters.ids,
            skip,
          }),
        );
  const split = request.lastIndexOf(':');
  return argv('complete_claim', {
    now_ms: nowMs,
    expiry: formatTime(new Date(leaseEndMs)),
    expiry_ms: leaseEndMs,
    request_key: split < 0 ? '' : request.slice(0, split),
    request_number: split < 0 ? '' : request.slice(split + 1),
    floors,
    engine: engineArgument(context, parkForMs),
    rare,
  });
}

/**
 * Where complete_claim's rare arguments are in a call's arguments: runRequest
 * prefixes them with `r` on a send that may find the call ran already
 * (complete-claim.lua).
 */
export const sentAgainAt = argumentNames('complete_claim').indexOf('rare');

/** Where complete_claim's floors are in a call's arguments. */
const floorsAt = argumentNames('complete_claim').indexOf('floors');

/** headerFloors: the floors a call's arguments (claimHeaderArgs first) pass, what readClaimReplies needs. */
export function headerFloors(args: readonly (string | number)[]): string {
  return String(args[floorsAt]);
}

/**
 * engineArgument is complete-claim's `engine`: the values that are the same
 * on every call of the engine, in one text (include/engine-args.lua reads it,
 * once per text in a library): its start instant, its worker's order key,
 * outcome retention and limit, how long its slots park ('' none), its worker
 * id last (any character).
 */
function engineArgument(context: EngineContext, parkForMs: string): string {
  const { options } = context;
  return `${context.startMs}:${context.selfKey}:${options.outcomeRetention}:${options.outcomeLimit}:${parkForMs}:${options.worker}`;
}

/** How many values each kind of answer takes in complete-claim.lua's flat answer, by its first. */
const claimReplyLengths: Readonly<Record<string, number>> = { error: 2, later: 1, counts: 3 };
/** An entry that ran: its delete's result (a number), then the seven of its search's answer. */
const ranReplyLength = 8;
/** The same for a claim of the lean path: 'l1' or 'l0' (the result), the id and the record. */
const leanReplyLength = 3;
/** The first value of a lean claim's answer, by its delete's result. */
const leanResults: Readonly<Record<string, number>> = { l1: 1, l0: 0 };

/**
 * readClaimReplies reads complete-claim.lua's answer, one flat array (each
 * table and each value in the answer cost Redis instructions to convert),
 * back into one array per answer, the form delete-search.lua answers in: an
 * entry that ran starts with its delete's result, a number; the others with
 * 'error', 'later' or 'counts'. A claim of the lean path comes as 'l1' or
 * 'l0' (its delete's result), the id and the record: it is read as kind 'task' with the call's
 * `floors` (the script's answer would be the ones it was passed) and resume
 * 'lean'. A value of another form ends the reading: the caller sees the
 * entries it lacks as unanswered.
 */
export function readClaimReplies(flat: readonly unknown[], floors: string): unknown[][] {
  const replies: unknown[][] = [];
  let at = 0;
  while (at < flat.length) {
    const first = flat[at];
    const leanResult = typeof first === 'string' ? leanResults[first] : undefined;
    if (leanResult !== undefined) {
      if (at + leanReplyLength > flat.length) break;
      replies.push([leanResult, 'task', flat[at + 1], flat[at + 2], floors, '', leanClaim, '']);
      at += leanReplyLength;
      continue;
    }
    const length =
      typeof first === 'number'
        ? ranReplyLength
        : typeof first === 'string'
          ? claimReplyLengths[first]
          : undefined;
    if (length === undefined || at + length > flat.length) break;
    replies.push(flat.slice(at, at + length));
    at += length;
  }
  return replies;
}
