/**
 * RescueError is the base class of every error the engine throws for bad
 * input or lost ownership, and of RedisUnavailableError. Each subclass
 * carries a stable `code`; callers branch with `instanceof` or on `code`.
 * Other Redis failures (an error reply, a script error) are not wrapped:
 * they reach the caller as the underlying ioredis error.
 */
export class RescueError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** TaskEmptyError: no task was given, or the argument is not a plain object. */
export class TaskEmptyError extends RescueError {
  constructor(message: string) {
    super('TASK_EMPTY', message);
  }
}

/**
 * TaskKeyError: a task given to `create` with a top-level property that is
 * not one of its maps (`data`, a misspelt `mata`). The message names the
 * property and the keys a task has; nothing was written.
 */
export class TaskKeyError extends RescueError {
  constructor(message: string) {
    super('TASK_KEY', message);
  }
}

/** TaskMetaEmptyError: `create` without meta, or an `exists` / `lister` query that selects nothing. */
export class TaskMetaEmptyError extends RescueError {
  constructor(message: string) {
    super('TASK_META_EMPTY', message);
  }
}

/** TaskCoreError: core labels set where they must not be, a missing object id, or a bad cancel / bypass value. */
export class TaskCoreError extends RescueError {
  constructor(message: string) {
    super('TASK_CORE', message);
  }
}

/** TaskCronError: bad or conflicting cron labels, or an interval expression that cannot be read. */
export class TaskCronError extends RescueError {
  constructor(message: string) {
    super('TASK_CRON', message);
  }
}

/** TaskGateError: a gate combined with what it must not be (a root). */
export class TaskGateError extends RescueError {
  constructor(message: string) {
    super('TASK_GATE', message);
  }
}

/** TaskNodeError: delivery labels that do not describe one delivery method. */
export class TaskNodeError extends RescueError {
  constructor(message: string) {
    super('TASK_NODE', message);
  }
}

/** LabelReservedError: a user label in the engine's reserved `rescue.io` scheme. */
export class LabelReservedError extends RescueError {
  constructor(message: string) {
    super('LABEL_RESERVED', message);
  }
}

/** LabelValueError: a map that is not a plain object, a value that is not a string, or a reserved key with a value it cannot take. */
export class LabelValueError extends RescueError {
  constructor(message: string) {
    super('LABEL_VALUE', message);
  }
}

/**
 * TaskLimitError: a task or query beyond one of the size limits of
 * lib/task/limits.ts (labels per map, bytes per key or value, pairs per query
 * map or root, bytes per task). The message names the map, the limit and the
 * actual value; nothing reached Redis.
 */
export class TaskLimitError extends RescueError {
  constructor(message: string) {
    super('TASK_LIMIT', message);
  }
}

/**
 * TaskPayloadError: a task's payload that is not one JSON value (a function,
 * a Date, a Map, a class instance, a number that is not finite, a cycle, a
 * lone surrogate), or a typed task's payload its schema refuses. The message
 * names where in the payload; nothing was written.
 */
export class TaskPayloadError extends RescueError {
  constructor(message: string) {
    super('TASK_PAYLOAD', message);
  }
}

/**
 * TaskNotFoundError: `delete`, `extend` or `cycles` of a task that is not in
 * the queue (deleted, made obsolete, or replaced). A worker treats it as lost
 * ownership and stops working on the task.
 */
export class TaskNotFoundError extends RescueError {
  constructor(message: string) {
    super('TASK_NOT_FOUND', message);
  }
}

/**
 * TaskOutdatedError: `delete` or `extend` by a worker that no longer owns the
 * task (its lease was revoked or reset). A worker treats it as lost ownership
 * and stops working on the task; nothing was written.
 */
export class TaskOutdatedError extends RescueError {
  constructor(message: string) {
    super('TASK_OUTDATED', message);
  }
}

/**
 * QueueLayoutError: the queue's keys were written by another layout version
 * of the engine (the `layout` key of lib/engine/keys.ts). The engine refuses
 * the queue rather than misread it: run an engine of that version, or migrate
 * the queue. Nothing was written.
 */
export class QueueLayoutError extends RescueError {
  constructor(message: string) {
    super('QUEUE_LAYOUT', message);
  }
}

/**
 * TaskResultError: a handler's result cannot be kept with its outcome: it is
 * not JSON-serialisable (a BigInt, a cycle) or its JSON is beyond the limit
 * (64 KiB). The attempt counts as failed; the task is retried.
 */
export class TaskResultError extends RescueError {
  constructor(message: string) {
    super('TASK_RESULT', message);
  }
}

/**
 * TaskCancelledError: the reason a handler's signal aborts with when
 * `engine.cancel` stopped its task (from any process). The task is gone; its
 * outcome is `cancelled`. Stop working: nothing this attempt does is kept.
 */
