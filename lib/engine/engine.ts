import type { Task, TaskInput } from '../task/task.js';
import { bulkAct, type BulkOptions, type BulkResult } from './bulk.js';
import { cancelTask } from './cancel.js';
import { closeConnection } from './connection.js';
import { createEngineContext, type EngineContext } from './context.js';
import { createAny, type CreateOptions } from './create.js';
import { createTasks, type CreateManyOptions } from './create-many.js';
import type { UniqueCreate, UniqueOptions } from './unique.js';
import { resetCycles } from './cycles.js';
import { deleteTask } from './delete.js';
import { runDoctor, type DoctorReport } from './doctor.js';
import { expireTasks } from './expire.js';
import { extendTask } from './extend.js';
import { bindContext } from './context-registry.js';
import { observe } from './observe.js';
import { resolveEngineOptions, type EngineOptions } from './options.js';
import { scheduleTemplate, unscheduleTemplate, type ScheduleResult } from './named-schedule.js';
import { listPage, type TaskPage, type TaskPageOptions } from './page.js';
import { pauseQueue } from './pause.js';
import { listCaps, removeCap, setCap, type Cap, type CapState } from './caps.js';
import {
  listRateLimits,
  removeRateLimit,
  setRateLimit,
  type RateLimit,
  type RateLimitState,
} from './rates.js';
import { repairQueue, type RepairReport } from './repair.js';
import { existsTask, listTasks } from './scan.js';
import { searchTask } from './search.js';
import { queueStats, type QueueStats } from './stats.js';
import { readEvents, type QueueEvent, type QueueEventsOptions } from './events.js';
import { listWorkers, type WorkerPresence } from './presence.js';
import { taskStatus, type TaskStatus } from './status.js';
import type { Outcome } from './outcome.js';
import { runTask, waitFor, type RunOptions, type WaitOptions } from './wait.js';
import { tickTemplates } from './ticker.js';

/**
 * Engine is one worker's handle on one queue: producers create tasks, workers
 * search, own, extend and delete them, and background calls to expire and
 * ticker keep ownership and schedules moving. Every state change is one
 * atomic Redis script (docs/semantics.md §5).
 */
export class Engine {
  /** worker is this engine's worker id (configured or a random UUID). */
  readonly worker: string;
  private readonly context: EngineContext;

  constructor(options: EngineOptions = {}) {
    const resolved = resolveEngineOptions(options);
    this.context = createEngineContext(resolved);
    this.worker = resolved.worker;
    bindContext(this, this.context);
  }

  /**
   * create stores a new task and returns it with its object id; the argument
   * gets the same additions. With `after`, the task is held until the task of
   * that id completes (then it joins the queue, in the same step), and
   * dropped if that task leaves the queue otherwise (cancelled with it).
   * With `unique`, no two tasks hold the same key: it answers what it did
   * (created, skipped, replaced) and the task that holds the key.
   */
  create(
    task: TaskInput,
    options: CreateOptions & { unique: UniqueOptions },
  ): Promise<UniqueCreate>;
  create(task: TaskInput, options?: CreateOptions): Promise<Task>;
  create(task: TaskInput, options?: CreateOptions): Promise<Task | UniqueCreate> {
    return observe(this.context, 'create', () => createAny(this.context, task, options));
  }

  /**
   * schedule creates or updates the cron template of a name (one per name in
   * the queue): a change of labels, payload or node keeps its ticks, a new
   * `@every` (interval or zone) starts from the new ticks. Deploys that run
   * it again leave one template; engines that run it at once too.
   */
  schedule(name: string, template: TaskInput): Promise<ScheduleResult> {
    return scheduleTemplate(this.context, name, template);
  }

  /** unschedule removes the cron template of a name; resolves true when there was one. */
  unschedule(name: string): Promise<boolean> {
    return unscheduleTemplate(this.context, name);
  }

