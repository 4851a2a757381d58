import { Label, Method } from './label.js';
import { isObjectId } from './object-id.js';
import { copyPayload, parsePayload } from './payload.js';
import { mapNames, type Labels, type Task } from './task.js';

/**
 * MalformedTaskError says a stored record is not a task: not JSON, not an
 * object, or a map that is not an object of strings. It never reaches users:
 * operations skip such records (docs/semantics.md §1.10).
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
  for (const key of Object.keys(labels)) setLabel(copy, key, labels[key] as string);
  return copy;
}

/** setLabel sets one label of a map of ours; `__proto__` becomes an own label, not the prototype. */
export function setLabel(labels: Labels, key: string, value: string): void {
  if (key === '__proto__') {
    Object.defineProperty(labels, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else {
    labels[key] = value;
  }
}

/** copyTask returns a fresh task carrying copies of exactly the present maps. */
export function copyTask(task: Task): Task {
  const copy: Task = {};
  for (const name of mapNames) {
    const labels = task[name] as Labels | null | undefined;
    if (labels !== undefined && labels !== null) copy[name] = copyLabels(labels);
  }
  if (task.payload !== undefined) copy.payload = copyPayload(task.payload);
  return copy;
}

/**
 * encodeTask writes a task as the stored JSON: the present maps in the order
 * core, cron, gate, meta, node, root, sync; absent maps are left out, empty
 * maps stay `{}`. A payload follows as the string of its JSON (see
 * encodePayload).
 */
export function encodeTask(task: Task): string {
  const stored: Record<string, unknown> = {};
  for (const name of mapNames) {
    const labels = task[name] as Labels | null | undefined;
    if (labels !== undefined && labels !== null) stored[name] = labels;
  }
  encodePayload(stored, task);
  return JSON.stringify(stored);
}

/**
 * encodePayload adds a task's payload to its stored form as the string of its
 * JSON: the scripts (Lua's cjson) keep a string as it is, where they would
 * round numbers to 14 digits and could not tell `[]` from `{}`.
 */
function encodePayload(stored: Record<string, unknown>, task: Task): void {
  if (task.payload !== undefined) stored['payload'] = JSON.stringify(task.payload);
}

/** decodePayload reads the payload of a stored form back into the task. */
function decodePayload(value: Record<string, unknown>, task: Task): void {
  const json = value['payload'];
  if (json === undefined || json === null) return;
  const payload = typeof json === 'string' ? parsePayload(json) : undefined;
  if (payload === undefined) throw new MalformedTaskError('its payload is not the text of JSON');
  task.payload = payload.value;
}

/**
 * decodeTask reads a task written by encodeTask back, keeping absent maps
 * absent and empty maps empty. Unknown properties are ignored; anything that
 * is not an object of label maps throws MalformedTaskError.
 */
export function decodeTask(json: string): Task {
  return readMaps(parse(json), false);
}

/**
 * encodeStored writes a task in the form the queue's tasks hash keeps, which
 * leaves out what the record's place already says: the object id (the hash
 * field) and the default node `{ method: any }`. A task without a node is
 * written with `"node": false`.
 *
 *     {"meta":{"n":"1"}}          core { object: <field> }, meta, node { method: any }
 *     {"meta":{"n":"1"},"node":false}                       the same without a node
 */
export function encodeStored(task: Task): string {
  const stored: Record<string, unknown> = {};
  for (const name of mapNames) {
    const labels = task[name] as Labels | null | undefined;
    if (name === 'core') {
      const rest = Object.entries(labels ?? {}).filter(([key]) => key !== Label.Object);
      if (rest.length > 0) stored['core'] = copyLabels(Object.fromEntries(rest));
    } else if (name === 'node') {
      if (labels === undefined || labels === null) stored['node'] = false;
      else if (!isDefaultNode(labels)) stored['node'] = labels;
    } else if (labels !== undefined && labels !== null) {
      stored[name] = labels;
    }
  }
  encodePayload(stored, task);
  return JSON.stringify(stored);
}

/**
 * decodeStored reads a record of the tasks hash back into the task it
 * stands for (see encodeStored). A record whose field is not an object id, or
 * whose core names another object id, is not a task.
 */
export function decodeStored(id: string, json: string): Task {
  if (!isObjectId(id))
    throw new MalformedTaskError(`its field ${JSON.stringify(id)} is not an object id`);
  const value = parse(json);
  const task = readMaps(value, true);
  const core = task.core ?? {};
  const named = core[Label.Object];
  if (named !== undefined && named !== id)
    throw new MalformedTaskError(`its core names object ${named}`);
  // the maps are fresh objects of JSON.parse, ours to complete
  if (named === undefined) core[Label.Object] = id;
  const decoded: Task = {};
  for (const name of mapNames) {
    if (name === 'core') decoded.core = core;
    else if (name === 'node') {
      if (value['node'] === false) continue;
      decoded.node = task.node ?? { [Label.Method]: Method.Any };
    } else if (task[name] !== undefined) decoded[name] = task[name];
  }
  if (task.payload !== undefined) decoded.payload = task.payload;
  return decoded;
}

/** tryDecodeStored is decodeStored that answers undefined for a record that is not a task. */
export function tryDecodeStored(id: string, json: string | null | undefined): Task | undefined {
  if (typeof json !== 'string') return undefined;
  try {
    return decodeStored(id, json);
  } catch (error) {
    if (error instanceof MalformedTaskError) return undefined;
    throw error;
  }
}

function isDefaultNode(labels: Labels): boolean {
  const keys = Object.keys(labels);
  return keys.length === 1 && labels[Label.Method] === Method.Any;
}

function parse(json: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new MalformedTaskError('not JSON');
  }
  if (!isRecord(value)) throw new MalformedTaskError('not a JSON object');
  return value;
}

function readMaps(value: Record<string, unknown>, stored: boolean): Task {
  const task: Task = {};
  for (const name of mapNames) {
    if (!Object.hasOwn(value, name)) continue;
    const labels = value[name];
    if (labels === null || labels === undefined) continue;
    if (stored && name === 'node' && labels === false) continue;
    if (!isRecord(labels)) throw new MalformedTaskError(`map "${name}" is not an object`);
    for (const key of Object.keys(labels)) {
      if (typeof labels[key] !== 'string') {
        throw new MalformedTaskError(`label "${key}" of map "${name}" is not a string`);
      }
    }
    // JSON.parse builds fresh objects with own properties only; they are ours to keep.
    task[name] = labels as Labels;
  }
  decodePayload(value, task);
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
