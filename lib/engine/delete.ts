import { TaskCronError } from '../errors.js';
import { deferDuration } from '../schedule/index.js';
import { copyLabels, encodeTask } from '../task/codec.js';
import { Gate, Label, Method } from '../task/label.js';
import type { Labels, Task } from '../task/task.js';
import { formatTime, tryParseTime } from '../task/time.js';
import { validateDelete } from '../task/validate.js';
import { assertOpen, readClock, type EngineContext } from './context.js';
import { layoutVersion } from './keys.js';
import { argumentValues, argv, type ArgumentValues } from './lua/arguments.js';
import { completedTask, countTasks } from './observe.js';
import { runRequest } from './run.js';

/**
 * deleteTask completes a task (docs/semantics.md §3.3). A broadcast copy this engine
 * received is completed locally (its spawned tasks created first); everything else is one script: ownership,
 * requeue or gate accounting, sync propagation, deletion, and the outcome
 * of a deleted task (`outcome`: its fields from the worker runtime).
 */
export async function deleteTask(
  context: EngineContext,
  argument: unknown,
  outcome = '',
  children = '',
): Promise<void> {
  assertOpen(context, 'delete');
  const now = readClock(context.clock);
  const prepared = prepareDelete(context, argument, now, outcome, children);
  if (prepared.completedLocally) {
    await completeBroadcastLocally(context, prepared.id, children, now);
  } else {
    let reply: DeleteReply;
    try {
      reply = (await runRequest(context, 'delete', (request) =>
        argv('delete', { ...prepared.values, request }),
      )) as DeleteReply;
    } catch (error) {
      throw explainDefer(error, prepared.deferProblem);
    }
    countDelete(context, reply);
  }
  completedTask(context, argument as Task);
}

/**
 * completeBroadcastLocally completes a broadcast copy this engine received (step 1):
 * the tasks its handler spawned here are created first, one create each
 * (each run of a broadcast task, one per engine, spawns its own children),
 * then the ledger marks it done. A create that fails throws before that, so
 * the engine is offered the task again.
 */
export async function completeBroadcastLocally(
  context: EngineContext,
  id: string,
  children: string,
  now: Date,
): Promise<void> {
  if (children !== '') {
    const entries = JSON.parse(children) as unknown[][];
    for (const entry of entries) {
      await runRequest(context, 'create', (request) =>
        argv('create', {
          ...argumentValues('spawned', entry),
          now_ms: now.getTime(),
          layout: layoutVersion,
          request,
          after: '',
          unique: '',
        }),
      );
    }
  }
  context.ledger.complete(id);
}

/** DeleteReply is the delete script's answer: result (1 deleted, 2 requeued), children gates emitted, halted. */
export type DeleteReply = [result: number, emitted: number, halted: number];

/** countDelete reports what a delete's script counted: a requeue, gate emissions, a halt. */
export function countDelete(context: EngineContext, [result, emitted, halted]: DeleteReply): void {
  countTasks(context, { created: { requeue: result === 2 ? 1 : 0, gate: emitted }, halted });
}

/**
 * DeletePreparation is a validated delete: done locally (completeBroadcastLocally), or the delete
 * script's arguments but the request (`values`) and the same delete as an entry of
 * delete-search (`folded`: the instant and the outcome settings are that call's).
 */
export type DeletePreparation =
  | { completedLocally: true; id: string }
  | {
      completedLocally: false;
      values: Omit<ArgumentValues<'delete'>, 'request'>;
      folded: ArgumentValues<'folded_delete'>;
      /** What is wrong with the copy's @defer, when the script is to reject it. */
      deferProblem?: string;
    };

/**
 * explainDefer adds to the script's "not a duration" rejection what the
 * interval language says about the value (with its did-you-mean).
 */
function explainDefer(error: unknown, problem: string | undefined): unknown {
  if (problem === undefined || !(error instanceof TaskCronError)) return error;
  return new TaskCronError(`${error.message}: ${problem}`);
}

/** What a worker's completion has in the rare fields (delete_rare). */
const commonRare: ArgumentValues<'delete_rare'> = {
  bypass: '0',
  requeue: '0',
  defer_ok: '1',
  requeued: '',
  due_ms: '',
  tick_p1_ms: '',
  gate: '',
  sync: '',
  root_id: '',
  children: '',
};
const commonRareArgs = argv('delete_rare', commonRare);

/**
 * prepareDelete validates a delete (DL1-DL4), tells a broadcast copy this
 * engine received (step 1: completeBroadcastLocally), and otherwise builds the delete script's ARGV.
 * `outcome` is the JSON object of the fields the deleted task's outcome gets
 * from the worker runtime (outcome.ts outcomeFields), '' for none;
 * `children` the JSON array of the tasks its handler spawned, '' for none.
 */
