import { systemClock } from '../../lib/clock.js';
import type { Engine } from '../../lib/engine/engine.js';
import type { EngineOptions } from '../../lib/engine/options.js';
import { Label } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';
import type { WorkerEvents } from '../../lib/worker/events.js';
import type { Handler } from '../../lib/worker/handler.js';
import type { WorkerOptions } from '../../lib/worker/options.js';
import { Worker } from '../../lib/worker/worker.js';
import { useQueue, type TestQueue } from './queue.js';

export { idOf } from './queue.js';

// Worker runtime tests run on real time (timers, the system clock), so every
// wait here is bounded and driven by an event or a condition, never a sleep.

/** WorkerQueue is a test queue plus engines on the system clock and tracked workers. */
export interface WorkerQueue extends TestQueue {
  /** live returns an engine on this queue on the system clock (or the given clock). */
  live(worker: string, options?: EngineOptions): Engine;
  /** worker returns a Worker (not started) that is stopped after the test, with its events recorded. */
  worker(engine: Engine, handlers: Handler[], options?: WorkerOptions): Worker;
  /** log returns what a worker of this test emitted. */
  log(worker: Worker): WorkerLog;
}

/** WorkerLog records a worker's events in order. */
interface WorkerLog {
  readonly ensured: Task[];
  readonly failed: { task: Task; error: unknown }[];
  readonly lost: { task: Task; error: unknown }[];
  readonly declined: Task[];
  readonly progress: { task: Task; value: unknown }[];
  readonly errors: unknown[];
  expireDone: number;
  tickerDone: number;
}

/** Options the tests use unless they say otherwise: a short poll, so only wake-up tests rely on wake-ups. */
const testWorkerDefaults: WorkerOptions = { pollInterval: 100, background: false };

/**
 * useWorkerQueue is useQueue for worker tests: its afterEach stops every
 * worker of the test before the queue's engines are closed.
 */
export function useWorkerQueue(): () => WorkerQueue {
  let workers: { worker: Worker; log: WorkerLog }[] = [];
  // Registered before useQueue's hooks, so it runs before the engines close.
  afterEach(async () => {
    const stopping = workers;
    workers = [];
    await within(
      Promise.all(stopping.map(({ worker }) => worker.stop())),
      4_000,
      'the workers of the test stopped',
    );
  });
  const queue = useQueue();
  return () => {
    const current = queue();
    return Object.assign(Object.create(current) as TestQueue, {
      live(worker: string, options: EngineOptions = {}): Engine {
        return current.engine(worker, { clock: systemClock, ...options });
      },
      worker(engine: Engine, handlers: Handler[], options: WorkerOptions = {}): Worker {
        const worker = new Worker(engine, handlers, { ...testWorkerDefaults, ...options });
        workers.push({ worker, log: record(worker) });
        return worker;
      },
      log(worker: Worker): WorkerLog {
        const entry = workers.find((candidate) => candidate.worker === worker);
        if (entry === undefined) throw new Error('log: not a worker of this test');
        return entry.log;
      },
    });
  };
}

function record(worker: Worker): WorkerLog {
  const log: WorkerLog = {
    ensured: [],
    failed: [],
    lost: [],
    declined: [],
    progress: [],
    errors: [],
    expireDone: 0,
    tickerDone: 0,
  };
  worker.on('task:ensured', (task) => log.ensured.push(task));
  worker.on('task:failed', (task, error) => log.failed.push({ task, error }));
  worker.on('task:lost', (task, error) => log.lost.push({ task, error }));
  worker.on('task:declined', (task) => log.declined.push(task));
  worker.on('task:progress', (task, value) => log.progress.push({ task, value }));
  worker.on('error', (error) => log.errors.push(error));
  worker.on('expire:done', () => log.expireDone++);
  worker.on('ticker:done', () => log.tickerDone++);
  return log;
}

/** within resolves as the promise does, or rejects naming what did not happen in time. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * next resolves with the arguments of the worker's next event of that name
 * that satisfies the predicate; rejects after ms. Call it before causing the event.
 */
export function next<E extends keyof WorkerEvents>(
  worker: Worker,
  name: E,
  ms: number,
  predicate: (...args: WorkerEvents[E]) => boolean = () => true,
): Promise<WorkerEvents[E]> {
  let listener: ((...args: WorkerEvents[E]) => void) | undefined;
  const seen = new Promise<WorkerEvents[E]>((resolve) => {
    listener = (...args: WorkerEvents[E]) => {
      if (predicate(...args)) resolve(args);
    };
    // eslint-disable-next-line @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-argument
    worker.on(name, listener as any);
  });
  return within(seen, ms, `event ${String(name)}`).finally(() => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-argument
    worker.off(name, listener as any);
  });
}

/** until resolves once the condition holds (checked every few ms); rejects after ms. */
export async function until(
  condition: () => boolean | Promise<boolean>,
  ms: number,
  what: string,
): Promise<void> {
  const deadline = performance.now() + ms;
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error(`timed out after ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Signal is a promise the test resolves by hand. */
export interface Signal<T = void> {
  readonly promise: Promise<T>;
  readonly settled: boolean;
  resolve(value: T): void;
}

export function signal<T = void>(): Signal<T> {
  let resolve!: (value: T) => void;
  let settled = false;
  const promise = new Promise<T>((done) => (resolve = done));
  return {
    promise,
    get settled() {
      return settled;
    },
    resolve(value: T) {
      settled = true;
      resolve(value);
    },
  };
}

/** aborted resolves with the signal's reason once it is aborted. */
export function aborted(abortSignal: AbortSignal): Promise<unknown> {
  if (abortSignal.aborted) return Promise.resolve(abortSignal.reason);
  return new Promise((resolve) =>
    abortSignal.addEventListener('abort', () => resolve(abortSignal.reason), { once: true }),
  );
}

/** stored returns the queue's copy of the task with that id, or undefined. */
export async function stored(engine: Engine, id: string): Promise<Task | undefined> {
  const tasks = await engine.lister({ meta: { '*': '*' } });
  return tasks.find((task) => task.core?.[Label.Object] === id);
}

/** laterMillisecond resolves once the system clock has moved past the given instant. */
export async function laterMillisecond(after: number = systemClock().getTime()): Promise<void> {
  while (systemClock().getTime() <= after) await new Promise((resolve) => setImmediate(resolve));
}

/** resolved ignores its argument (evaluated by the caller) and resolves: for one-line ensures. */
// eslint-disable-next-line @typescript-eslint/no-unused-vars
export function resolved(_effect?: unknown): Promise<void> {
  return Promise.resolve();
}
