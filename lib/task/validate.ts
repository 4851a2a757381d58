import {
  LabelReservedError,
  LabelValueError,
  TaskCoreError,
  TaskCronError,
  TaskEmptyError,
  TaskGateError,
  TaskMetaEmptyError,
  TaskNodeError,
} from '../errors.js';
import { schedule } from '../schedule/index.js';
import { copyLabels } from './codec.js';
import { Bypass, Gate, Label, Method, reservedScheme } from './label.js';
import { mapNames, type Labels, type Task } from './task.js';
import { parseTime } from './time.js';

// Validation is pure: each function checks one operation's rules in the order
// of semantics §3 and throws the first failing rule's error. Rules that need
// stored state (not found, outdated) run later, inside the operation's script.

/**
 * readTask applies the shape rules S1 and S2 (semantics §3.0) and returns a
 * fresh task carrying copies of exactly the present maps (`null` and
 * `undefined` maps are absent; other properties are ignored).
 */
export function readTask(argument: unknown, what: string): Task {
  if (!isPlainObject(argument)) {
    throw new TaskEmptyError(
      `${what}: expected a task (a plain object of label maps); got ${describe(argument)}`,
    );
  }
  const task: Task = {};
  for (const name of mapNames) {
    const labels = argument[name];
    if (labels === undefined || labels === null) continue;
    if (!isPlainObject(labels)) {
      throw new LabelValueError(
        `${what}: Task.${name} must be a plain object of string labels; got ${describe(labels)}`,
      );
    }
    for (const key of Object.keys(labels)) {
      const value = labels[key];
      if (typeof value !== 'string') {
        throw new LabelValueError(
          `${what}: Task.${name} label ${quote(key)} must have a string value; got ${describe(value)}`,
        );
      }
      // Stored as UTF-8 JSON: a lone UTF-16 surrogate cannot round-trip.
      if (!key.isWellFormed() || !value.isWellFormed()) {
        throw new LabelValueError(
          `${what}: Task.${name} label ${quote(key)} holds a lone UTF-16 surrogate`,
        );
      }
    }
    task[name] = copyLabels(labels as Labels);
  }
  return task;
}

/** CreatePlan is what create derives from a valid task besides the task itself. */
export interface CreatePlan {
  /** The first ticks of a cron template. */
  ticks?: { tickM1: Date; tickP1: Date };
  /** The instant an `@exact` task becomes due. */
  exactAt?: Date;
}

