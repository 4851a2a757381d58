import { LabelValueError, RescueError, TaskCronError, TaskEmptyError } from '../errors.js';
import { setLabel } from './codec.js';
import { describe, quoteShort, reason } from './describe.js';
import { Label } from './label.js';
import { checkLimits, type ArgumentKind } from './limits.js';
import { mapNames, type Labels, type MapName, type Task } from './task.js';
import { isPlainObject } from './plain-object.js';
import { formatTime } from './time.js';

// The shape rules of docs/semantics.md §3.0 run on a snapshot: each map property of
// the argument is read once, and each map's own enumerable string-keyed
// labels are copied once into a fresh plain object. The rules check the copy
// and the operation sends the copy, so a getter that answers differently on a
// second read, or a proxy, cannot make the engine validate one value and store
// another.

/** Snapshot is a validated copy of an argument, and the caller's map objects it was read from. */
export interface Snapshot {
  task: Task;
  /** The caller's objects behind the present maps (create writes its additions into them). */
  sources: Partial<Record<MapName, object>>;
}

/**
 * readTask checks the shape rules on a snapshot of the argument and returns
 * it: S1 (a plain object), S2 (maps of well-formed strings), then S3 (the size
 * limits of lib/task/limits.ts for a task or a query). `null` and `undefined`
 * maps are absent; other properties are ignored here (create rejects them,
 * lib/task/validate.ts). A Date is taken for cron `@exact` and stored as
 * formatTime of it. Anything that throws while it
 * is read (a revoked proxy, a throwing getter) breaks S1 for the argument and
 * S2 for a map or a label.
 */
export function readTask(argument: unknown, what: string, kind: ArgumentKind = 'task'): Task {
  return readSnapshot(argument, what, kind).task;
}

/** readSnapshot is readTask that also returns the caller's map objects. */
export function readSnapshot(argument: unknown, what: string, kind: ArgumentKind): Snapshot {
  const source = readArgument(argument, what); // S1
  const task: Task = {};
  const sources: Snapshot['sources'] = {};
  for (const name of mapNames) {
    const map = readMap(source, name, what); // S2
    if (map === undefined) continue;
    task[name] = map.labels;
    sources[name] = map.source;
  }
  checkLimits(what, task, kind); // S3
  return { task, sources };
}

function readArgument(argument: unknown, what: string): Record<string, unknown> {
  let plain: boolean;
  try {
    plain = isPlainObject(argument);
  } catch (error) {
    throw new TaskEmptyError(`${what}: the task cannot be read: ${reason(error)}`);
  }
  if (!plain) {
    throw new TaskEmptyError(
      `${what}: expected a task (a plain object of label maps); got ${describe(argument)}`,
    );
  }
  return argument as Record<string, unknown>;
}

function readMap(
  source: Record<string, unknown>,
  name: MapName,
  what: string,
): { labels: Labels; source: object } | undefined {
  try {
    const map = source[name];
    if (map === undefined || map === null) return undefined;
    if (!isPlainObject(map)) {
      throw new LabelValueError(
        `${what}: Task.${name} must be a plain object of string labels; got ${describe(map)}`,
      );
    }
    return { labels: copyLabelsOnce(map, name, what), source: map };
  } catch (error) {
    if (error instanceof RescueError) throw error;
    throw new LabelValueError(`${what}: Task.${name} cannot be read: ${reason(error)}`);
  }
}

function copyLabelsOnce(map: Record<string, unknown>, name: MapName, what: string): Labels {
  const copy: Labels = {};
  for (const key of Object.keys(map)) {
    let value = map[key];
    if (name === 'cron' && key === Label.Exact) value = readTimeValue(value, what);
    if (typeof value !== 'string') {
      throw new LabelValueError(
        `${what}: Task.${name} label ${quoteShort(key)} must have a string value; got ${describe(value)}`,
      );
    }
    // Stored as UTF-8 JSON: a lone UTF-16 surrogate cannot round-trip.
    if (!key.isWellFormed() || !value.isWellFormed()) {
      throw new LabelValueError(
        `${what}: Task.${name} label ${quoteShort(key)} holds a lone UTF-16 surrogate`,
      );
    }
    setLabel(copy, key, value);
  }
  return copy;
}

/**
 * readTimeValue takes a Date (of any realm) for a time label and turns it
 * into the stored form, formatTime; any other value is returned as it is.
 */
function readTimeValue(value: unknown, what: string): unknown {
  const ms = dateValueOf(value);
  if (ms === undefined) return value;
  if (!Number.isFinite(ms)) {
    throw new TaskCronError(
      `${what}: Task.cron ${quoteShort(Label.Exact)} is an invalid Date (its time is NaN)`,
    );
  }
  return formatTime(new Date(ms));
}

/** dateValueOf is the time of a Date, read without calling its own methods; undefined for anything else. */
function dateValueOf(value: unknown): number | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  try {
    return Date.prototype.getTime.call(value);
  } catch {
    return undefined; // not a Date
  }
}

/**
 * readObjectId reads the object id a task carries in its core, once, or
 * undefined when it carries none that can be read (the worker runtime's
 * release of a task a handler may have changed).
 */
export function readObjectId(task: unknown): string | undefined {
  return readCoreLabel(task, Label.Object);
}

/** readCoreLabel reads one label of a task's core once, never throwing: a non-empty string or undefined. */
export function readCoreLabel(task: unknown, label: string): string | undefined {
  try {
    const value: unknown = (task as Task | undefined)?.core?.[label];
    return typeof value === 'string' && value !== '' ? value : undefined;
  } catch {
    return undefined;
  }
}
