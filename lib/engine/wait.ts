import { AcceptTimeoutError, TaskNotFoundError, WaitTimeoutError } from '../errors.js';
import { requireFunction, requireInteger, timerBounds } from '../options.js';
import { describe } from '../task/describe.js';
import { Label } from '../task/label.js';
import { creationTime } from '../task/object-id.js';
import type { TaskInput } from '../task/task.js';
import { formatTime } from '../task/time.js';
import { assertOpen, readClock, type EngineContext } from './context.js';
import { createTask } from './create.js';
import { watchChannel } from './keys.js';
import { outcomeOf, type Outcome } from './outcome.js';
import { runRequest } from './run.js';
import { readId, taskStatus, type TaskStatus } from './status.js';
import { Watcher, type Heard } from './watch.js';
import { argv } from './lua/arguments.js';

/** WaitOptions configure `engine.wait`. */
export interface WaitOptions {
  /** Give up after this many ms (WaitTimeoutError); the task is left as it is. Default: no limit. */
  timeout?: number;
  /** Give up when this signal aborts (rejects with its reason). */
  signal?: AbortSignal;
  /** Called when a worker claims the task (RUNNING), with its worker id. */
  onClaim?: (worker: string) => void;
  /** Called with each value the task's handler publishes with `context.progress`. */
  onProgress?: (value: unknown, worker: string) => void;
}

/** RunOptions configure `engine.run`: those of wait, and how long a worker has to claim the task. */
export interface RunOptions extends WaitOptions {
  /**
   * When no worker claimed the task within this many ms, remove it (in one
   * step with the check, so it either runs or leaves nothing behind) and
   * reject with AcceptTimeoutError. Default: no limit.
   */
  acceptTimeout?: number;
}

function readTimeout(operation: string, name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  return requireInteger(`${operation}: option "${name}"`, value, timerBounds(0));
}

function readCallback<T>(operation: string, name: string, value: T | undefined): T | undefined {
  if (value !== undefined) requireFunction(`${operation}: option "${name}"`, value);
  return value;
}

interface ResolvedWait {
  timeout: number | undefined;
  signal: AbortSignal | undefined;
  onClaim: ((worker: string) => void) | undefined;
  onProgress: ((value: unknown, worker: string) => void) | undefined;
}

function readWaitOptions(operation: string, options: unknown): ResolvedWait {
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    throw new TypeError(`${operation}: options must be an object; got ${describe(options)}`);
  }
  const given = options as WaitOptions | undefined;
  const signal = given?.signal;
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new TypeError(`${operation}: option "signal" must be an AbortSignal`);
  }
  return {
    timeout: readTimeout(operation, 'timeout', given?.timeout),
    signal,
    onClaim: readCallback(operation, 'onClaim', given?.onClaim),
    onProgress: readCallback(operation, 'onProgress', given?.onProgress),
  };
}

/** watcherOf opens the engine's subscriber connection on first use. */
function watcherOf(context: EngineContext): Watcher {
  context.watcher ??= new Watcher(
    context.connection,
    context.keys.watch,
    context.options.connectTimeout,
  );
  return context.watcher;
}

/**
 * finished answers what a wait resolves with, from a status: the outcome of
 * a finished task; for a task the circuit breaker halted, the outcome its
 * halt recorded (or, when that is no longer kept, its last failure, else a
 * failed outcome that says so); undefined while the task is on its way.
 */
function finished(status: TaskStatus, nowMs: number): Outcome | undefined {
  if (status.state === 'halted') {
    return (
      status.outcome ??
      status.failure ?? {
        id: status.id,
        state: 'failed',
        cycles: Number(status.task?.core?.[Label.Cycles] ?? '0'),
        createdAt: formatTime(creationTime(status.id) ?? new Date(0)),
        endedAt: formatTime(new Date(nowMs)),
        error: { message: 'the circuit breaker holds the task (its cycles reached its cancel)' },
        log: [],
        children: [],
      }
    );
  }
  if (status.task === undefined) return status.outcome;
  return undefined;
}

/**
 * waitFor resolves with a task's outcome once it finished (at once when it
 * has), listening on the task's watch channel: no polling. Rejects with
 * TaskNotFoundError when the queue neither has the task nor keeps its
 * outcome (or it leaves the queue without one), WaitTimeoutError after the
 * timeout, the signal's reason when it aborts.
 */
