import { fromReply } from '../errors.js';
import { Label } from '../task/label.js';
import { formatTime } from '../task/time.js';
import { readCoreLabel, readObjectId } from '../task/snapshot.js';
import type { Task } from '../task/task.js';
import { assertOpen, readClock, type EngineContext } from './context.js';
import { prepareCreate } from './create.js';
import { completeBroadcastLocally, countDelete, deleteTask, prepareDelete } from './delete.js';
import {
  claimEntryArgs,
  claimHeaderArgs,
  headerFloors,
  readClaimReplies,
  sentAgainAt,
  sharedParking,
} from './complete-claim.js';
import { filterList, type FilterList } from './filters.js';
import { contextOf } from './context-registry.js';
import { argv } from './lua/arguments.js';
import { completedTask, countTasks, observe } from './observe.js';
import { run, runRequest } from './run.js';
import {
  broadcastArgs,
  claimedLeaseEnd,
  more,
  parkingArgs,
  pruneLedger,
  readSearchReply,
  retry,
  foldedSearchValues,
  searchWith,
  type Parking,
  type SearchReply,
} from './search.js';

export { claimedLeaseEnd, filterList, type FilterList, type Parking };

// Operations the worker runtime needs beyond the public Engine API. They keep
// the engine's semantics: each is one atomic step, or equivalent to a
// sequence of public operations.

/** Completion is one task to complete, and the filters and slot of the search that follows it. */
export interface Completion {
  task: Task;
  filters: FilterList;
  parking?: Parking;
  /** The outcome's fields from the attempt (outcome.ts outcomeFields), if any. */
  outcome?: string;
  /** The tasks its handler spawned (spawnedArgs), if any. */
  children?: string;
}

/**
 * CompletionOutcome is what a completion came to: the task was deleted (or
 * requeued) and the next one claimed, if any, or the delete failed with
 * `error`. `searchError` is a failure of the search after a delete that
 * went through (the task is done; nothing was claimed).
 */
export type CompletionOutcome =
  | { deleted: true; next: Task | undefined; searchError?: unknown }
  | { deleted: false; error: unknown };

/**
 * deleteThenSearch completes tasks and claims the next ones in one atomic step
 * (the delete-search script): for each completion in order, the same outcome
 * as `delete(task)` followed by `search(filter)` with nothing in between, in
 * one round trip for all of them, or in more when a call runs the engine's
 * stepTime before it is through (the completions left go in the next call,
 * each call one atomic step). A completion whose delete fails (lost
 * ownership, a bad copy) gets that error and no search; the others go on.
 * `exclude` lists ids none of the searches may claim.
 */
export async function deleteThenSearch(
  engine: object,
  completions: readonly Completion[],
  exclude: string[] = [],
): Promise<CompletionOutcome[]> {
  const context = contextOf(engine);
  return observe(context, 'deleteSearch', () => completeAndSearch(context, completions, exclude));
}

/** A step of completeAndSearch: a completion, or a claim alone for a slot. */
type Step = Completion | ClaimStep;

/** ClaimStep is a search of a slot that completes nothing. */
interface ClaimStep extends Omit<Completion, 'task'> {
  claimAlone: true;
  task?: undefined;
}

