import type { Task } from '../task/task.js';
import { closeConnection } from './connection.js';
import { createEngineContext, type EngineContext } from './context.js';
import { createTask } from './create.js';
import { resetCycles } from './cycles.js';
import { deleteTask } from './delete.js';
import { runDoctor, type DoctorReport } from './doctor.js';
import { expireTasks } from './expire.js';
import { extendTask } from './extend.js';
import { bindContext } from './handle.js';
import { resolveEngineOptions, type EngineOptions } from './options.js';
import { listPage, type TaskPage, type TaskPageOptions } from './page.js';
import { repairQueue, type RepairReport } from './repair.js';
import { existsTask, listTasks } from './scan.js';
import { searchTask } from './search.js';
import { queueStats, type QueueStats } from './stats.js';
import { readEvents, type QueueEvent, type QueueEventsOptions } from './events.js';
import { listWorkers, type WorkerPresence } from './presence.js';
import { tickTemplates } from './ticker.js';

/**
 * Engine is one worker's handle on one queue: producers create tasks, workers
 * search, own, extend and delete them, and background calls to expire and
 * ticker keep ownership and schedules moving. Every state change is one
 * atomic Redis script (semantics.md §5).
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

  /** create stores a new task and returns it with its object id; the argument gets the same additions. */
  create(task: Task): Promise<Task> {
    return createTask(this.context, task);
  }

  /** search returns a task now owned by this worker (or a broadcast task), or undefined when there is no work. */
  search(filter?: Task): Promise<Task | undefined> {
    return searchTask(this.context, filter);
  }

  /** delete completes a task this worker owns: deletes it, or requeues it when it pages or defers. */
  delete(task: Task): Promise<void> {
    return deleteTask(this.context, task);
  }

  /** exists tells whether some task of the queue matches the query. */
  exists(query: Task): Promise<boolean> {
    return existsTask(this.context, query);
  }

  /** lister returns every task matching the query, oldest first, exactly as stored. */
  lister(query: Task): Promise<Task[]> {
    return listTasks(this.context, query);
  }

  /**
   * stats counts the queue's tasks by state (claimable, owned, waiting, halted,
   * templates, broadcast), the age of the oldest claimable task and the owners'
   * counts, from the queue's indexes in O(log N): never by reading the tasks.
   */
  stats(): Promise<QueueStats> {
    return queueStats(this.context);
  }

  /**
   * workers lists the queue's live workers: each running Worker keeps its
   * presence (id, host, pid, concurrency, handlers' labels, tasks running)
   * with a heartbeat; one that died drops out once its presence's TTL ran out.
   */
  workers(): Promise<WorkerPresence[]> {
    return listWorkers(this.context);
  }

  /**
   * events reads the queue's recent events (created, claimed, completed, …),
   * oldest first: the newest ones, or those after an event id. The queue keeps
   * about the last 10,000. Poll with the last id to follow it (`rescue tail`).
   */
  events(options?: QueueEventsOptions): Promise<QueueEvent[]> {
    return readEvents(this.context, options);
  }

  /**
   * tasks lists one page of the tasks in a state (default every task), that
   * match a query when one is given; pass the page's `cursor` back for the
   * next one. Each call reads a bounded part of the state's index.
   */
  tasks(options?: TaskPageOptions): Promise<TaskPage> {
    return listPage(this.context, options);
  }

  /** expire deletes tasks past retention and revokes ended leases. */
  expire(): Promise<void> {
    return expireTasks(this.context);
  }

  /** extend renews the lease of a task this worker owns, from now. */
  extend(task: Task): Promise<void> {
    return extendTask(this.context, task);
  }

  /** cycles resets a task's circuit breaker (its owner and cycle count). */
  cycles(task: Task): Promise<void> {
    return resetCycles(this.context, task);
  }

  /** ticker emits the children of due cron templates and maintains their ticks. */
  ticker(): Promise<void> {
    return tickTemplates(this.context);
  }

  /**
   * doctor checks the Redis this engine talks to (eviction policy, persistence,
   * version, cluster mode, clock skew, the queue's layout, ACL permissions) and
   * returns a report; it only reads.
   */
  doctor(): Promise<DoctorReport> {
    return runDoctor(this.context);
  }

  /**
   * repair rebuilds the queue's indexes from its records, a batch at a time:
   * for indexes something else left out of step with the records, and to move
   * a queue of an older layout version to this one (which every other call
   * refuses with QueueLayoutError). A task not indexed again yet is invisible
   * to search, expire and ticker while it runs.
   */
  repair(): Promise<RepairReport> {
    return repairQueue(this.context);
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
    await closeConnection(this.context.connection);
    const closedError = new Error('Engine.close: the engine closed before Redis answered');
    for (const reject of this.context.pending) reject(closedError);
    this.context.pending.clear();
    await Promise.all(stopping);
  }
}
