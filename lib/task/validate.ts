import {
  LabelReservedError,
  LabelValueError,
  TaskCoreError,
  TaskCronError,
  TaskEmptyError,
  TaskGateError,
  TaskKeyError,
  TaskMetaEmptyError,
  TaskNodeError,
} from '../errors.js';
import { schedule } from '../schedule/index.js';
import { parseRetryLabel } from '../schedule/retry.js';
import { nearest } from '../spelling.js';
import { quoteShort, reason } from './describe.js';
import { Bypass, Gate, Label, Method, reservedScheme } from './label.js';
import { didYouMean, isTimeLookalike, reservedLookalike } from './lookalike.js';
import { readPayload } from './payload.js';
import { readSnapshot, readTask, type Snapshot } from './snapshot.js';
import { taskKeys, type Labels, type Task } from './task.js';
import { parseTime } from './time.js';

// Validation is pure: each function checks one operation's rules in the order
// of docs/semantics.md §3 and throws the first failing rule's error. The first rule of
// each (C1, DL1, T1, Y1, X1, L1, and a search filter's only rule) is the shape
// of §3.0 checked on a snapshot (lib/task/snapshot.ts): S1, S2, then the size
// limits S3; every later rule reads that snapshot, which is what the operation
// sends. Rules that need stored state (not found, outdated) run later, inside
// the operation's script.

/** CreatePlan is what create derives from a valid task besides the task itself. */
export interface CreatePlan {
  /** The first ticks of a cron template. */
  ticks?: { tickM1: Date; tickP1: Date };
  /** The instant an `@exact` task becomes due. */
  exactAt?: Date;
}

/**
 * validateCreate checks rules C1–C17 (docs/semantics.md §3.1). It returns the
 * snapshot (the task to store, and the caller's maps it was read from).
 */
export function validateCreate(argument: unknown, now: Date): Snapshot & { plan: CreatePlan } {
  const { task, sources } = readSnapshot(argument, 'create', 'task'); // C1: S1, S2, S3
  rejectUnknownKeys(argument); // C1: S4
  const payload = readPayload(argument as object, 'create'); // C1: S5
  if (payload !== undefined) task.payload = payload.value;
  const { core, cron, gate, meta, node, root, sync } = task;
  const plan: CreatePlan = {};

  if (core !== undefined) {
    const keys = Object.keys(core);
    const settable: string[] = [Label.Cancel, Label.Retry, Label.Priority];
    if (keys.length === 0 || keys.some((key) => !settable.includes(key))) {
      throw new TaskCoreError(
        `create: Task.core may hold only ${quoteShort(Label.Cancel)}, ${quoteShort(Label.Retry)} and ${quoteShort(Label.Priority)}; got ${keys.length === 0 ? 'an empty map' : `keys ${keys.map(quoteShort).join(', ')}`}${hintFor(keys)}`,
      ); // C2
    }
    const cancel = core[Label.Cancel];
    if (cancel !== undefined && !isPositiveInteger(cancel)) {
      throw new TaskCoreError(
        `create: Task.core ${quoteShort(Label.Cancel)} must be a positive integer (digits only, at least 1); got ${quoteShort(cancel)}`,
      ); // C3
    }
    const priority = core[Label.Priority];
    if (priority !== undefined && !isPriority(priority)) {
      throw new TaskCoreError(
        `create: Task.core ${quoteShort(Label.Priority)} must be an integer from ${priorityRange.min} to ${priorityRange.max} (digits, an optional '-', no leading zeros); got ${quoteShort(priority)}`,
      ); // C3
    }
    const retry = core[Label.Retry];
    if (retry !== undefined) {
      try {
        parseRetryLabel(retry);
      } catch (error) {
        if (!(error instanceof TaskCronError)) throw error;
        throw new TaskCoreError(`create: Task.core ${quoteShort(Label.Retry)}: ${error.message}`);
      }
    }
  }

  if (meta === undefined || Object.keys(meta).length === 0) {
    throw new TaskMetaEmptyError(
      'create: Task.meta must hold at least one label describing the work',
    ); // C4
  }

  if (node !== undefined) validateNode(node); // C5–C8

  if (cron !== undefined && root !== undefined) {
    throw new TaskCronError(
      'create: Task.cron and Task.root cannot be combined: a scheduled task is never obsolete',
    ); // C9
  }
  if (gate !== undefined && root !== undefined) {
    throw new TaskGateError('create: Task.gate and Task.root cannot be combined'); // C10
  }

  if (cron !== undefined) {
    const keys = Object.keys(cron);
    rejectCronLookalikes(cron); // C11
    if (keys.length !== 1) {
      throw new TaskCronError(
        `create: Task.cron must hold exactly one label (${quoteShort(Label.Every)} or ${quoteShort(Label.Exact)}); got ${keys.length === 0 ? 'an empty map' : `keys ${keys.map(quoteShort).join(', ')}`}`,
      ); // C11
    }
    if (Object.hasOwn(cron, Label.Defer)) {
      throw new TaskCronError(
        `create: ${quoteShort(Label.Defer)} is set by a worker on the copy it deletes, not at create`,
      ); // C12
    }
    const every = cron[Label.Every];
    if (every !== undefined) {
      try {
        plan.ticks = schedule(every, now); // C13
      } catch (error) {
        if (error instanceof TaskCronError) {
          throw new TaskCronError(`create: Task.cron ${quoteShort(Label.Every)}: ${error.message}`);
        }
        throw error;
      }
    }
    const exact = cron[Label.Exact];
    if (exact !== undefined) {
      let at: Date;
      try {
        at = parseTime(exact);
      } catch {
        throw new TaskCronError(
          `create: Task.cron ${quoteShort(Label.Exact)} must be an RFC 3339 date-time such as "2023-10-20T08:00:00Z"; got ${quoteShort(exact)}`,
        ); // C14
      }
      if (at.getTime() <= now.getTime()) {
        throw new TaskCronError(
          `create: Task.cron ${quoteShort(Label.Exact)} must lie after now (${now.toISOString()}); got ${quoteShort(exact)}`,
        ); // C14
      }
      plan.exactAt = at;
    }
  }

  if (gate !== undefined) validateGate(gate, cron !== undefined); // C15, C16

  // C17: reserved keys outside their uses, and cron keys in the caller's own maps.
  for (const name of ['gate', 'meta', 'root', 'sync'] as const) {
    rejectTimeLookalikes(name, task[name]);
  }
  rejectReservedKeys('create', 'gate', gate);
  rejectReservedKeys('create', 'meta', meta);
  rejectReservedKeys('create', 'root', root);
  rejectReservedKeys('create', 'sync', sync, [Label.Paging]);
  rejectReservedKeys('create', 'cron', cron, [
    Label.Every,
    Label.Exact,
    Label.TickM1,
    Label.TickP1,
  ]);

  return { task, sources, plan };
}