  /**
   * createMany stores many tasks in order and returns them with their object
   * ids: one script call per chunk of `createManyChunk` (100) tasks. Every
   * task is validated as `create` validates it before anything is written
   * (the typed error names the index of the first invalid one); a chunk is
   * stored whole or not at all. The caller's objects are left as they are.
   * With `unique` (one entry a task), each task is what `create(task, {
   * unique })` would do, in order, and it answers a UniqueCreate a task.
   */
  createMany(
    tasks: readonly TaskInput[],
    options: CreateManyOptions & { unique: readonly (UniqueOptions | undefined)[] },
  ): Promise<UniqueCreate[]>;
  createMany(tasks: readonly TaskInput[], options?: CreateManyOptions): Promise<Task[]>;
  createMany(
    tasks: readonly TaskInput[],
    options?: CreateManyOptions,
  ): Promise<Task[] | UniqueCreate[]> {
    return observe(this.context, 'createMany', () => createTasks(this.context, tasks, options));
  }

  /** search returns a task now owned by this worker (or a broadcast task), or undefined when there is no work. */
  search(filter?: Task): Promise<Task | undefined> {
    return observe(this.context, 'search', () => searchTask(this.context, filter));
  }

  /** delete completes a task this worker owns: deletes it, or requeues it when it pages or defers. */
  delete(task: Task): Promise<void> {
    return observe(this.context, 'delete', () => deleteTask(this.context, task));
  }

  /** exists tells whether some task of the queue matches the query. */
  exists(query: Task): Promise<boolean> {
    return observe(this.context, 'exists', () => existsTask(this.context, query));
  }

  /** lister returns every task matching the query, oldest first, exactly as stored. */
  lister(query: Task): Promise<Task[]> {
    return observe(this.context, 'lister', () => listTasks(this.context, query));
  }

  /**
   * stats counts the queue's tasks by state (claimable, owned, waiting, halted,
   * templates, broadcast), the age of the oldest claimable task and the owners'
   * counts, from the queue's indexes in O(log N): never by reading the tasks.
   */
  stats(): Promise<QueueStats> {
    return observe(this.context, 'stats', () => queueStats(this.context));
  }

  /**
   * workers lists the queue's live workers: each running Worker keeps its
   * presence (id, host, pid, concurrency, handlers' labels, tasks running)
   * with a heartbeat; one that died drops out once its presence's TTL ran out.
   */
  workers(): Promise<WorkerPresence[]> {
    return observe(this.context, 'workers', () =>
      this.context.reach.guard(listWorkers(this.context)),
    );
  }

  /**
   * events reads the queue's recent events (created, claimed, completed, …),
   * oldest first: the newest ones, or those after an event id. The queue keeps
   * about the last 10,000. Poll with the last id to follow it (`rescue tail`).
   */
  events(options?: QueueEventsOptions): Promise<QueueEvent[]> {
    return observe(this.context, 'events', () =>
      this.context.reach.guard(readEvents(this.context, options)),
    );
  }

  /**
   * tasks lists one page of the tasks in a state (default every task), that
   * match a query when one is given; pass the page's `cursor` back for the
   * next one. Each call reads a bounded part of the state's index.
   */
  tasks(options?: TaskPageOptions): Promise<TaskPage> {
    return observe(this.context, 'tasks', () => listPage(this.context, options));
  }

  /**
   * resetTasks resets the circuit breaker of every task of a state (default
   * `halted`: the dead letters) that matches the query, so each is handed out
   * again; tasks without a breaker are skipped. A page of `tasks()` at a time,
   * one `cycles` per task; with `dryRun` it only lists them.
   */
  resetTasks(options: BulkOptions): Promise<BulkResult> {
    return bulkAct(this, 'reset', options);
  }

  /**
   * removeTasks removes every task of a state (default `all`) that matches
   * the query, whoever owns it: a delete with bypass each (an operator's
   * delete: removed, not completed; outcome `removed`). With `dryRun` it
   * only lists them.
   */
  removeTasks(options: BulkOptions): Promise<BulkResult> {
    return bulkAct(this, 'remove', options);
  }

  /**
   * cancelTasks cancels every task of a state (default `all`) that matches
   * the query (`cancel` each: outcome `cancelled`, a running handler's
   * signal aborts). With `dryRun` it only lists them.
   */
  cancelTasks(options: BulkOptions): Promise<BulkResult> {
    return bulkAct(this, 'cancel', options);
  }

