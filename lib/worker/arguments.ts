import { longestTimerMs } from '../clock.js';
import { engineContext } from '../engine/runtime.js';
import { describe, reason } from '../task/describe.js';
import type { Task } from '../task/task.js';
import { validateFilter } from '../task/validate.js';
import { isTimeout, type EnsureContext, type Handler } from './handler.js';
import { readRetryPolicy, type ResolvedRetryPolicy } from '../engine/retry-policy.js';

// The Worker constructor's checks of its engine and handlers: a worker that
// was built runs, instead of failing in its loop (TypeError for what is not an
// engine or a handler, a RescueError for handler labels that are no query).

/** requireEngine throws a TypeError unless `engine` is an Engine of this package. */
export function requireEngine(engine: unknown): void {
  try {
    engineContext(engine as object);
  } catch {
    throw new TypeError(
      `Worker: the engine must be an Engine of rescue-engine; got ${describe(engine)}`,
    );
  }
}

/**
 * readHandlers checks the handlers and returns the worker's own list: each
 * entry calls the caller's `filter` and `ensure` (read once, called on the
 * caller's object) and carries a snapshot of its `labels`, checked like a
 * search filter (`null` or `undefined`: no labels).
 */
export function readHandlers(handlers: unknown): Handler[] {
  let list: unknown[] | undefined;
  try {
    list = Array.isArray(handlers) ? Array.from(handlers as unknown[]) : undefined;
  } catch (error) {
    throw new TypeError(`Worker: handlers cannot be read: ${reason(error)}`);
  }
  if (list === undefined) {
    throw new TypeError(`Worker: handlers must be an array of handlers; got ${describe(handlers)}`);
  }
  return list.map(readHandler);
}

function readHandler(entry: unknown, index: number): Handler {
  if (typeof entry !== 'object' || entry === null) {
    throw new TypeError(
      `Worker: handler ${index} must be an object with filter and ensure; got ${describe(entry)}`,
    );
  }
  let filter: unknown, ensure: unknown, labels: unknown, timeout: unknown, retry: unknown;
  try {
    ({ filter, ensure, labels, timeout, retry } = entry as Record<string, unknown>);
  } catch (error) {
    throw new TypeError(`Worker: handler ${index} cannot be read: ${reason(error)}`);
  }
  if (typeof filter !== 'function' || typeof ensure !== 'function') {
    const [name, value] = typeof filter !== 'function' ? ['filter', filter] : ['ensure', ensure];
    throw new TypeError(
      `Worker: handler ${index} must have a function "${name}"; got ${describe(value)}`,
    );
  }
  const query = validateFilter(labels, `Worker: handler ${index} labels`);
  const handler: Handler = {
    filter: (task: Task) => (filter as Handler['filter']).call(entry, task),
    ensure: (task: Task, context: EnsureContext) =>
      (ensure as Handler['ensure']).call(entry, task, context),
  };
  if (query !== undefined) handler.labels = query;
  if (typeof timeout === 'function') {
    handler.timeout = (task: Task) =>
      (timeout as (task: Task) => number | undefined).call(entry, task);
  } else if (timeout !== undefined) {
    if (!isTimeout(timeout)) {
      throw new TypeError(
        `Worker: handler ${index} timeout must be a positive integer of ms up to ${longestTimerMs} or a function; got ${describe(timeout)}`,
      );
    }
    handler.timeout = timeout;
  }
  const policy = readRetryPolicy(retry, `Worker: handler ${index} retry`);
  if (policy !== undefined) handlerPolicies.set(handler, policy);
  return handler;
}

/** The checked retry policy of each handler readHandlers made that has one. */
const handlerPolicies = new WeakMap<Handler, ResolvedRetryPolicy>();

/** handlerPolicy is the checked retry policy of a handler readHandlers made, if it has one. */
export function handlerPolicy(handler: Handler): ResolvedRetryPolicy | undefined {
  return handlerPolicies.get(handler);
}