/**
 * rejectUnknownKeys: a task given to create has only the keys of taskKeys.
 * Only the names are read (the snapshot read the maps), never the values.
 */
function rejectUnknownKeys(argument: unknown): void {
  let keys: string[];
  try {
    keys = Object.keys(argument as object);
  } catch (error) {
    throw new TaskEmptyError(`create: the task cannot be read: ${reason(error)}`);
  }
  const unknown = keys.find((key) => !taskKeys.includes(key));
  if (unknown === undefined) return;
  const near = nearest(unknown.toLowerCase(), taskKeys);
  throw new TaskKeyError(
    `create: a task has no key ${quoteShort(unknown)}; the keys of a task are ${taskKeys.join(', ')}${near === undefined ? '' : `; did you mean ${quoteShort(near)}?`}`,
  );
}

/**
 * rejectCronLookalikes: a cron key that is a reserved key without its scheme
 * (`@every`) would make an ordinary task that runs once, not a template.
 */
function rejectCronLookalikes(cron: Labels): void {
  for (const key of Object.keys(cron)) {
    if (key.includes(reservedScheme)) continue; // C17 names those
    const label = reservedLookalike(key);
    if (label !== undefined) {
      throw new TaskCronError(
        `create: Task.cron key ${quoteShort(key)} has no reserved scheme, so it would be stored as a plain label with no effect; ${didYouMean(label)}`,
      );
    }
  }
}

/** rejectTimeLookalikes: `@every`, `@exact` or `@defer` as a key of the caller's own labels. */
function rejectTimeLookalikes(name: string, labels: Labels | undefined): void {
  if (labels === undefined) return;
  for (const key of Object.keys(labels)) {
    if (!isTimeLookalike(key)) continue;
    const label = reservedLookalike(key) ?? '';
    throw new LabelReservedError(
      `create: Task.${name} key ${quoteShort(key)} looks like a cron label in the wrong map; ${didYouMean(label, 'Task.cron')}`,
    );
  }
}

/** hintFor is the did-you-mean of the first key that looks like a reserved key, or ''. */
function hintFor(keys: readonly string[]): string {
  for (const key of keys) {
    const label = reservedLookalike(key);
    if (label !== undefined) return `; ${didYouMean(label)}`;
  }
  return '';
}