async function completeAndSearch(
  context: EngineContext,
  completions: readonly Step[],
  exclude: string[],
): Promise<CompletionOutcome[]> {
  assertOpen(context, 'delete');
  const now = readClock(context.clock);
  const nowMs = now.getTime();
  const outcomes: (CompletionOutcome | undefined)[] = [];
  /** the delete-search arguments of each completion sent, by its index */
  const entries = new Map<number, (string | number)[]>();
  /** the same for complete-claim, while every step so far fits it */
  let leanEntries: Map<number, (string | number)[]> | undefined = new Map();
  for (let index = 0; index < completions.length; index++) {
    const step = completions[index] as Step;
    const { task, filters, parking, outcome, children } = step;
    try {
      const prepared =
        'claimAlone' in step ? undefined : prepareDelete(context, task, now, outcome, children);
      // a broadcast copy this engine received is completed here: its search follows below
      if (prepared?.completedLocally === true) {
        await completeBroadcastLocally(context, prepared.id, children ?? '', now);
        completedTask(context, task as Task);
        continue;
      }
      const lean = claimEntryArgs(context, { folded: prepared?.folded, task, parking });
      if (lean === undefined) leanEntries = undefined;
      else leanEntries?.set(index, lean);
      if (prepared === undefined) continue; // a claim alone: complete-claim carries it
      entries.set(index, [
        ...argv('folded_delete', prepared.folded),
        ...argv('entry_search', {
          filters: filters.texts,
          filter_ids: filters.ids,
          ...parkingArgs(parking, nowMs),
          ...broadcastArgs(context, filters),
        }),
      ]);
    } catch (error) {
      outcomes[index] = { deleted: false, error };
    }
  }
  // complete-claim takes one filter list and one parking time for the call
  const sentSteps = [...(leanEntries?.keys() ?? entries.keys())].map(
    (index) => completions[index] as Step,
  );
  const filters = sentSteps[0]?.filters;
  const parkFor = sharedParking(sentSteps);
  const lean =
    leanEntries !== undefined &&
    parkFor !== undefined &&
    sentSteps.every((step) => step.filters.texts === filters?.texts);
  let sent = [...(lean ? (leanEntries as Map<number, (string | number)[]>) : entries).keys()];
  if (sent.length > 0) {
    const pruning = pruneLedger(context, nowMs);
    if (pruning !== undefined) await pruning;
  }
  const observed = context.observers.size > 0;
  // a call ends once it has run the engine's stepTime (after its first
  // completion): the completions it left go in the next call
  for (let callMs = nowMs; sent.length > 0; callMs = readClock(context.clock).getTime()) {
    const batch = sent;
    /** the floors of the arguments sent last: a lean claim's answer is read with them */
    let floors = '';
    const replies = (
      lean
        ? readClaimReplies(
            (await runRequest(
              context,
              'completeClaim',
              (request) => {
                const header = claimHeaderArgs(
                  context,
                  callMs,
                  request,
                  filters as FilterList,
                  exclude,
                  parkFor,
                );
                floors = headerFloors(header);
                return header.concat(batch.flatMap((index) => leanEntries?.get(index) ?? []));
              },
              sentAgainAt,
            )) as unknown[],
            floors,
          )
        : await runRequest(context, 'deleteSearch', (request) =>
            argv('folded_search', foldedSearchValues(context, callMs, request, exclude)).concat(
              argv('delete_search', {
                retention: context.options.outcomeRetention,
                most: context.options.outcomeLimit,
              }),
              batch.flatMap((index) => entries.get(index) ?? []),
            ),
          )
    ) as DeleteSearchReply[];
    const counts = replies[batch.length];
    if (counts?.[0] === 'counts')
      countTasks(context, { created: { gate: counts[1] }, halted: counts[2] });
    sent = [];
    for (let position = 0; position < batch.length; position++) {
      const index = batch[position] as number;
      const completion = completions[index] as Step;
      const reply = replies[position];
      // the script always runs its first entry: a call that left them all answered wrongly
      if (reply?.[0] === 'later' && position > 0) {
        sent.push(index);
        continue;
      }
      if (
        reply === undefined ||
        reply[0] === 'error' ||
        reply[0] === 'counts' ||
        reply[0] === 'later'
      ) {
        const message =
          reply?.[0] === 'error' ? reply[1] : 'delete-search: no answer for this completion';
        outcomes[index] = { deleted: false, error: fromReply(new Error(message)) };
        continue;
      }
      if (observed && !('claimAlone' in completion)) {
        countDelete(context, [reply[0], 0, 0]);
        completedTask(context, completion.task);
      }
      // the entry's search answer follows its delete's result
      const next = readSearchReply(context, reply, callMs, completion.filters.set, 1);
      // a broadcast task another search of this engine delivered first, or a
      // search that ran out of its budget: searched again before the next
      // call (complete-claim leaves the entries after it for that call)
      if (next !== retry && next !== more) outcomes[index] = { deleted: true, next };
      else if (lean) outcomes[index] = await searchAgain(context, completion, exclude);
    }
  }
  for (let index = 0; index < completions.length; index++) {
    if (outcomes[index] === undefined)
      outcomes[index] = await searchAgain(context, completions[index] as Step, exclude);
  }
  return outcomes as CompletionOutcome[];
}

