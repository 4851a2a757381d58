import { TaskCronError, TaskGateError, TaskLimitError } from '../errors.js';
import { describe } from '../task/describe.js';
import { Label } from '../task/label.js';
import { limits } from '../task/limits.js';
import type { Task } from '../task/task.js';
import { formatTime } from '../task/time.js';
import type { CreatePlan } from '../task/validate.js';

/**
 * UniqueOptions make a create unique by a key (docs/semantics.md §3.11): no two
 * tasks of the queue hold the same key at once.
 */
export interface UniqueOptions {
  /** The key; a non-empty string of at most `limits.keyBytes` UTF-8 bytes. */
  key: string;
  /**
   * What a create does when a task holds the key already: `skip` (the
   * default) stores nothing and answers that task; `replace` replaces a task
   * still queued (no worker owns it) with this one, keeping its id;
   * `debounce` replaces it too and makes it due `delay` ms from now, so
   * creates in a burst run once, `delay` after the last. A task a worker
   * owns is never replaced: the create is skipped.
   */
  mode?: 'skip' | 'replace' | 'debounce';
  /** ms the key stays held after its task left the queue (throttle); default 0. */
  ttl?: number;
  /** debounce only: ms from now the task becomes due (at least 1). */
  delay?: number;
}

/** UniqueCreate is what `create` with `unique` answers. */
export interface UniqueCreate {
  /** created: this task was stored; skipped: another holds the key; replaced: it took the holder's place. */
  action: 'created' | 'skipped' | 'replaced';
  /** The id of the task that holds the key: the new one, or the one that held it. */
  id: string;
  /**
   * The task that holds the key: as stored by this call (created, replaced),
   * or as the queue has it (skipped); undefined when the holder already left
   * the queue (its key held for its ttl) or left since.
   */
  task: Task | undefined;
}

/** ReadUnique is a create's unique option, read: the script's argument and the key. */
export interface ReadUnique {
  key: string;
  mode: 'skip' | 'replace' | 'debounce';
  /** The script's argument: `<skip|replace>\0<ttl ms>`. */
  argument: string;
  delay: number;
}

/** readUnique reads the unique option of a create (TypeError, TaskLimitError); undefined when absent. */
export function readUnique(options: unknown): ReadUnique | undefined {
  const unique = (options as { unique?: unknown } | undefined)?.unique;
  if (unique === undefined) return undefined;
  if (typeof unique !== 'object' || unique === null) {
    throw new TypeError(`create: option "unique" must be an object; got ${describe(unique)}`);
  }
  // read as unknown: the caller's types are not trusted at run time
  const given = unique as Record<keyof UniqueOptions, unknown>;
  const { key, mode = 'skip', ttl = 0, delay } = given;
  if (typeof key !== 'string' || key === '' || !key.isWellFormed()) {
    throw new TypeError(
      `create: unique "key" must be a non-empty string without lone surrogates; got ${describe(key)}`,
    );
  }
  if (Buffer.byteLength(key) > limits.keyBytes) {
    throw new TaskLimitError(
      `create: unique "key" is ${Buffer.byteLength(key)} bytes; the limit is ${limits.keyBytes} bytes per key`,
    );
  }
  if (mode !== 'skip' && mode !== 'replace' && mode !== 'debounce') {
    throw new TypeError(
      `create: unique "mode" must be "skip", "replace" or "debounce"; got ${describe(mode)}`,
    );
  }
  if (!isMs(ttl, 0)) {
    throw new TypeError(`create: unique "ttl" must be whole ms, 0 or more; got ${describe(ttl)}`);
  }
  if (mode === 'debounce' ? !isMs(delay, 1) : delay !== undefined) {
    throw new TypeError(
      mode === 'debounce'
        ? `create: unique mode "debounce" needs "delay", whole ms, 1 or more; got ${describe(delay)}`
        : `create: unique "delay" is for mode "debounce" only`,
    );
  }
  const stored = mode === 'skip' ? 'skip' : 'replace';
  return { key, mode, argument: `${stored}\0${ttl}`, delay: typeof delay === 'number' ? delay : 0 };
}

/**
 * uniqueTask prepares the task of a unique create: a debounced task gets its
 * due time; its core names the key. Templates cannot be unique (a named
 * schedule is engine.schedule); `after` cannot be combined with it.
 */
export function uniqueTask(
  unique: ReadUnique,
  argument: unknown,
  now: Date,
  after: string,
): unknown {
  if (after !== '') throw new TypeError('create: options "unique" and "after" cannot be combined');
  if (unique.mode !== 'debounce') return argument;
  const cron: unknown = (argument as Task | undefined)?.cron;
  if (cron !== undefined && cron !== null) {
    throw new TaskCronError(
      'create: a debounced task cannot have a cron map: debounce sets its due time',
    );
  }
  return {
    ...(argument as object),
    cron: { [Label.Exact]: formatTime(new Date(now.getTime() + unique.delay)) },
  };
}

/** markUnique checks that a validated task may be unique and names the key in its core. */
export function markUnique(unique: ReadUnique, stored: Task, plan: CreatePlan): void {
  if (plan.ticks !== undefined) {
    throw new TaskCronError(
      'create: a cron template cannot be unique; engine.schedule(name, template) names one',
    );
  }
  if (stored.gate !== undefined && !Object.values(stored.gate).includes('trigger')) {
    throw new TaskGateError('create: a gate template cannot be unique');
  }
  stored.core = { ...stored.core, [Label.Unique]: unique.key };
}

/** readAnswer reads the create script's answer with unique: `<action> <id>`. */
export function readAnswer(answer: string): { action: UniqueCreate['action']; id: string } {
  const [action = '', id = ''] = answer.split(' ');
  if (action !== 'created' && action !== 'skipped' && action !== 'replaced') {
    throw new Error(`create: the script answered ${JSON.stringify(answer)}`);
  }
  return { action, id };
}

function isMs(value: unknown, least: number): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= least;
}
