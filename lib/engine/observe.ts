import { RescueError } from '../errors.js';
import { setLabel } from '../task/codec.js';
import type { Labels, Task } from '../task/task.js';

// The engine's observer hook: what metrics and tracing (separate entries of the
// package, rescue-engine/metrics and rescue-engine/tracing) plug into. With no
// observer registered, every hook is one size check, so users who do not use
// them pay nothing; the engine never imports prom-client or OpenTelemetry.

/** OperationName names what `observe` times: the engine's methods and the worker runtime's calls. */
export type OperationName =
  | 'create'
  | 'createMany'
  | 'search'
  | 'delete'
  | 'deleteSearch'
  | 'release'
  | 'exists'
  | 'lister'
  | 'stats'
  | 'workers'
  | 'events'
  | 'tasks'
  | 'expire'
  | 'extend'
  | 'cycles'
  | 'ticker'
  | 'doctor'
  | 'repair'
  | 'pause'
  | 'resume'
  | 'setCap'
  | 'removeCap'
  | 'caps'
  | 'setRateLimit'
  | 'removeRateLimit'
  | 'rateLimits';

/**
 * TaskSource says how a task came into the queue: `api` create, `cron` a
 * template's tick (ticker), `gate` a gate template whose last trigger was
 * deleted, `requeue` a delete that paged or deferred the task.
 */
export type TaskSource = 'api' | 'cron' | 'gate' | 'requeue';

/** TaskCounts is what one operation's scripts counted (absent: none). */
export interface TaskCounts {
  created?: Partial<Record<TaskSource, number>>;
  /** Leases expire revoked. */
  revoked?: number;
  /** Tasks the circuit breaker came to hold (a revocation or a requeue reached cancel). */
  halted?: number;
  /** Tasks expire deleted past retention. */
  retired?: number;
}

/** CreateScope is an observer's part in one create: core labels to store, and its end. */
export interface CreateScope {
  /** Labels added to the stored task's core (the tracing context, rescue-engine/tracing). */
  readonly labels?: Labels;
  /** Called once create settled: the stored task, or the error it rejected with. */
  end?(stored: Task | undefined, error: unknown): void;
}

/**
 * EngineObserver receives what an engine and the workers running on it do.
 * Every method is optional; none may change the outcome of an operation (an
 * observer that throws is reported as a warning and ignored).
 */
export interface EngineObserver {
  /** An operation settled after durationMs; `error` is what it rejected with (undefined: it resolved). */
  operation?(operation: OperationName, durationMs: number, error: unknown): void;
  /** An operation's scripts counted tasks that changed state. */
  tasks?(counts: TaskCounts): void;
  /** A delete completed a task (deleted, requeued, or a broadcast copy completed locally). */
  completed?(task: Task): void;
  /** create validated a task and is about to store it. */
  creating?(task: Task): CreateScope | undefined;
  /** A worker received a task from a search, at nowMs (engine clock). */
  claimed?(task: Task, nowMs: number): void;
  /** A worker runs a handler's ensure: an observer wraps the run (and must return what it returns). */
  ensure?(task: Task, run: () => Promise<unknown>): Promise<unknown>;
  /** A handler's ensure settled after durationMs, resolved or rejected. */
  handled?(task: Task, durationMs: number, rejected: boolean): void;
  /** A worker reported a task failed (its `task:failed` event). */
  failed?(task: Task): void;
}

/** Observed is what holds an engine's observers: its context (EngineContext.observers). */
export interface Observed {
  readonly observers: Set<EngineObserver>;
}

/** addObserver registers an observer on an engine's context; the returned function removes it. */
export function addObserver(context: Observed, observer: EngineObserver): () => void {
  context.observers.add(observer);
  return () => context.observers.delete(observer);
}

/**
 * observe runs one operation and, when someone observes the engine, reports
 * its duration and outcome. Without observers it is the call itself.
 */
export function observe<T>(
  context: Observed,
  operation: OperationName,
  run: () => Promise<T>,
): Promise<T> {
  if (context.observers.size === 0) return run();
  const started = performance.now();
  const settled = (error: unknown) => {
    const durationMs = performance.now() - started;
    notify(context, (observer) => observer.operation?.(operation, durationMs, error));
  };
  // run is an async function: a failure comes as a rejection
  return run().then(
    (value) => {
      settled(undefined);
      return value;
    },
    (error: unknown) => {
      settled(error);
      throw error;
    },
  );
}

/** notify calls a hook of every observer; one that throws does not stop the others or the engine. */
export function notify(context: Observed, call: (observer: EngineObserver) => void): void {
  if (context.observers.size === 0) return;
  for (const observer of context.observers) {
    try {
      call(observer);
    } catch (error) {
      warn(error);
    }
  }
}

/** countTasks reports what an operation's scripts counted, when anything was. */
export function countTasks(context: Observed, counts: TaskCounts): void {
  if (context.observers.size === 0) return;
  if (!counts.revoked && !counts.halted && !counts.retired && !anyCreated(counts.created)) return;
  notify(context, (observer) => observer.tasks?.(counts));
}

function anyCreated(created: TaskCounts['created']): boolean {
  for (const source in created) if ((created[source as TaskSource] ?? 0) > 0) return true;
  return false;
}

/** completedTask reports a task a delete completed. */
export function completedTask(context: Observed, task: Task): void {
  notify(context, (observer) => observer.completed?.(task));
}

/**
 * beginCreate asks the observers for their part in a create: their core
 * labels go into the task to store; the returned function ends their scopes.
 */
export function beginCreate(
  context: Observed,
  task: Task,
): ((stored: Task | undefined, error: unknown) => void) | undefined {
  if (context.observers.size === 0) return undefined;
  const scopes: CreateScope[] = [];
  notify(context, (observer) => {
    const scope = observer.creating?.(task);
    if (scope !== undefined) scopes.push(scope);
  });
  if (scopes.length === 0) return undefined;
  const core = (task.core ??= {});
  for (const scope of scopes) {
    for (const [key, value] of Object.entries(scope.labels ?? {})) setLabel(core, key, value);
  }
  return (stored, error) => {
    for (const scope of scopes) {
      try {
        scope.end?.(stored, error);
      } catch (thrown) {
        warn(thrown);
      }
    }
  };
}

/**
 * runEnsure runs a handler's ensure inside the wrappers of the observers that
 * have one (the last registered outermost). Without them it is the call itself.
 */
export function runEnsure(
  context: Observed,
  task: Task,
  ensure: () => Promise<unknown>,
): Promise<unknown> {
  let run = ensure;
  for (const observer of context.observers) {
    if (observer.ensure === undefined) continue;
    const inner = run;
    run = () =>
      (observer.ensure as NonNullable<EngineObserver['ensure']>).call(observer, task, inner);
  }
  return run();
}

/**
 * errorCode is the `code` label of a failed operation: a RescueError's code,
 * `REDIS_REPLY` when Redis answered with an error, otherwise `OTHER` (a lost
 * connection, a closed engine, a bad clock). Only values the engine controls.
 */
export function errorCode(error: unknown): string {
  if (error instanceof RescueError) return error.code;
  if (error instanceof Error && error.name === 'ReplyError') return 'REDIS_REPLY';
  return 'OTHER';
}

function warn(error: unknown): void {
  process.emitWarning(
    `rescue-engine: an engine observer threw: ${error instanceof Error ? error.message : String(error)}`,
  );
}