  /**
   * pause pauses the whole queue: from now on no search of any engine or
   * worker hands out a task (creates, completions, extends, expire and
   * ticker go on; tasks already running finish). Resolves false when it
   * was paused already. docs/semantics.md §3.14.
   *
   * With a query (a label query, as for `exists`), only the tasks it matches
   * are paused: searches hand out none of them, the others flow at full
   * speed. The ready tasks it matches are set aside before it resolves (a
   * bounded step a call); tasks that become claimable later go aside at
   * once. At most 32 queries are paused at once (a RangeError beyond).
   * Resolves false when that query was paused already. docs/semantics.md §3.17.
   *
   *     await engine.pause({ meta: { kind: 'mail' } });
   */
  pause(query?: Task): Promise<boolean> {
    return observe(this.context, 'pause', () => pauseQueue(this.context, true, query));
  }

  /**
   * resume ends a pause: searches hand out tasks again, and the workers'
   * idle slots are woken at once. Resolves false when the queue was not paused.
   * With a query, ends the pause of that query (the same labels as its
   * pause): its tasks join the ready pools again, and wake parked slots.
   */
  resume(query?: Task): Promise<boolean> {
    return observe(this.context, 'resume', () => pauseQueue(this.context, false, query));
  }

  /**
   * setCap declares a concurrency cap, or changes the one declared for the
   * same key: at most `concurrency` tasks of each value of the meta key
   * `key` owned at once (without a key: of the whole queue). The cap lives
   * in Redis: every engine and worker of the queue obeys it from its next
   * claim. Tasks already owned count. Resolves false when the same cap was
   * declared already. Throws TypeError or RangeError on a bad cap, writing
   * nothing. docs/semantics.md §3.15.
   */
  setCap(cap: Cap): Promise<boolean> {
    return observe(this.context, 'setCap', () => setCap(this.context, cap));
  }

  /**
   * removeCap removes the cap of a meta key (without a key: the whole-queue
   * cap); parked slots search again. Resolves false when there was none.
   */
  removeCap(key?: string): Promise<boolean> {
    return observe(this.context, 'removeCap', () => removeCap(this.context, key));
  }

  /** caps lists the declared caps with how many owned tasks each counts, per value. */
  caps(): Promise<CapState[]> {
    return observe(this.context, 'caps', () => listCaps(this.context));
  }

  /**
   * setRateLimit declares a rate limit, or changes the one declared for the
   * same key: at most N claims in each window for each value of the meta key
   * `key` (without a key: of the whole queue), `limit` in the interval
   * language (`'100 per minute'`). The limit lives in Redis: every engine
   * and worker of the queue obeys it from its next claim; a limited value is
   * passed over, other values flow, and a slot that found nothing else is
   * due when the window reopens. Resolves false when the same limit was
   * declared already. Throws TypeError, or TaskCronError for a rate the
   * language does not read, writing nothing. docs/semantics.md §3.16.
   */
  setRateLimit(rate: RateLimit): Promise<boolean> {
    return observe(this.context, 'setRateLimit', () => setRateLimit(this.context, rate));
  }

  /**
   * removeRateLimit removes the rate limit of a meta key (without a key: the
   * whole queue's); parked slots search again. Holds a handler made with
   * context.rateLimit stay until they end. Resolves false when there was none.
   */
  removeRateLimit(key?: string): Promise<boolean> {
    return observe(this.context, 'removeRateLimit', () => removeRateLimit(this.context, key));
  }

  /** rateLimits lists the declared rate limits. */
  rateLimits(): Promise<RateLimitState[]> {
    return observe(this.context, 'rateLimits', () => listRateLimits(this.context));
  }

  /** expire deletes tasks past retention and revokes ended leases. */
  expire(): Promise<void> {
    return observe(this.context, 'expire', () => expireTasks(this.context));
  }

  /** extend renews the lease of a task this worker owns, from now. */
  extend(task: Task): Promise<void> {
    return observe(this.context, 'extend', () => extendTask(this.context, task));
  }

  /** cycles resets a task's circuit breaker (its owner and cycle count). */
  cycles(task: Task): Promise<void> {
    return observe(this.context, 'cycles', () => resetCycles(this.context, task));
  }

