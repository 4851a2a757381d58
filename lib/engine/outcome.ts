import { RescueError, TaskResultError } from '../errors.js';
import { reason } from '../task/describe.js';
import { formatTime } from '../task/time.js';

import { outcomeStates, type OutcomeState } from '../task/state.js';

/**
 * Outcome is what became of a task: kept for the engine's `outcomeRetention`
 * once its handler's ensure resolved and the task was deleted (`completed`),
 * once the circuit breaker halted it after a failed attempt (`failed`, or
 * `timeout` when that attempt ran past its handler's timeout), once
 * `cancel` removed it (`cancelled`), or once a delete with bypass (an
 * operator's delete: `rescue tasks delete`, the dashboard's Delete) removed
 * it without completing it (`removed`; so are the tasks held after it).
 *
 *     { id: '1697760001000-000000000042', state: 'completed', result: { width: 640 },
 *       worker: 'eon', cycles: 0, createdAt: '2023-10-20T00:00:01Z',
 *       startedAt: '2023-10-20T00:00:02Z', endedAt: '2023-10-20T00:00:03.5Z',
 *       log: ['resized to 640'], children: [] }
 */
export interface Outcome {
  id: string;
  state: OutcomeState;
  /** What the handler's ensure resolved with (completed; JSON-serialisable), if anything. */
  result?: unknown;
  /**
   * Why the last attempt failed (failed, timeout), who cancelled it, or why
   * it was removed; `stack` is the thrown error's stack (at most 2,000
   * characters), when it was an Error.
   */
  error?: OutcomeError;
  /** The worker that ran the last attempt, if one did. */
  worker?: string;
  /** The task's cycles when it finished. */
  cycles: number;
  createdAt: string;
  /** When the last attempt's handler started. */
  startedAt?: string;
  endedAt: string;
  /** The last attempt's `context.log` lines (at most 100, each at most 1,000 characters). */
  log: string[];
  /** The ids of the tasks its handler spawned (`context.spawn`), created as it completed. */
  children: string[];
}

/** OutcomeError is what an outcome keeps of an error. */
export interface OutcomeError {
  message: string;
  code?: string;
  stack?: string;
}

/** Bounds of what an outcome holds: each record stays small, whatever a handler does. */
export const outcomeLimits = {
  /** UTF-8 bytes of a result's JSON. */
  resultBytes: 65_536,
  /** Lines of a task's log; later lines are dropped (the last one says how many). */
  logLines: 100,
  /** Characters of one log line, or of an error message; the rest is cut. */
  lineChars: 1_000,
  /** Characters of an error's stack; the rest is cut. */
  stackChars: 2_000,
} as const;

/** AttemptFields are what the worker runtime knows of an attempt, kept with its outcome. */
export interface AttemptFields {
  startedMs?: number;
  log?: readonly string[];
  /** The handler's result (completed). */
  result?: unknown;
  /** The worker and the error of a failed attempt (failed, timeout). */
  worker?: string;
  error?: unknown;
}

/**
 * outcomeFields writes an attempt's fields as the JSON object the scripts
 * splice into the outcome. A result that is not JSON-serialisable or is too
 * large throws TaskResultError (the attempt then fails instead).
 */
export function outcomeFields(fields: AttemptFields): string {
  const parts: string[] = [];
  if (fields.result !== undefined) {
    // undefined for a function or a symbol: no result
    let json: string | undefined;
    try {
      json = JSON.stringify(fields.result) as string | undefined; // eslint-disable-line @typescript-eslint/no-unnecessary-type-assertion
    } catch (error) {
      throw new TaskResultError(`the handler's result is not JSON-serialisable: ${reason(error)}`);
    }
    if (json !== undefined) {
      const bytes = Buffer.byteLength(json);
      if (bytes > outcomeLimits.resultBytes) {
        throw new TaskResultError(
          `the handler's result is ${bytes} bytes of JSON; the limit is ${outcomeLimits.resultBytes}`,
        );
      }
      parts.push(`"result":${json}`);
    }
  }
  if (fields.worker !== undefined) parts.push(`"worker":${JSON.stringify(fields.worker)}`);
  if (fields.error !== undefined)
    parts.push(`"error":${JSON.stringify(errorFields(fields.error))}`);
  if (fields.startedMs !== undefined) parts.push(`"startedAt":${fields.startedMs}`);
  if (fields.log !== undefined && fields.log.length > 0)
    parts.push(`"log":${JSON.stringify(fields.log)}`);
  return `{${parts.join(',')}}`;
}

/** errorFields is what an outcome keeps of an error: its message (cut), its code and stack, if any. */
function errorFields(error: unknown): OutcomeError {
  const message = cut(error instanceof Error ? error.message : reason(error));
  const code =
    error instanceof RescueError
      ? error.code
      : typeof (error as { code?: unknown } | null)?.code === 'string'
        ? (error as { code: string }).code
        : undefined;
  const fields: OutcomeError = code === undefined ? { message } : { message, code };
  const stack = error instanceof Error ? error.stack : undefined;
  if (typeof stack === 'string' && stack !== '')
    fields.stack = cut(stack, outcomeLimits.stackChars);
  return fields;
}

/** cut shortens a line to the limit of a log line (or to `most` characters). */
export function cut(line: string, most: number = outcomeLimits.lineChars): string {
  return line.length <= most ? line : `${line.slice(0, most - 1)}…`;
}

const states = new Set<string>(outcomeStates);

/**
 * readOutcome reads a stored outcome (times in ms) into an Outcome (times as
 * formatTime). A record that is not one (written by something else) is
 * undefined: it is never returned.
 */
export function readOutcome(json: string | null | undefined): Outcome | undefined {
  if (typeof json !== 'string' || json === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return undefined;
  }
  return outcomeOf(parsed);
}

/** outcomeOf reads a parsed stored outcome (a watch message carries one) as readOutcome does. */
export function outcomeOf(parsed: unknown): Outcome | undefined {
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const value = parsed as Record<string, unknown>;
  const { id, state, createdAt, endedAt, cycles } = value;
  if (typeof id !== 'string' || typeof state !== 'string' || !states.has(state)) return undefined;
  const created = instant(createdAt);
  const ended = instant(endedAt);
  if (created === undefined || ended === undefined) return undefined;
  const outcome: Outcome = {
    id,
    state: state as OutcomeState,
    cycles: typeof cycles === 'number' && Number.isSafeInteger(cycles) ? cycles : 0,
    createdAt: created,
    endedAt: ended,
    log: strings(value['log']),
    children: strings(value['children']),
  };
  if (Object.hasOwn(value, 'result')) outcome.result = value['result'];
  const error = value['error'] as
    { message?: unknown; code?: unknown; stack?: unknown } | undefined;
  if (typeof error?.message === 'string') {
    outcome.error =
      typeof error.code === 'string'
        ? { message: error.message, code: error.code }
        : { message: error.message };
    if (typeof error.stack === 'string') outcome.error.stack = error.stack;
  }
  if (typeof value['worker'] === 'string') outcome.worker = value['worker'];
  const started = instant(value['startedAt']);
  if (started !== undefined) outcome.startedAt = started;
  return outcome;
}

function instant(ms: unknown): string | undefined {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0 || ms > 9_999_999_999_999)
    return undefined;
  return formatTime(new Date(ms));
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item) => typeof item === 'string') : [];
}