function validateNode(node: Labels): void {
  if (!Object.hasOwn(node, Label.Method)) {
    throw new TaskNodeError(
      `create: Task.node must hold ${quoteShort(Label.Method)} (all, any or uni)${hintFor(Object.keys(node))}`,
    ); // C5
  }
  const method = node[Label.Method];
  const keys = Object.keys(node);
  if (method === Method.All || method === Method.Any) {
    if (keys.length !== 1) {
      throw new TaskNodeError(
        `create: Task.node with method ${quoteShort(method)} must hold only ${quoteShort(Label.Method)}; got keys ${keys.map(quoteShort).join(', ')}`,
      ); // C6
    }
    return;
  }
  if (method === Method.Uni) {
    const worker = node[Label.Worker];
    if (worker === undefined || worker === '') {
      throw new TaskNodeError(
        `create: Task.node with method "uni" must name its worker in ${quoteShort(Label.Worker)}`,
      ); // C7
    }
    const extra = keys.filter((key) => key !== Label.Method && key !== Label.Worker);
    if (extra.length > 0) {
      throw new TaskNodeError(
        `create: Task.node with method "uni" may hold only ${quoteShort(Label.Method)} and ${quoteShort(Label.Worker)}; got also ${extra.map(quoteShort).join(', ')}`,
      ); // C7
    }
    return;
  }
  throw new LabelValueError(
    `create: Task.node ${quoteShort(Label.Method)} must be one of all, any, uni; got ${quoteShort(method ?? '')}`,
  ); // C8
}

function validateGate(gate: Labels, hasCron: boolean): void {
  const values = Object.values(gate);
  for (const [key, value] of Object.entries(gate)) {
    if (value === Gate.Deleted) {
      throw new LabelReservedError(
        `create: Task.gate label ${quoteShort(key)} has the value "deleted", which only the engine writes`,
      ); // C15
    }
  }
  if (values.includes(Gate.Trigger) && values.includes(Gate.Waiting)) {
    throw new LabelValueError(
      'create: Task.gate holds both "trigger" and "waiting" values; a task is a trigger or a gate template, not both',
    ); // C16
  }
  if (hasCron && values.includes(Gate.Waiting)) {
    throw new LabelValueError(
      'create: Task.gate "waiting" values cannot be combined with Task.cron',
    ); // C16
  }
  for (const [key, value] of Object.entries(gate)) {
    if (value !== Gate.Trigger && value !== Gate.Waiting) {
      throw new LabelValueError(
        `create: Task.gate label ${quoteShort(key)} must be "trigger" or "waiting"; got ${quoteShort(value)}`,
      ); // C16
    }
  }
}

/** DeletePlan carries what the delete script needs from the copy besides the copy itself. */
export interface DeletePlan {
  objectId: string;
  /** True when the copy's core bypass is 'true'. */
  bypass: boolean;
  /** True when the copy's core has a bypass key at all (disables local broadcast completion). */
  hasBypassKey: boolean;
}

/** validateDelete checks rules DL1–DL4 (docs/semantics.md §3.3); DL5–DL7 need stored state. */
export function validateDelete(argument: unknown): { task: Task; plan: DeletePlan } {
  const task = readTask(argument, 'delete'); // DL1: S1, S2, S3
  const objectId = requireObjectId('delete', task.core); // DL2, DL3
  const core = task.core ?? {};
  const hasBypassKey = Object.hasOwn(core, Label.Bypass);
  const bypass = core[Label.Bypass];
  if (hasBypassKey && bypass !== Bypass.True && bypass !== Bypass.False) {
    throw new TaskCoreError(
      `delete: Task.core ${quoteShort(Label.Bypass)} must be "true" or "false"; got ${quoteShort(bypass ?? '')}`,
    ); // DL4
  }
  return { task, plan: { objectId, bypass: bypass === Bypass.True, hasBypassKey } };
}

/** validateExtend checks rules T1–T3 (docs/semantics.md §3.7); T4–T5 need stored state. */
export function validateExtend(argument: unknown): { task: Task; objectId: string } {
  const task = readTask(argument, 'extend'); // T1: S1, S2, S3
  return { task, objectId: requireObjectId('extend', task.core) }; // T2, T3
}