  /** ticker emits the children of due cron templates and maintains their ticks. */
  ticker(): Promise<void> {
    return observe(this.context, 'ticker', () => tickTemplates(this.context));
  }

  /**
   * status tells where a task stands: queued, owned (by whom, since when,
   * until when), waiting (until when), halted, a template, held (after which
   * task), or finished (completed, failed, cancelled, timeout: its outcome, for
   * as long as it is kept). Undefined when the queue neither has the task nor
   * keeps its outcome.
   */
  status(id: string): Promise<TaskStatus | undefined> {
    return taskStatus(this.context, id);
  }

  /**
   * wait resolves with a task's outcome once it finished (at once if it has):
   * completed, with its handler's result; failed or timeout, once the
   * circuit breaker halted it; cancelled. It listens on the task's channel,
   * so a waiter in any process hears it within a round trip. Rejects with
   * WaitTimeoutError after `timeout` ms, the signal's reason when `signal`
   * aborts, TaskNotFoundError when the queue neither has the task nor keeps
   * its outcome. `onClaim` and `onProgress` hear its claims and progress.
   */
  wait(id: string, options?: WaitOptions): Promise<Outcome> {
    return waitFor(this.context, id, options);
  }

  /**
   * run creates a task and waits for its outcome (create, then wait). With
   * `acceptTimeout`, a task no worker claimed in time is removed, in one
   * step with that check, and run rejects with AcceptTimeoutError.
   */
  run(task: TaskInput, options?: RunOptions): Promise<Outcome> {
    return runTask(this.context, task, options);
  }

  /**
   * cancel stops a task from any process: one nobody claimed is removed and
   * never runs; one a worker runs is revoked, and its handler's signal
   * aborts within milliseconds (TaskCancelledError; the worker listens on the
   * queue's control channel). Its outcome is `cancelled`. Resolves true when
   * this call cancelled it, false when it had finished already; rejects with
   * TaskNotFoundError when the queue neither has it nor keeps its outcome.
   */
  cancel(id: string): Promise<boolean> {
    return cancelTask(this.context, id);
  }

  /**
   * doctor checks the Redis this engine talks to (eviction policy, persistence,
   * version, cluster mode, clock skew, the queue's layout, ACL permissions) and
   * returns a report; it only reads.
   */
  doctor(): Promise<DoctorReport> {
    return observe(this.context, 'doctor', () => this.context.reach.guard(runDoctor(this.context)));
  }

  /**
   * repair rebuilds the queue's indexes from its records, a batch at a time:
   * for indexes something else left out of step with the records, and to move
   * a queue of an older layout version to this one (which every other call
   * refuses with QueueLayoutError). A task not indexed again yet is invisible
   * to search, expire and ticker while it runs.
   */
  repair(): Promise<RepairReport> {
    return observe(this.context, 'repair', () => repairQueue(this.context));
  }

  /** keyfmt returns the queue's key prefix in Redis, `rescue.io:{<queue>}`. */
  keyfmt(): string {
    return this.context.keys.prefix;
  }

  /** listen returns host:port of the Redis this engine talks to. */
  listen(): string {
    return this.context.connection.address;
  }

  /**
   * close closes the connections this engine opened (never a client it was
   * given) and forgets its broadcast ledger. A Worker still running on the
   * engine stops taking work and its running ensures' signals abort (it
   * reports one error; see Worker).
   */
  async close(): Promise<void> {
    if (this.context.closed) return;
    this.context.closed = true;
    this.context.ledger.clear();
    // workers running on this engine stop taking work and abort their ensures first
    const hooks = [...this.context.closeHooks];
    this.context.closeHooks.clear();
    const reason = new Error('Engine.close: the engine was closed');
    const stopping = hooks.map((hook) => hook(reason));
    const watcher = this.context.watcher;
    this.context.watcher = undefined;
    await watcher?.close(new Error('Engine.close: the engine closed while waiting'));
    await closeConnection(this.context.connection);
    // ioredis keeps a command it could not send, and does not give it up when
    // the connection is then closed: its caller would wait for ever
    if (this.context.connection.owned)
      this.context.reach.rejectAll(
        new Error('Engine.close: the engine closed before Redis answered'),
      );
    await Promise.all(stopping);
  }
}
