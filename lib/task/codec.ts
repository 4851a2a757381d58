import { mapNames, type Labels, type Task } from './task.js';

/**
 * MalformedTaskError says a stored record is not a task: not JSON, not an
 * object, or a map that is not an object of strings. It never reaches users:
 * operations skip such records (semantics §1.10).
 */
export class MalformedTaskError extends Error {
  constructor(reason: string) {
    super(`stored record is not a task: ${reason}`);
    this.name = 'MalformedTaskError';
  }
}

/**
 * copyLabels returns a fresh plain copy of a label map. Keys are defined, not
 * assigned, so a label named `__proto__` stays an ordinary label.
 */
export function copyLabels(labels: Labels): Labels {
  const copy: Labels = {};
  for (const key of Object.keys(labels)) {
    Object.defineProperty(copy, key, {
      value: labels[key],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

/** copyTask returns a fresh task carrying copies of exactly the present maps. */
export function copyTask(task: Task): Task {
  const copy: Task = {};
  for (const name of mapNames) {
    const labels = task[name] as Labels | null | undefined;
    if (labels !== undefined && labels !== null) copy[name] = copyLabels(labels);
  }
  return copy;
}

/**
 * encodeTask writes a task as the stored JSON: the present maps in the order
 * core, cron, gate, meta, node, root, sync; absent maps are left out, empty
 * maps stay `{}`.
 */
export function encodeTask(task: Task): string {
  const stored: Task = {};
  for (const name of mapNames) {
    const labels = task[name] as Labels | null | undefined;
    if (labels !== undefined && labels !== null) stored[name] = labels;
  }
  return JSON.stringify(stored);
}

/**
 * decodeTask reads a stored record back into a task, keeping absent maps
 * absent and empty maps empty. Unknown properties are ignored; anything that
 * is not an object of label maps throws MalformedTaskError.
 */
export function decodeTask(json: string): Task {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new MalformedTaskError('not JSON');
  }
  if (!isRecord(value)) throw new MalformedTaskError('not a JSON object');
  const task: Task = {};
  for (const name of mapNames) {
    if (!Object.hasOwn(value, name)) continue;
    const labels = value[name];
    if (labels === null || labels === undefined) continue;
    if (!isRecord(labels)) throw new MalformedTaskError(`map "${name}" is not an object`);
    for (const key of Object.keys(labels)) {
      if (typeof labels[key] !== 'string') {
        throw new MalformedTaskError(`label "${key}" of map "${name}" is not a string`);
      }
    }
    // JSON.parse builds fresh objects with own properties only; they are ours to keep.
    task[name] = labels as Labels;
  }
  return task;
}

/** tryDecodeTask is decodeTask that answers undefined for a malformed record. */
export function tryDecodeTask(json: string | null | undefined): Task | undefined {
  if (typeof json !== 'string') return undefined;
  try {
    return decodeTask(json);
  } catch (error) {
    if (error instanceof MalformedTaskError) return undefined;
    throw error;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
