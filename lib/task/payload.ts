import { RescueError, TaskPayloadError } from '../errors.js';
import { describe, quoteShort, reason } from './describe.js';
import { checkPayloadBytes, limits } from './limits.js';
import { isPlainObject } from './plain-object.js';

// A payload is one JSON value stored with a task (docs/semantics.md §1.11).
// It is read once into a fresh copy, as the maps are (lib/task/snapshot.ts):
// what was checked is what is stored, and a getter or a proxy cannot answer
// differently later. A value JSON.stringify would change or drop (a Date, a
// Map, undefined in an array, NaN) is refused rather than stored altered.

/** ReadPayload is a payload's copy and its JSON text, the form it is stored in. */
export interface ReadPayload {
  value: unknown;
  json: string;
}

/**
 * readPayload reads the `payload` property of a task given to create: none
 * when it is absent or undefined; else a copy of one JSON value within the
 * limits (TaskPayloadError, TaskLimitError).
 */
export function readPayload(argument: object, what: string): ReadPayload | undefined {
  let value: unknown;
  try {
    if (!Object.hasOwn(argument, 'payload')) return undefined;
    value = (argument as { payload?: unknown }).payload;
  } catch (error) {
    throw new TaskPayloadError(`${what}: Task.payload cannot be read: ${reason(error)}`);
  }
  if (value === undefined) return undefined;
  const copy = copyJson(value, what, 'Task.payload', 0);
  const json = JSON.stringify(copy);
  checkPayloadBytes(what, json);
  return { value: copy, json };
}

function copyJson(value: unknown, what: string, path: string, depth: number): unknown {
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return value;
    throw new TaskPayloadError(`${what}: ${path} is ${String(value)}, which JSON cannot hold`);
  }
  if (typeof value === 'string') {
    if (value.isWellFormed()) return value;
    throw new TaskPayloadError(`${what}: ${path} holds a lone UTF-16 surrogate`);
  }
  if (depth >= limits.payloadDepth) {
    throw new TaskPayloadError(
      `${what}: ${path} is nested more than ${limits.payloadDepth} arrays or objects deep (or holds a cycle); the limit is ${limits.payloadDepth} levels`,
    );
  }
  try {
    if (Array.isArray(value)) {
      const copy: unknown[] = [];
      for (let index = 0; index < value.length; index++) {
        copy.push(copyJson(value[index], what, `${path}[${index}]`, depth + 1));
      }
      return copy;
    }
    if (isPlainObject(value)) {
      const copy: Record<string, unknown> = {};
      for (const key of Object.keys(value)) {
        if (!key.isWellFormed()) {
          throw new TaskPayloadError(`${what}: ${path} has a key with a lone UTF-16 surrogate`);
        }
        // defined, not assigned: a key `__proto__` stays an ordinary key
        Object.defineProperty(copy, key, {
          value: copyJson(value[key], what, `${path}${member(key)}`, depth + 1),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return copy;
    }
  } catch (error) {
    if (error instanceof RescueError) throw error;
    throw new TaskPayloadError(`${what}: ${path} cannot be read: ${reason(error)}`);
  }
  throw new TaskPayloadError(
    `${what}: ${path} must be a JSON value (null, a boolean, a finite number, a string, an array or a plain object); got ${describe(value)}`,
  );
}

/** member writes one step of a path into a payload: `.name`, or `["odd key"]`. */
function member(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${quoteShort(key)}]`;
}

/** parsePayload reads a stored payload's JSON text back; undefined when it is not JSON. */
export function parsePayload(json: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(json) as unknown };
  } catch {
    return undefined;
  }
}

/** copyPayload returns a fresh copy of a payload read back from storage (plain JSON). */
export function copyPayload(value: unknown): unknown {
  return value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as unknown);
}