/** validateCycles checks rules Y1–Y4 (docs/semantics.md §3.8); Y5 needs stored state. */
export function validateCycles(argument: unknown): { task: Task; objectId: string } {
  const task = readTask(argument, 'cycles'); // Y1: S1, S2, S3
  const objectId = requireObjectId('cycles', task.core); // Y2, Y3
  if (!Object.hasOwn(task.core ?? {}, Label.Cancel)) {
    throw new TaskCoreError(
      `cycles: Task.core must hold ${quoteShort(Label.Cancel)}: only a task with a circuit breaker can be reset`,
    ); // Y4
  }
  return { task, objectId };
}

/** validateExists checks rules X1–X4 (docs/semantics.md §3.4). */
export function validateExists(argument: unknown): Task {
  return validateQuery(argument, 'exists');
}

/**
 * validateQuery checks a query the way exists does (X1–X4), for the other
 * read-only calls that select tasks by labels (`tasks`, the listing by state).
 */
export function validateQuery(argument: unknown, operation: string): Task {
  const query = readTask(argument, operation, 'query'); // X1: S1, S2, S3
  if (
    !(['core', 'cron', 'gate', 'meta', 'node', 'root'] as const).some((name) =>
      isNonEmpty(query[name]),
    )
  ) {
    throw new TaskMetaEmptyError(
      `${operation}: the query must hold a label in core, cron, gate, meta, node or root`,
    ); // X2
  }
  rejectReservedKeys(operation, 'meta', query.meta); // X3
  if (query.root !== undefined && !Object.hasOwn(query.root, Label.Object)) {
    rejectReservedKeys(operation, 'root', query.root); // X4
  }
  return query;
}

/** validateLister checks rules L1–L5 (docs/semantics.md §3.5). */
export function validateLister(argument: unknown): Task {
  const query = readTask(argument, 'lister', 'query'); // L1: S1, S2, S3
  if (query.core !== undefined) {
    throw new TaskCoreError('lister: the query may not select by Task.core (results carry it)'); // L2
  }
  if (
    !(['cron', 'gate', 'meta', 'node', 'root'] as const).some((name) => isNonEmpty(query[name]))
  ) {
    throw new TaskMetaEmptyError(
      'lister: the query must hold a label in cron, gate, meta, node or root',
    ); // L3
  }
  rejectReservedKeys('lister', 'meta', query.meta); // L4
  rejectReservedKeys('lister', 'root', query.root); // L5
  return query;
}

/**
 * validateFilter checks S1, S2 and S3 on a search filter (or another query
 * used as one, such as a handler's labels); undefined and null mean no filter.
 */
export function validateFilter(argument: unknown, what = 'search'): Task | undefined {
  if (argument === undefined || argument === null) return undefined;
  return readTask(argument, what, 'query');
}

function requireObjectId(what: string, core: Labels | undefined): string {
  if (core === undefined || Object.keys(core).length === 0) {
    throw new TaskCoreError(
      `${what}: Task.core must carry the task's ${quoteShort(Label.Object)}; got ${core === undefined ? 'no core' : 'an empty core'}`,
    );
  }
  const objectId = core[Label.Object];
  if (objectId === undefined || objectId === '') {
    throw new TaskCoreError(`${what}: Task.core must carry the task's ${quoteShort(Label.Object)}`);
  }
  return objectId;
}

function rejectReservedKeys(
  what: string,
  name: string,
  labels: Labels | undefined,
  allowed: readonly string[] = [],
): void {
  if (labels === undefined) return;
  for (const key of Object.keys(labels)) {
    if (key.includes(reservedScheme) && !allowed.includes(key)) {
      const label = reservedLookalike(key);
      const hint = label !== undefined && allowed.includes(label) ? `; ${didYouMean(label)}` : '';
      throw new LabelReservedError(
        `${what}: Task.${name} key ${quoteShort(key)} is in the engine's reserved "${reservedScheme}" scheme${hint}`,
      );
    }
  }
}

const maxSafeInteger = BigInt(Number.MAX_SAFE_INTEGER);

function isPositiveInteger(text: string): boolean {
  if (!/^[0-9]+$/.test(text)) return false;
  const value = BigInt(text);
  return value >= 1n && value <= maxSafeInteger;
}

function isNonEmpty(labels: Labels | undefined): boolean {
  return labels !== undefined && Object.keys(labels).length > 0;
}

/** The range of `core[Label.Priority]` (docs/semantics.md §3.13): a 32-bit signed integer. */
const priorityRange = { min: -2147483648, max: 2147483647 } as const;

/** isPriority: a priority as create takes it: a canonical decimal integer within priorityRange. */
function isPriority(text: string): boolean {
  if (!/^(0|-?[1-9][0-9]{0,9})$/.test(text)) return false;
  const value = Number(text);
  return value >= priorityRange.min && value <= priorityRange.max;
}