export async function waitFor(
  context: EngineContext,
  idArgument: unknown,
  options?: WaitOptions,
): Promise<Outcome> {
  assertOpen(context, 'wait');
  const id = readId(idArgument, 'wait');
  const wait = readWaitOptions('wait', options);
  wait.signal?.throwIfAborted();
  return new Promise<Outcome>((resolve, rejectWith) => {
    // an abort's reason is whatever the caller chose; the rest are Errors
    const reject = (reason: unknown) => rejectWith(reason); // eslint-disable-line @typescript-eslint/prefer-promise-reject-errors
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    let stop: (() => void) | undefined;
    let checking = Promise.resolve();
    let heardClaim = false;
    let toldClaim: string | undefined;
    const onAbort = () => settle(() => reject(wait.signal?.reason));
    function settle(done: () => void): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      wait.signal?.removeEventListener('abort', onAbort);
      stop?.();
      done();
    }
    // reads the state again: where the messages may not tell (first, after a
    // reconnection, a task that left the queue)
    function check(): void {
      checking = checking.then(async () => {
        if (settled) return;
        try {
          const status = await taskStatus(context, id);
          if (status === undefined) {
            settle(() =>
              reject(
                new TaskNotFoundError(
                  `wait: task ${id} is not in the queue, and no outcome of it is kept`,
                ),
              ),
            );
            return;
          }
          const outcome = finished(status, readClock(context.clock).getTime());
          if (outcome !== undefined) settle(() => resolve(outcome));
          else if (status.state === 'owned' && status.worker !== undefined && !heardClaim) {
            // claimed before the wait listened: its message went by
            heardClaim = true;
            toldClaim = status.worker;
            wait.onClaim?.(status.worker);
          }
        } catch (error) {
          settle(() => reject(error));
        }
      });
    }
    function hear(heard: Heard): void {
      if (settled) return;
      if ('closed' in heard) return settle(() => reject(heard.closed));
      if ('lost' in heard) return check();
      let message: { o?: unknown; r?: unknown; w?: unknown; p?: unknown };
      try {
        message = JSON.parse(heard.message) as typeof message;
      } catch {
        return;
      }
      const worker = typeof message.w === 'string' ? message.w : '';
      if (message.o !== undefined) {
        const outcome = outcomeOf(message.o);
        if (outcome !== undefined) settle(() => resolve(outcome));
      } else if (message.r !== undefined) {
        check();
      } else if (Object.hasOwn(message, 'p')) {
        wait.onProgress?.(message.p, worker);
      } else if (message.w !== undefined) {
        heardClaim = true;
        // the message of the claim a status read told already
        if (toldClaim === worker) toldClaim = undefined;
        else wait.onClaim?.(worker);
      }
    }
    if (wait.timeout !== undefined) {
      timer = setTimeout(
        () =>
          settle(() =>
            reject(
              new WaitTimeoutError(`wait: task ${id} did not finish within ${wait.timeout} ms`),
            ),
          ),
        wait.timeout,
      );
    }
    wait.signal?.addEventListener('abort', onAbort, { once: true });
    watcherOf(context)
      .listen(watchChannel(context.keys, id), hear)
      .then(
        (unlisten) => {
          if (settled) unlisten();
          else {
            stop = unlisten;
            check();
          }
        },
        (error: unknown) => settle(() => reject(error)),
      );
  });
}

/**
 * runTask creates a task and waits for its outcome. With `acceptTimeout`, a
 * task no worker claimed in time is removed (withdraw.lua: the check and the
 * removal are one step) and the call rejects with AcceptTimeoutError.
 */
export async function runTask(
  context: EngineContext,
  task: TaskInput,
  options?: RunOptions,
): Promise<Outcome> {
  assertOpen(context, 'run');
  const wait = readWaitOptions('run', options);
  const acceptTimeout = readTimeout('run', 'acceptTimeout', options?.acceptTimeout);
  wait.signal?.throwIfAborted();
  const created = await createTask(context, task);
  const id = created.core?.[Label.Object] ?? '';
  if (acceptTimeout === undefined) return waitFor(context, id, options);

  let withdrawing: Promise<boolean> | undefined;
  const timer = setTimeout(() => {
    withdrawing = withdraw(context, id);
  }, acceptTimeout);
  try {
    return await waitFor(context, id, options);
  } catch (error) {
    // the withdrawal's removal is heard as a task that left the queue
    if (withdrawing !== undefined && error instanceof TaskNotFoundError && (await withdrawing)) {
      throw new AcceptTimeoutError(
        `run: no worker claimed task ${id} within ${acceptTimeout} ms; it was removed`,
      );
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** withdraw removes a task no worker has claimed yet; says whether it did. */
async function withdraw(context: EngineContext, id: string): Promise<boolean> {
  if (context.closed) return false;
  const now = readClock(context.clock);
  try {
    return (
      (await runRequest(context, 'withdraw', (request) =>
        argv('withdraw', { now_ms: now.getTime(), id, request }),
      )) === 1
    );
  } catch {
    return false; // Redis away: the task stays, the wait goes on
  }
}