/** validateCreate checks rules C1–C17 (semantics §3.1). */
export function validateCreate(argument: unknown, now: Date): { task: Task; plan: CreatePlan } {
  const task = readTask(argument, 'create'); // C1
  const { core, cron, gate, meta, node, root, sync } = task;
  const plan: CreatePlan = {};

  if (core !== undefined) {
    const keys = Object.keys(core);
    if (keys.length !== 1 || keys[0] !== Label.Cancel) {
      throw new TaskCoreError(
        `create: Task.core may hold only ${quote(Label.Cancel)}; got ${keys.length === 0 ? 'an empty map' : `keys ${keys.map(quote).join(', ')}`}`,
      ); // C2
    }
    const cancel = core[Label.Cancel] ?? '';
    if (!isPositiveInteger(cancel)) {
      throw new TaskCoreError(
        `create: Task.core ${quote(Label.Cancel)} must be a positive integer (digits only, at least 1); got ${quote(cancel)}`,
      ); // C3
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
    if (keys.length !== 1) {
      throw new TaskCronError(
        `create: Task.cron must hold exactly one label (${quote(Label.Every)} or ${quote(Label.Exact)}); got ${keys.length === 0 ? 'an empty map' : `keys ${keys.map(quote).join(', ')}`}`,
      ); // C11
    }
    if (Object.hasOwn(cron, Label.Defer)) {
      throw new TaskCronError(
        `create: ${quote(Label.Defer)} is set by a worker on the copy it deletes, not at create`,
      ); // C12
    }
    const every = cron[Label.Every];
    if (every !== undefined) {
      try {
        plan.ticks = schedule(every, now); // C13
      } catch (error) {
        if (error instanceof TaskCronError) {
          throw new TaskCronError(`create: Task.cron ${quote(Label.Every)}: ${error.message}`);
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
          `create: Task.cron ${quote(Label.Exact)} must be an RFC 3339 date-time such as "2023-10-20T08:00:00Z"; got ${quote(exact)}`,
        ); // C14
      }
      if (at.getTime() <= now.getTime()) {
        throw new TaskCronError(
          `create: Task.cron ${quote(Label.Exact)} must lie after now (${now.toISOString()}); got ${quote(exact)}`,
        ); // C14
      }
      plan.exactAt = at;
    }
  }

  if (gate !== undefined) validateGate(gate, cron !== undefined); // C15, C16

  // C17: reserved keys outside their uses.
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

  return { task, plan };
}

function validateNode(node: Labels): void {
  if (!Object.hasOwn(node, Label.Method)) {
    throw new TaskNodeError(`create: Task.node must hold ${quote(Label.Method)} (all, any or uni)`); // C5
  }
  const method = node[Label.Method];
  const keys = Object.keys(node);
  if (method === Method.All || method === Method.Any) {
    if (keys.length !== 1) {
      throw new TaskNodeError(
        `create: Task.node with method ${quote(method)} must hold only ${quote(Label.Method)}; got keys ${keys.map(quote).join(', ')}`,
      ); // C6
    }
    return;
  }
  if (method === Method.Uni) {
    const worker = node[Label.Worker];
    if (worker === undefined || worker === '') {
      throw new TaskNodeError(
        `create: Task.node with method "uni" must name its worker in ${quote(Label.Worker)}`,
      ); // C7
    }
    const extra = keys.filter((key) => key !== Label.Method && key !== Label.Worker);
    if (extra.length > 0) {
      throw new TaskNodeError(
        `create: Task.node with method "uni" may hold only ${quote(Label.Method)} and ${quote(Label.Worker)}; got also ${extra.map(quote).join(', ')}`,
      ); // C7
    }
    return;
  }
  throw new LabelValueError(
    `create: Task.node ${quote(Label.Method)} must be one of all, any, uni; got ${quote(method ?? '')}`,
  ); // C8
}

function validateGate(gate: Labels, hasCron: boolean): void {
  const values = Object.values(gate);
  for (const [key, value] of Object.entries(gate)) {
    if (value === Gate.Deleted) {
      throw new LabelReservedError(
        `create: Task.gate label ${quote(key)} has the value "deleted", which only the engine writes`,
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
        `create: Task.gate label ${quote(key)} must be "trigger" or "waiting"; got ${quote(value)}`,
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

/** validateDelete checks rules DL1–DL4 (semantics §3.3); DL5–DL7 need stored state. */
export function validateDelete(argument: unknown): { task: Task; plan: DeletePlan } {
  const task = readTask(argument, 'delete'); // DL1
  const objectId = requireObjectId('delete', task.core); // DL2, DL3
  const core = task.core ?? {};
  const hasBypassKey = Object.hasOwn(core, Label.Bypass);
  const bypass = core[Label.Bypass];
  if (hasBypassKey && bypass !== Bypass.True && bypass !== Bypass.False) {
    throw new TaskCoreError(
      `delete: Task.core ${quote(Label.Bypass)} must be "true" or "false"; got ${quote(bypass ?? '')}`,
    ); // DL4
  }
  return { task, plan: { objectId, bypass: bypass === Bypass.True, hasBypassKey } };
}

/** validateExtend checks rules T1–T3 (semantics §3.7); T4–T5 need stored state. */
export function validateExtend(argument: unknown): { task: Task; objectId: string } {
  const task = readTask(argument, 'extend'); // T1
  return { task, objectId: requireObjectId('extend', task.core) }; // T2, T3
}

/** validateCycles checks rules Y1–Y4 (semantics §3.8); Y5 needs stored state. */
export function validateCycles(argument: unknown): { task: Task; objectId: string } {
  const task = readTask(argument, 'cycles'); // Y1
  const objectId = requireObjectId('cycles', task.core); // Y2, Y3
  if (!Object.hasOwn(task.core ?? {}, Label.Cancel)) {
    throw new TaskCoreError(
      `cycles: Task.core must hold ${quote(Label.Cancel)}: only a task with a circuit breaker can be reset`,
    ); // Y4
  }
  return { task, objectId };
}

/** validateExists checks rules X1–X4 (semantics §3.4). */
export function validateExists(argument: unknown): Task {
  const query = readTask(argument, 'exists'); // X1
  if (
    !(['core', 'cron', 'gate', 'meta', 'node', 'root'] as const).some((name) =>
      isNonEmpty(query[name]),
    )
  ) {
    throw new TaskMetaEmptyError(
      'exists: the query must hold a label in core, cron, gate, meta, node or root',
    ); // X2
  }
  rejectReservedKeys('exists', 'meta', query.meta); // X3
  if (query.root !== undefined && !Object.hasOwn(query.root, Label.Object)) {
    rejectReservedKeys('exists', 'root', query.root); // X4
  }
  return query;
}

/** validateLister checks rules L1–L5 (semantics §3.5). */
export function validateLister(argument: unknown): Task {
  const query = readTask(argument, 'lister'); // L1
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

/** validateFilter checks S1 and S2 on a search filter; undefined and null mean no filter. */
export function validateFilter(argument: unknown): Task | undefined {
  if (argument === undefined || argument === null) return undefined;
  return readTask(argument, 'search');
}

function requireObjectId(what: string, core: Labels | undefined): string {
  if (core === undefined || Object.keys(core).length === 0) {
    throw new TaskCoreError(
      `${what}: Task.core must carry the task's ${quote(Label.Object)}; got ${core === undefined ? 'no core' : 'an empty core'}`,
    );
  }
  const objectId = core[Label.Object];
  if (objectId === undefined || objectId === '') {
    throw new TaskCoreError(`${what}: Task.core must carry the task's ${quote(Label.Object)}`);
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
      throw new LabelReservedError(
        `${what}: Task.${name} key ${quote(key)} is in the engine's reserved "${reservedScheme}" scheme`,
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

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype === Object.prototype || prototype === null) return true;
  // an object literal of another realm (a vm context, structuredClone under Jest)
  return (
    Object.getPrototypeOf(prototype) === null &&
    Object.prototype.toString.call(value) === '[object Object]'
  );
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') {
    const name = (value as { constructor?: { name?: string } }).constructor?.name;
    return `an instance of ${name ?? 'a class'}`;
  }
  if (typeof value === 'string') return `the string ${quote(value)}`;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return `${typeof value} ${String(value)}`;
  }
  return `a ${typeof value}`;
}

function quote(text: string): string {
  return JSON.stringify(text);
}
