import { TaskLimitError } from '../errors.js';
import { isExactKey } from './pattern.js';
import { quoteShort } from './describe.js';
import { mapNames, type MapName, type Task } from './task.js';

/**
 * The size limits of what a call may send to Redis (rule S3 of the shape
 * rules). They bound the work of every script: a label lookup or a pattern
 * scan per query pair, a root matched against other tasks, a record decoded.
 * Constants, not options: a task one engine wrote must be readable by every
 * other engine of the queue.
 */
export const limits = {
  /** Labels in one map of a task (create, and the copies passed to delete, extend, cycles). */
  labelsPerMap: 256,
  /** Pairs in the root of a task: each is matched against the meta of other tasks. */
  pairsPerRoot: 32,
  /** Pairs in one map of a query: exists, lister, a search filter, a handler's labels. */
  pairsPerQueryMap: 64,
  /**
   * Pairs with a pattern key (`*`, `*x*`, `*x`, `x*`) in one query, all its
   * maps together, or in one root: each walks every label of the map it is
   * matched against, where an exact key is a lookup.
   */
  patternPairs: 8,
  /** UTF-8 bytes of one label key. */
  keyBytes: 1_024,
  /** UTF-8 bytes of one label value. */
  valueBytes: 65_536,
  /** UTF-8 bytes of the JSON of a whole task or query (its seven maps). */
  taskBytes: 1_048_576,
  /**
   * UTF-8 bytes of the JSON of a task's payload (besides taskBytes): it is
   * read and written whole with the task by every script that rewrites it.
   */
  payloadBytes: 65_536,
  /** Nesting of arrays and objects in a payload; deeper values (or cycles) are refused. */
  payloadDepth: 64,
} as const;

/** What an argument is: a task (stored, or a copy of one) or a query (matched against tasks). */
export type ArgumentKind = 'task' | 'query';

/**
 * checkLimits throws a TaskLimitError for the first limit a snapshot breaks:
 * per map in the order core … sync, its label count, then each key and value;
 * then the pattern pairs of a query (or of a task's root); then the size of
 * the whole. The snapshot holds well-formed strings only (S2).
 */
export function checkLimits(what: string, task: Task, kind: ArgumentKind): void {
  // An upper bound of the JSON's bytes: a UTF-16 unit takes at most 6 bytes
  // (`\u001f`), quotes, colon and comma 6 per label. Exact only when needed.
  let bound = 2;
  let patterns = 0;
  for (const name of mapNames) {
    const labels = task[name];
    if (labels === undefined) continue;
    const keys = Object.keys(labels);
    checkCount(what, name, keys.length, kind);
    bound += name.length + 6;
    const walks = kind === 'query' || name === 'root';
    for (const key of keys) {
      const value = labels[key] ?? '';
      checkBytes(what, name, key, 'key', limits.keyBytes);
      checkBytes(what, name, key, 'value', limits.valueBytes, value);
      bound += 6 * (key.length + value.length) + 6;
      if (walks && !isExactKey(key)) patterns++;
    }
  }
  if (patterns > limits.patternPairs) {
    const where = kind === 'query' ? 'the query' : 'Task.root';
    throw new TaskLimitError(
      `${what}: ${where} has ${count(patterns)} pairs with a pattern key ("*", "*x*", "*x", "x*"); the limit is ${count(limits.patternPairs)} pattern pairs per ${kind === 'query' ? 'query' : 'root'}`,
    );
  }
  if (bound <= limits.taskBytes) return;
  const bytes = jsonBytes(task, limits.taskBytes);
  if (bytes > limits.taskBytes) {
    throw new TaskLimitError(
      `${what}: the ${kind} is more than ${count(limits.taskBytes)} bytes of JSON (${count(bytes)} counted so far); the limit is ${count(limits.taskBytes)} bytes per ${kind}`,
    );
  }
}

/**
 * jsonBytes counts the UTF-8 bytes of `JSON.stringify(task)`, label by label,
 * and stops once the count passes `stop`: a task of many megabytes costs no
 * more than the limit to reject.
 */
export function jsonBytes(task: Task, stop: number): number {
  const text = (value: string) => Buffer.byteLength(JSON.stringify(value));
  let total = 1; // {
  let maps = 0;
  for (const name of mapNames) {
    const labels = task[name];
    if (labels === undefined) continue;
    total += (maps++ > 0 ? 1 : 0) + text(name) + 2; // ,"name":{
    let pairs = 0;
    for (const key of Object.keys(labels)) {
      total += (pairs++ > 0 ? 1 : 0) + text(key) + 1 + text(labels[key] ?? ''); // ,"key":"value"
      if (total > stop) return total;
    }
    total += 1; // }
  }
  return total + 1; // }
}

function checkCount(what: string, name: MapName, size: number, kind: ArgumentKind): void {
  const { limit, noun, unit } = countLimit(name, kind);
  if (size > limit) {
    throw new TaskLimitError(
      `${what}: Task.${name} holds ${count(size)} ${noun}; the limit is ${count(limit)} ${unit}`,
    );
  }
}

function countLimit(
  name: MapName,
  kind: ArgumentKind,
): { limit: number; noun: string; unit: string } {
  if (kind === 'query') {
    return { limit: limits.pairsPerQueryMap, noun: 'pairs', unit: 'pairs per query map' };
  }
  if (name === 'root') return { limit: limits.pairsPerRoot, noun: 'pairs', unit: 'pairs per root' };
  return { limit: limits.labelsPerMap, noun: 'labels', unit: 'labels per map' };
}

function checkBytes(
  what: string,
  name: MapName,
  key: string,
  part: 'key' | 'value',
  limit: number,
  text = key,
): void {
  // UTF-8 takes at most 3 bytes per UTF-16 unit: most strings need no count
  if (text.length * 3 <= limit) return;
  const bytes = Buffer.byteLength(text);
  if (bytes <= limit) return;
  const subject =
    part === 'key' ? `key ${quoteShort(key)} is` : `label ${quoteShort(key)} has a value of`;
  throw new TaskLimitError(
    `${what}: Task.${name} ${subject} ${count(bytes)} bytes; the limit is ${count(limit)} bytes per ${part}`,
  );
}

/** checkPayloadBytes throws a TaskLimitError when a payload's JSON is over payloadBytes. */
export function checkPayloadBytes(what: string, json: string): void {
  if (json.length * 3 <= limits.payloadBytes) return;
  const bytes = Buffer.byteLength(json);
  if (bytes <= limits.payloadBytes) return;
  throw new TaskLimitError(
    `${what}: Task.payload is ${count(bytes)} bytes of JSON; the limit is ${count(limits.payloadBytes)} bytes per payload`,
  );
}

const numbers = new Intl.NumberFormat('en-US');

function count(value: number): string {
  return numbers.format(value);
}