/** searchAgain runs the search of a step whose delete went through (or that had none) on its own. */
async function searchAgain(
  context: EngineContext,
  step: Step,
  exclude: string[],
): Promise<CompletionOutcome> {
  try {
    return {
      deleted: true,
      next: await searchWith(context, step.filters, exclude, step.parking),
    };
  } catch (searchError) {
    return { deleted: true, next: undefined, searchError };
  }
}

/**
 * claimTasks claims up to one task for each of the given slots of this
 * engine's worker in one atomic step (docs/semantics.md §3.2, a search per
 * slot one after another with nothing in between), with the same filters.
 * Each slot that finds no work parks. A search that fails is its slot's
 * `searchError`; the others' claims stand.
 */
export async function claimTasks(
  engine: object,
  filters: FilterList,
  parkings: readonly Parking[],
  exclude: string[],
): Promise<CompletionOutcome[]> {
  const context = contextOf(engine);
  return observe(context, 'search', () => {
    assertOpen(context, 'search');
    return completeAndSearch(
      context,
      parkings.map((parking) => ({ claimAlone: true, filters, parking })),
      exclude,
    );
  });
}

/**
 * DeleteSearchReply is the delete-search script's answer for one entry, then
 * once the counts of all entries: children gate templates emitted, tasks halted
 * (complete-claim answers them only when an entry took the general path).
 */
type DeleteSearchReply =
  | [number, ...SearchReply]
  | ['error', string]
  | ['later']
  | ['counts', emitted: number, halted: number];

/**
 * searchFor searches with the worker runtime's filters (validated), tried in
 * turn, skipping the given ids (its declined tasks, so an older task no
 * handler takes does not hide the newer ones). A slot that finds no work
 * parks until the queue wakes it.
 */
export async function searchFor(
  engine: object,
  filters: FilterList,
  exclude: string[],
  parking?: Parking,
): Promise<Task | undefined> {
  const context = contextOf(engine);
  return observe(context, 'search', async () => {
    assertOpen(context, 'search');
    return searchWith(context, filters, exclude, parking);
  });
}

/**
 * completeLocally marks a broadcast task this engine received done here, as
 * delete's step 1 does (the worker runtime, for one none of its handlers
 * takes): this engine is not offered it again.
 */
export function completeLocally(engine: object, id: string): void {
  contextOf(engine).ledger.complete(id);
}

/**
 * unparkSlots takes the given slots of this engine's worker off the queue's
 * idle list (a worker that stops), so no wake-up goes to them.
 */
export async function unparkSlots(engine: object, slots: string[]): Promise<void> {
  const context = contextOf(engine);
  if (context.closed || slots.length === 0) return;
  const now = readClock(context.clock);
  await run(
    context,
    'unpark',
    argv('unpark', { now_ms: now.getTime(), worker: context.options.worker }).concat(slots),
  );
}

/**
 * releaseTask gives back a task this engine's worker owns without counting a
 * cycle, so another worker can claim it at once. Only the claim the copy
 * carries is released (its token), never a later claim of the same task by
 * this worker id. Says whether it was released (false: gone, or owned by
 * someone else or under another claim). `cutShort` are the fields of the
 * attempt of a handler that began and was cut short (stop()'s grace period):
 * kept as a failed attempt, so the queue knows a worker claimed the task.
 */
export async function releaseTask(
  engine: object,
  task: Task,
  cutShort?: string,
  holdMs?: number,
): Promise<boolean> {
  const context = contextOf(engine);
  return observe(context, 'release', () => release(context, task, cutShort, holdMs));
}

/**
 * release.lua; `cutShort`: the fields of an attempt a handler began, kept as
 * a failed one; `holdMs`: context.rateLimit's hold of the task's rate-limited
 * values (the whole queue without a keyed limit), docs/semantics.md §3.16.
 */
async function release(
  context: EngineContext,
  task: Task,
  cutShort?: string,
  holdMs?: number,
): Promise<boolean> {
  assertOpen(context, 'release');
  const id = readObjectId(task); // the task a handler had: read once, whatever it became
  if (id === undefined) return false;
  const token = readCoreLabel(task, Label.Token) ?? '';
  const now = readClock(context.clock);
  const args = argv('release', {
    now_ms: now.getTime(),
    id,
    worker: context.options.worker,
    token,
    state: cutShort === undefined ? '' : 'failed',
    fields: cutShort ?? '',
    hold: holdMs === undefined ? '' : now.getTime() + holdMs,
  });
  return (await run(context, 'release', args)) === 1;
}

