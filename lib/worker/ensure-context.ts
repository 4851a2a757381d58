import type { Task } from '../task/task.js';
import type { EnsureContext } from './handler.js';
import type { LazyAbort } from './lease.js';

/** What a run's context does besides its signal: the worker's closures over the run. */
export interface EnsureActions {
  extend(): Promise<void>;
  progress(value: unknown): Promise<void>;
  log(line: string): void;
  spawn(task: Task): void;
  rateLimit(ms: number): void;
}

/**
 * RunContext is the EnsureContext a handler's ensure gets: the same own
 * enumerable properties as an object literal `{ get signal() {…}, extend,
 * progress, log, spawn, rateLimit }`, in that order, so destructuring and spreading it
 * work as they did. The `signal` getter is one function shared by every
 * context (it reads the run's controller from a private field): a getter
 * made per run would give each context a hidden class of its own, kept in
 * the old generation, which holds the run's whole state (its task, lease and
 * closures) until the next full collection.
 */
export class RunContext implements EnsureContext {
  // declared only: the constructor defines them, in the literal's order
  declare readonly signal: AbortSignal;
  declare readonly extend: EnsureActions['extend'];
  declare readonly progress: EnsureActions['progress'];
  declare readonly log: EnsureActions['log'];
  declare readonly spawn: EnsureActions['spawn'];
  declare readonly rateLimit: EnsureActions['rateLimit'];
  readonly #controller: LazyAbort;

  private static readonly signalProperty: PropertyDescriptor = {
    get(this: RunContext): AbortSignal {
      return this.#controller.signal;
    },
    enumerable: true,
    configurable: true,
  };

  constructor(
    controller: LazyAbort,
    extend: EnsureActions['extend'],
    progress: EnsureActions['progress'],
    log: EnsureActions['log'],
    spawn: EnsureActions['spawn'],
    rateLimit: EnsureActions['rateLimit'],
  ) {
    this.#controller = controller;
    Object.defineProperty(this, 'signal', RunContext.signalProperty);
    // writable, enumerable and configurable, as a literal's
    (this as { extend: EnsureActions['extend'] }).extend = extend;
    (this as { progress: EnsureActions['progress'] }).progress = progress;
    (this as { log: EnsureActions['log'] }).log = log;
    (this as { spawn: EnsureActions['spawn'] }).spawn = spawn;
    (this as { rateLimit: EnsureActions['rateLimit'] }).rateLimit = rateLimit;
  }
}