export class TaskCancelledError extends RescueError {
  constructor(message: string) {
    super('TASK_CANCELLED', message);
  }
}

/**
 * TaskTimeoutError: the reason a handler's signal aborts with when it ran
 * longer than its `timeout`. The attempt counts as failed (state `timeout`);
 * the task is retried after its lease ends, under the circuit breaker's rules.
 */
export class TaskTimeoutError extends RescueError {
  constructor(message: string) {
    super('TASK_TIMEOUT', message);
  }
}

/**
 * WaitTimeoutError: `wait` or `run` gave up after its `timeout` before the
 * task finished. The task is left as it is (it may still finish); wait again
 * or cancel it.
 */
export class WaitTimeoutError extends RescueError {
  constructor(message: string) {
    super('WAIT_TIMEOUT', message);
  }
}

/**
 * AcceptTimeoutError: no worker claimed a task `run` created within its
 * `acceptTimeout`. The task was removed, in one step with the check, and
 * left nothing behind.
 */
export class AcceptTimeoutError extends RescueError {
  constructor(message: string) {
    super('ACCEPT_TIMEOUT', message);
  }
}

/**
 * UnrecoverableError: thrown by a handler's ensure to say the task can never
 * succeed. The worker halts the task at once (the circuit breaker holds it,
 * as when its cycles reached `cancel`), with outcome `failed` and this error;
 * no further attempt is made, whatever the retry policy. `cycles` resets it.
 *
 *     throw new UnrecoverableError(`no such customer ${id}`)
 */
export class UnrecoverableError extends RescueError {
  constructor(message: string) {
    super('UNRECOVERABLE', message);
  }
}

/**
 * ReplicaTimeoutError: with the engine option `durability: 'replica'`, a
 * write Redis made was not taken by a replica within `durabilityTimeout`
 * (WAIT answered 0). The write is on the primary and may or may not survive
 * a failover: read the task's state before you act on it again.
 */
export class ReplicaTimeoutError extends RescueError {
  constructor(message: string) {
    super('REPLICA_TIMEOUT', message);
  }
}

/**
 * RedisUnavailableError: Redis could not be reached within the engine's
 * `connectTimeout` (the connection was down, or never came up, for that long
 * while the call waited). `cause` is the last connection error seen, when
 * there was one. A call that had reached Redis before the connection was
 * lost may have run; one that was still waiting to be sent never runs.
 */
export class RedisUnavailableError extends RescueError {
  constructor(message: string, options?: ErrorOptions) {
    super('REDIS_UNAVAILABLE', message, options);
  }
}

/** The error class for each stable code; the compiler checks the table is complete. */
export const errorByCode = {
  TASK_EMPTY: TaskEmptyError,
  TASK_KEY: TaskKeyError,
  TASK_META_EMPTY: TaskMetaEmptyError,
  TASK_CORE: TaskCoreError,
  TASK_CRON: TaskCronError,
  TASK_GATE: TaskGateError,
  TASK_NODE: TaskNodeError,
  LABEL_RESERVED: LabelReservedError,
  LABEL_VALUE: LabelValueError,
  TASK_LIMIT: TaskLimitError,
  TASK_PAYLOAD: TaskPayloadError,
  TASK_NOT_FOUND: TaskNotFoundError,
  TASK_OUTDATED: TaskOutdatedError,
  QUEUE_LAYOUT: QueueLayoutError,
  TASK_RESULT: TaskResultError,
  TASK_CANCELLED: TaskCancelledError,
  TASK_TIMEOUT: TaskTimeoutError,
  WAIT_TIMEOUT: WaitTimeoutError,
  ACCEPT_TIMEOUT: AcceptTimeoutError,
  UNRECOVERABLE: UnrecoverableError,
  REPLICA_TIMEOUT: ReplicaTimeoutError,
  REDIS_UNAVAILABLE: RedisUnavailableError,
} as const satisfies Record<string, new (message: string) => RescueError>;

/** ErrorCode is one of the stable codes of the api's error table. */
export type ErrorCode = keyof typeof errorByCode;

/** The codes, in the order of the api table. */
export const errorCodes = Object.keys(errorByCode) as ErrorCode[];

function isErrorCode(word: string): word is ErrorCode {
  return Object.hasOwn(errorByCode, word);
}

/**
 * fromReply turns a Redis error whose message starts with one of our codes
 * (a Lua script's `error_reply("TASK_OUTDATED ...")`) into its RescueError.
 * Any other error is returned unchanged.
 */
export function fromReply(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const match = /^(?:ERR )?([A-Z_]+) ([\s\S]*)$/.exec(error.message);
  if (match === null) return error;
  const [, code = '', detail = ''] = match;
  if (!isErrorCode(code)) return error;
  return new errorByCode[code](detail);
}