export function prepareDelete(
  context: EngineContext,
  argument: unknown,
  now: Date,
  outcome = '',
  children = '',
): DeletePreparation {
  const { task: copy, plan } = validateDelete(argument);

  // Step 1: local broadcast completion, without Redis.
  if (
    context.ledger.has(plan.objectId) &&
    copy.node?.[Label.Method] === Method.All &&
    !plan.hasBypassKey &&
    copy.cron === undefined &&
    copy.gate === undefined
  ) {
    return { completedLocally: true, id: plan.objectId };
  }

  const requeue = requeuePlan(copy, now);
  // The script needs of the copy only its worker, a trigger gate, its sync and
  // its root's object id; the rest stays here.
  const trigger = copy.gate !== undefined && Object.values(copy.gate).includes(Gate.Trigger);
  const sync =
    copy.sync !== undefined && Object.keys(copy.sync).length > 0 ? JSON.stringify(copy.sync) : '';
  const rare: ArgumentValues<'delete_rare'> = {
    bypass: plan.bypass ? '1' : '0',
    requeue: requeue === undefined ? '0' : '1',
    defer_ok: requeue?.deferValid === false ? '0' : '1',
    requeued: requeue === undefined ? '' : encodeTask(requeue.maps),
    due_ms: String(requeue?.dueMs ?? ''),
    tick_p1_ms: String(requeue?.tickP1Ms ?? ''),
    gate: trigger ? JSON.stringify(copy.gate) : '',
    sync,
    root_id: copy.root?.[Label.Object] ?? '',
    children,
  };
  const worker = copy.core?.[Label.Worker] ?? '';
  const token = copy.core?.[Label.Token] ?? '';
  const rareArgs = argv('delete_rare', rare);
  const common = commonRareArgs.every((value, index) => value === rareArgs[index]);
  return {
    completedLocally: false,
    values: {
      now_ms: now.getTime(),
      id: plan.objectId,
      worker,
      ...rare,
      token,
      outcome,
      retention: context.options.outcomeRetention,
      most: context.options.outcomeLimit,
    },
    folded: {
      id: plan.objectId,
      worker,
      token,
      outcome,
      rare: common ? '' : JSON.stringify(rareArgs),
    },
    ...(requeue?.deferProblem === undefined ? {} : { deferProblem: requeue.deferProblem }),
  };
}

interface RequeuePlan {
  /** cron, meta, node and sync of the requeued task. */
  maps: Task;
  /** False when the copy's @defer is not a duration: delete then throws TaskCronError. */
  deferValid: boolean;
  /** Why the copy's @defer is not a duration. */
  deferProblem?: string;
  /** When the requeued task becomes due, for an exact or deferred task. */
  dueMs: number | undefined;
  /** tick+1 when the requeued task is a cron template: its label read, or '-inf' (overdue). */
  tickP1Ms: number | '-inf' | undefined;
}

/**
 * requeuePlan decides from the copy alone (step 4): a copy without gate and
 * root is requeued when it pages or defers. Only @defer computes a new tick+1.
 */
function requeuePlan(copy: Task, now: Date): RequeuePlan | undefined {
  if (copy.gate !== undefined || copy.root !== undefined) return undefined;
  if (!pages(copy) && !defers(copy)) return undefined;
  const cron = copy.cron === undefined ? undefined : copyLabels(copy.cron);
  let deferValid = true;
  let deferProblem: string | undefined;
  const defer = cron?.[Label.Defer];
  if (cron !== undefined && defer !== undefined) {
    try {
      cron[Label.TickP1] = formatTime(new Date(now.getTime() + deferDuration(defer)));
    } catch (error) {
      if (!(error instanceof TaskCronError)) throw error;
      deferValid = false;
      deferProblem = error.message;
    }
  }
  const maps: Task = {};
  if (cron !== undefined) maps.cron = cron;
  if (copy.meta !== undefined) maps.meta = copy.meta;
  if (copy.node !== undefined) maps.node = copy.node;
  if (copy.sync !== undefined) maps.sync = copy.sync;
  const tickP1Ms =
    cron !== undefined && Object.hasOwn(cron, Label.Every)
      ? (tryParseTime(cron[Label.TickP1])?.getTime() ?? '-inf')
      : undefined;
  return { maps, deferValid, deferProblem, dueMs: dueTime(cron), tickP1Ms };
}

/** paging: the copy's paging value is neither blank nor '0' (docs/semantics.md §1.4). */
function pages(task: Task): boolean {
  const value = task.sync?.[Label.Paging];
  return value !== undefined && value.trim() !== '' && value !== '0';
}

/** deferral: the copy's cron is exactly one @defer label. */
function defers(task: Task): boolean {
  const keys = task.cron === undefined ? [] : Object.keys(task.cron);
  return keys.length === 1 && keys[0] === Label.Defer;
}

/**
 * dueTime is when an exact or deferred task becomes due: the later of @exact
 * and a deferred tick+1; an unreadable time counts as reached.
 */
export function dueTime(cron: Labels | undefined): number | undefined {
  if (cron === undefined || Object.hasOwn(cron, Label.Every)) return undefined;
  const times: number[] = [];
  if (Object.hasOwn(cron, Label.Exact)) times.push(tryParseTime(cron[Label.Exact])?.getTime() ?? 0);
  if (Object.hasOwn(cron, Label.Defer) && Object.hasOwn(cron, Label.TickP1)) {
    times.push(tryParseTime(cron[Label.TickP1])?.getTime() ?? 0);
  }
  return times.length === 0 ? undefined : Math.max(...times);
}