/** completeTask deletes a task the worker runtime ensured, with its outcome's fields and spawned tasks (no search follows). */
export function completeTask(
  engine: object,
  task: Task,
  outcome: string,
  children: string,
): Promise<void> {
  return deleteTask(contextOf(engine), task, outcome, children);
}

/** The most tasks one handler run may spawn: they are stored by the script that completes it. */
export const spawnMost = 100;

/**
 * prepareSpawn validates a task a running handler spawns (as create does,
 * at this instant) and returns what the completing script stores.
 */
export function prepareSpawn(engine: object, task: Task): unknown[] {
  const context = contextOf(engine);
  const { args } = prepareCreate(task, readClock(context.clock));
  return argv('spawned', args);
}

/**
 * failTask records how an attempt at a task this engine's worker owns failed
 * (fail.lua); the task stays owned until its lease ends. Says whether it was
 * recorded (false: gone, or the claim is not this copy's).
 */
export async function failTask(
  engine: object,
  task: Task,
  state: 'failed' | 'timeout',
  fields: string,
): Promise<boolean> {
  const context = contextOf(engine);
  assertOpen(context, 'fail');
  const id = readObjectId(task);
  if (id === undefined) return false;
  const now = readClock(context.clock);
  const answer = await runRequest(context, 'fail', (request) =>
    argv('fail', {
      now_ms: now.getTime(),
      id,
      worker: task.core?.[Label.Worker] ?? '',
      token: task.core?.[Label.Token] ?? '',
      state,
      fields,
      request,
    }),
  );
  return answer === 1;
}

/** RetryPlan says how retry.lua gives a failed task back: when it runs again, and its breaker. */
export interface RetryPlan {
  /** When the task may run again (engine ms); undefined or not after now: at once. */
  dueMs?: number;
  /** The circuit breaker to set (the lower of it and the task's): a count, or 'now' to halt it now. */
  cancel?: number | 'now';
}

/**
 * retryTask gives back a task this engine's worker owns whose handler failed,
 * with the record of the attempt, one cycle more, due again at plan.dueMs
 * (retry.lua). Answers 'halted' when the circuit breaker now holds it,
 * 'retried' when it will run again, 'gone' when the task is gone or the claim
 * is not this copy's.
 */
export async function retryTask(
  engine: object,
  task: Task,
  fields: string,
  plan: RetryPlan,
): Promise<'halted' | 'retried' | 'gone'> {
  const context = contextOf(engine);
  assertOpen(context, 'retry');
  const id = readObjectId(task);
  if (id === undefined) return 'gone';
  const now = readClock(context.clock);
  const dueMs = plan.dueMs !== undefined && plan.dueMs > now.getTime() ? plan.dueMs : undefined;
  const answer = await runRequest(context, 'retry', (request) =>
    argv('retry', {
      now_ms: now.getTime(),
      id,
      worker: task.core?.[Label.Worker] ?? '',
      token: task.core?.[Label.Token] ?? '',
      fields,
      due_ms: dueMs ?? '',
      due: dueMs === undefined ? '' : formatTime(new Date(dueMs)),
      cancel: plan.cancel ?? '',
      retention: context.options.failedOutcomeRetention, // retry.lua records an outcome only when it halts the task
      most: context.options.outcomeLimit,
      request,
    }),
  );
  return answer === 2 ? 'halted' : answer === 1 ? 'retried' : 'gone';
}

/** nextDueMs is the earliest due time of a waiting exact or deferred task the last empty search saw. */
export function nextDueMs(engine: object): number | undefined {
  return contextOf(engine).nextDueMs;
}

/**
 * nextTickMs reads the earliest tick+1 of the queue's cron templates (engine
 * time), if any; a template parked because its @every cannot be read has none.
 */
export async function nextTickMs(engine: object): Promise<number | undefined> {
  const context = contextOf(engine);
  const [, score] = await context.reach.guard(
    context.connection.client.zrange(context.keys.templates, 0, 0, 'WITHSCORES'),
  );
  const tickMs = score === undefined ? Number.NaN : Number(score);
  return Number.isFinite(tickMs) ? tickMs : undefined;
}

/** engineContext exposes the context to the worker runtime (connection, keys, clock, options). */
export function engineContext(engine: object): EngineContext {
  return contextOf(engine);
}
