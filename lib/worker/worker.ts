import { EventEmitter } from 'node:events';
import type { Engine } from '../engine/engine.js';
import {
  claimedLeaseEnd,
  completeLocally,
  completeTask,
  claimTasks,
  deleteThenSearch,
  engineContext,
  failTask,
  filterList,
  nextDueMs,
  nextTickMs,
  prepareSpawn,
  releaseTask,
  retryTask,
  searchFor,
  unparkSlots,
  type FilterList,
  type Parking,
} from '../engine/runtime.js';
import { assertOpen } from '../engine/context.js';
import { recordFailure as recordFailedEvent } from '../engine/events.js';
import { watchChannel } from '../engine/keys.js';
import { notify, runEnsure } from '../engine/observe.js';
import { checkLayout } from '../engine/layout.js';
import { TaskCancelledError, TaskOutdatedError, TaskTimeoutError } from '../errors.js';
import { Label } from '../task/label.js';
import type { Task } from '../task/task.js';
import { formatTime } from '../task/time.js';
import { handlerPolicy, readHandlers, requireEngine } from './arguments.js';
import { Attempt } from './attempt.js';
import { settle, type AttemptEnd } from './settle.js';
import { BackgroundLoop } from './background.js';
import { Claims } from './batch.js';
import { Completions } from './completions.js';
import { DeclinedTasks } from './declined.js';
import { EarlyCancels } from './early-cancels.js';
import { describe } from '../task/describe.js';
import { RunContext } from './ensure-context.js';
import { bindWorker } from './engine-of.js';
import type { WorkerEvents } from './events.js';
import {
  handlerTimeout,
  pickHandler,
  searchFilters,
  type EnsureContext,
  type Handler,
} from './handler.js';
import { isLost, LazyAbort, Lease, type LeaseTerms } from './lease.js';
import {
  leaseMarginMs,
  resolveWorkerOptions,
  type ResolvedWorkerOptions,
  type WorkerOptions,
} from './options.js';
import { Heartbeat } from './presence.js';
import { retryPlan, taskPolicy } from './retry.js';
import { WakeUp } from './wake.js';

const none: string[] = [];

/** How long a slot backs off after Redis failed, at first and at most (ms). */
const backoff = { firstMs: 100, maxMs: 5_000 } as const;

/**
 * Worker runs the loop every rescue worker needs: search for a task its
 * handlers take, run the first matching handler's `ensure`, delete the task
 * when ensure resolves, keep the lease while it runs, and take part in
 * running `expire` and `ticker` for the whole queue. Idle workers sleep until
 * the queue announces claimable work.
 *
 *     const worker = new Worker(engine, [resizeHandler, notifyHandler], { concurrency: 4 });
 *     worker.on('task:failed', (task, error) => log(error));
 *     await worker.start();
 *     ...
 *     await worker.stop();
 */
export class Worker extends EventEmitter<WorkerEvents> {
  private readonly options: ResolvedWorkerOptions;
  private readonly handlers: readonly Handler[];
  /**
   * The handlers' filters, as the search script reads them, once per turn of
   * their rotation: each search tries them all, starting one further each time.
   */
  private readonly filterTurns: FilterList[];
  private nextTurn = 0;
  private wake: WakeUp | undefined;
  /** The worker's presence in Redis (engine.workers()), while it runs. */
  private heartbeat: Heartbeat | undefined;
  private loops: BackgroundLoop[] = [];
  private slots: Promise<void>[] = [];
  private taking = false;
  /** idle (never started, start failed, or stopped), starting, running, stopping */
  private state: 'idle' | 'starting' | 'running' | 'stopping' = 'idle';
  private starting: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;
  /** Set when engine.close() came while the worker ran: the reason its ensures were aborted with. */
  private closedBy: Error | undefined;
  private readonly onEngineClose = (reason: Error) => this.engineClosed(reason);
  /** Tasks being ensured: the controller of their signal. */
  private readonly running = new Map<string, LazyAbort>();
  /** The leases of the tasks being ensured (broadcast tasks have none). */
  private readonly leases = new Map<string, Lease>();
  /** How this worker's leases are planned: the engine's expiry and clock, the options. */
  private readonly leaseTerms: LeaseTerms;
  /**
   * Tasks still being ensured although their lease was lost: this worker must
   * not claim them again meanwhile (expire may have offered them anew), or one
   * process would run the same task twice at once.
   */
  private readonly lapsed = new Set<string>();
  /** Completions of the slots, sent to Redis together when several finish at once. */
  private readonly completions: Completions;
  /** The reason the signals of running ensures abort with when stop()'s grace period runs out. */
  private readonly graceError = new Error('Worker.stop: the grace period ran out');
  /** Tasks none of the handlers took: id -> until when (performance.now ms) they are skipped. */
  private readonly declined = new DeclinedTasks();
  /** Slots whose last completion's search found no work, and so parked. */
  private readonly completedAndParked = new Set<number>();
  /** Tasks being ensured that engine.cancel stopped: their handlers' signals aborted. */
  private readonly cancelled = new Set<string>();
  /** Cancels heard for tasks this worker does not run yet: their claims' replies are on their way. */
  private readonly earlyCancels = new EarlyCancels();
  /** Each slot's parking, the same for every search of the slot. */
  private readonly parkings: Parking[];
  /** The free slots' searches, sent together (option `batch` above 1). */
  private readonly claims: Claims | undefined;

  /**
   * Checks every argument here, so a worker that was built runs: a TypeError
   * for an engine or handlers of the wrong kind and for bad options, a
   * RangeError for an option beyond its bound, a RescueError for handler
   * labels that are not a valid query. `options` null means the defaults.
   */
  constructor(
    private readonly engine: Engine,
    handlers: Handler[],
    options?: WorkerOptions | null,
  ) {
    super();
    requireEngine(engine);
    bindWorker(this, engine);
    this.handlers = readHandlers(handlers);
    this.options = resolveWorkerOptions(options);
    this.leaseTerms = this.resolveLeaseTerms();
    const filters = searchFilters(this.handlers).filter((filter) => filter !== undefined);
    this.filterTurns =
      filters.length === 0
        ? [filterList([])]
        : filters.map((_, turn) => filterList([...filters.slice(turn), ...filters.slice(0, turn)]));
    this.parkings = Array.from({ length: this.options.concurrency }, (_, slot) =>
      this.slotParking(slot),
    );
    this.completions = new Completions(
      (batch) => deleteThenSearch(this.engine, batch, this.skipped()),
      this.options.concurrency,
      this.options.batch,
    );
    this.claims =
      this.options.batch > 1
        ? new Claims(
            (parkings) => claimTasks(this.engine, this.nextFilters(), parkings, this.skipped()),
            this.options.batch,
          )
        : undefined;
  }

  private resolveLeaseTerms(): LeaseTerms {
    const { options, clock } = engineContext(this.engine);
    return {
      expiryMs: options.expiry,
      marginMs: leaseMarginMs(this.options, options.expiry),
      autoExtend: this.options.autoExtend,
      timeScale: this.options.timeScale,
      clock,
    };
  }

  /** stopRequested: stop() was called (read through a getter, so the compiler does not assume it). */
  private get stopRequested(): boolean {
    return !this.taking;
  }

  /**
   * start checks the queue's layout, subscribes to its wake-up channel and
   * starts the slots and background loops. A start that failed (Redis away)
   * leaves the worker as it was before, so start() may be called again; so
   * may a worker stop() stopped.
   */
  async start(): Promise<void> {
    if (this.state === 'stopping')
      throw new Error('Worker.start: stop() is under way; await it before starting again');
    if (this.state !== 'idle') throw new Error('Worker.start: already started');
    this.state = 'starting';
    this.starting = this.open();
    try {
      await this.starting;
    } finally {
      this.starting = undefined;
    }
  }

  private async open(): Promise<void> {
    const context = engineContext(this.engine);
    try {
      assertOpen(context, 'Worker.start');
      await checkLayout(context);
      this.wake = new WakeUp(
        context.connection,
        context.keys.signal,
        this.engine.worker,
        context.clock,
        (error) => this.report(error),
        this.options.timeScale,
        this.options.concurrency,
        context.keys.control,
      );
      this.wake.onControl = (message) => this.control(message);
      await this.wake.start();
      assertOpen(context, 'Worker.start'); // closed while the subscription was made
    } catch (error) {
      await this.wake?.stop();
      this.wake = undefined;
      this.state = 'idle';
      throw error;
    }
    this.closedBy = undefined;
    context.closeHooks.add(this.onEngineClose);
    this.state = 'running';
    this.taking = true;
    this.heartbeat = new Heartbeat(
      context,
      {
        concurrency: this.options.concurrency,
        handlers: this.handlers.map((handler) => handler.labels ?? null),
        ttl: this.options.presenceTtl,
      },
      this.options.heartbeatInterval,
      () => this.running.size,
      (error) => this.report(error),
    );
    this.heartbeat.start();
    this.slots = Array.from({ length: this.options.concurrency }, (_, index) => this.slot(index));
    if (this.options.background) this.startLoops();
  }

  /**
   * stop stops taking work and waits for the running ensures; when the
   * stopTimeout option runs out first, their signals are aborted. Tasks a slot
   * claimed but had not started are released. Then the background leases are
   * released. The engine stays open, and the worker may start again. During
   * a Redis outage it ends within stopTimeout + 2 x the engine's
   * connectTimeout, once the handlers returned after their signals aborted:
   * the slots' last calls get one connectTimeout, the shutdown's another.
   */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown().finally(() => {
      this.stopping = undefined;
    });
    return this.stopping;
  }

  private async shutdown(): Promise<void> {
    // a start under way settles first (without one, the state changes at once)
    if (this.starting !== undefined) await this.starting.catch(() => {});
    if (this.state !== 'running') return; // never started, or its start failed
    this.state = 'stopping';
    this.taking = false;
    this.wake?.notify();
    let timer: NodeJS.Timeout | undefined;
    if (this.options.stopTimeout !== undefined) {
      timer = setTimeout(() => {
        for (const controller of this.running.values()) controller.abort(this.graceError);
      }, this.options.stopTimeout);
    }
    await Promise.all(this.slots);
    clearTimeout(timer);
    await this.farewell();
    this.heartbeat = undefined;
    engineContext(this.engine).closeHooks.delete(this.onEngineClose);
    this.slots = [];
    this.loops = [];
    this.wake = undefined;
    this.state = 'idle';
  }

  /**
   * farewell ends what the worker keeps in Redis besides its tasks: no
   * wake-up goes to its slots any more, the background loops give back their
   * locks, the wake-up subscription closes, the presence is deleted. These
   * run at once and get the engine's connectTimeout together: during an
   * outage each would wait for it in turn, and what is left undone runs out
   * by itself (the slots' parking, the locks and the presence end in Redis).
   */
  private async farewell(): Promise<void> {
    const heartbeat = this.heartbeat;
    const steps: Promise<unknown>[] = [
      unparkSlots(
        this.engine,
        this.slots.map((_, slot) => String(slot)),
      ).catch((error: unknown) => this.report(error)),
      ...this.loops.map((loop) => loop.stop()),
      this.wake?.stop() ?? Promise.resolve(),
    ];
    if (this.closedBy === undefined && heartbeat !== undefined)
      steps.push(heartbeat.stop().catch((error: unknown) => this.report(error)));
    const graceMs = engineContext(this.engine).options.connectTimeout;
    let timer: NodeJS.Timeout | undefined;
    const done = await Promise.race([
      Promise.all(steps).then(() => true),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), graceMs))),
    ]);
    clearTimeout(timer);
    if (done) return;
    heartbeat?.halt(); // its connection goes; the presence runs out
    this.report(
      new Error(
        `Worker.stop: Redis did not answer the shutdown within ${graceMs} ms (the engine's connectTimeout); ` +
          `the slots' parking, the background locks and the presence run out by themselves`,
      ),
    );
  }

  /**
   * engineClosed runs when engine.close() comes while the worker runs (the
   * engine's connection closes right after): the slots stop taking work, the
   * running ensures' signals abort with the engine's reason, the loops and the
   * wake-up subscription stop. Tasks under way are neither deleted nor
   * released (there is no connection left): their leases run out. One error
   * says so; what fails afterwards because the connection is gone is not
   * reported. stop() still waits for the ensures to return.
   */
  private async engineClosed(reason: Error): Promise<void> {
    const cut = this.running.size;
    this.report(
      new Error(
        `Worker: engine.close() was called while the worker ran; it stopped taking work` +
          (cut > 0
            ? ` and aborted ${cut} running ensure(s), whose tasks stay owned until their leases end`
            : '') +
          '. Call worker.stop() before engine.close().',
      ),
    );
    this.closedBy = reason;
    this.taking = false;
    for (const controller of this.running.values()) controller.abort(reason);
    for (const loop of this.loops) void loop.stop();
    this.heartbeat?.halt(); // the presence runs out by itself
    await this.wake?.stop();
  }

  private startLoops(): void {
    const context = engineContext(this.engine);
    const client = context.connection.client;
    const expire = new BackgroundLoop(
      client,
      context.keys.expireLock,
      this.options.expireInterval,
      () => this.engine.expire(),
      () => this.emit('expire:done'),
      (error) => this.report(error),
    );
    const ticker = new BackgroundLoop(
      client,
      context.keys.tickerLock,
      this.options.tickerInterval,
      () => this.engine.ticker(),
      () => this.emit('ticker:done'),
      (error) => this.report(error),
      // the next template tick may come before the next interval (one that is
      // past already was due at the run that just ended: not sooner)
      async () => {
        const tickMs = await nextTickMs(this.engine);
        const nowMs = context.clock().getTime();
        return tickMs === undefined || tickMs <= nowMs
          ? undefined
          : (tickMs - nowMs) / this.options.timeScale + 1;
      },
    );
    this.loops = [expire, ticker];
    for (const loop of this.loops) loop.start();
    // a template created or advanced elsewhere may tick before the next run
    if (this.wake !== undefined) {
      this.wake.onTick = (tickMs) =>
        ticker.runIn(
          Math.max(0, (tickMs - context.clock().getTime()) / this.options.timeScale) + 1,
        );
    }
  }

  /** slot is one lane of work: claim, ensure, complete (and claim the next in the same step). */
  private async slot(index: number): Promise<void> {
    let next: Task | undefined;
    let failures = 0;
    // the slot's wake-up generation before its last search that found nothing
    let idleSince: number | undefined;
    while (this.taking) {
      let task = next;
      next = undefined;
      if (task === undefined && idleSince !== undefined) {
        // the search that found nothing parked the slot: wait for its wake-up
        const dueMs = nextDueMs(this.engine);
        if (dueMs !== undefined) this.wake?.wakeAt(dueMs);
        await this.wake?.wait(index, idleSince, this.options.pollInterval);
        idleSince = undefined;
        continue;
      }
      if (task === undefined) {
        const since = this.wake?.generation(index) ?? 0;
        try {
          task = await this.acquire(index);
          failures = 0;
        } catch (error) {
          // Redis is away: report, back off, and go on once it answers again
          this.report(error);
          failures++;
          await this.wake?.pause(Math.min(backoff.maxMs, backoff.firstMs * 2 ** failures));
          continue;
        }
        if (task === undefined) {
          idleSince = since;
          continue;
        }
        // stop() came while the search ran: the claim is given back below
        if (this.stopRequested) {
          next = task;
          break;
        }
      }
      const since = this.wake?.generation(index) ?? 0;
      try {
        next = await this.work(task, index);
        // the search after the completion found nothing and parked the slot
        if (next === undefined && this.completedAndParked.delete(index)) idleSince = since;
      } catch (error) {
        this.report(error);
      }
    }
    // claimed in the last step but not started: give it back at once
    if (next !== undefined) await this.release(next);
  }

  /** acquire searches with every filter, in turn, starting one further than the last search. */
  private acquire(slot: number): Promise<Task | undefined> {
    if (this.claims !== undefined) return this.claims.claim(this.parking(slot));
    return searchFor(this.engine, this.nextFilters(), this.skipped(), this.parking(slot));
  }

  /** parking: where a slot waits when its search finds no work, and for how long its place holds. */
  private parking(slot: number): Parking {
    return this.parkings[slot] ?? this.slotParking(slot);
  }

  private slotParking(slot: number): Parking {
    return {
      slot: String(slot),
      // a live slot searches again after pollInterval; three missed polls: it is gone
      forMs: 3 * this.options.pollInterval * this.options.timeScale,
    };
  }

  /**
   * skipped lists the tasks this worker's searches pass over: declined tasks
   * still skipped (the others are forgotten), and lapsed ones still running.
   */
  private skipped(): string[] {
    if (this.declined.size === 0 && this.lapsed.size === 0) return none;
    return [...this.declined.ids(), ...this.lapsed];
  }

  private nextFilters(): FilterList {
    const filters = this.filterTurns[this.nextTurn % this.filterTurns.length] as FilterList;
    this.nextTurn++;
    return filters;
  }

  /**
   * work runs one task to its end and, when the worker goes on taking work,
   * completes it together with claiming the next (returned).
   */
  private async work(task: Task, slot: number): Promise<Task | undefined> {
    const context = engineContext(this.engine);
    if (context.observers.size > 0) {
      const nowMs = context.clock().getTime();
      notify(context, (observer) => observer.claimed?.(task, nowMs));
    }
    const id = task.core?.[Label.Object] ?? '';
    const owned = task.core?.[Label.Worker] !== undefined;
    // Still running here: a broadcast task whose local lease ran out, or (a
    // search that was under way when the lease lapsed) a task claimed again.
    if (this.running.has(id)) {
      if (owned) {
        // search hands out only tasks without an owner: the run under way lost
        // its lease meanwhile, although its renewals, by the same worker id, pass
        this.leases
          .get(id)
          ?.lose(new TaskOutdatedError(`Worker: task ${id} was claimed again while it ran`));
        await this.release(task);
      }
      return undefined;
    }
    // its cancel overtook the claim's reply: the task is gone, it does not start
    if (this.earlyCancels.size > 0 && this.earlyCancels.take(id)) {
      if (owned)
        this.emit('task:lost', task, new TaskCancelledError(`Worker: task ${id} was cancelled`));
      return undefined;
    }
    let handler: Handler | undefined;
    try {
      handler = pickHandler(this.handlers, task);
    } catch (error) {
      this.report(error); // a filter that throws takes nothing
    }
    if (handler === undefined) {
      // a broadcast task no handler takes is done here: it never comes back
      if (owned) {
        this.declined.decline(id);
        await this.release(task);
      } else {
        completeLocally(this.engine, id);
      }
      this.emit('task:declined', task);
      return undefined;
    }

    const lease = owned
      ? new Lease(
          this.engine,
          task,
          this.leaseTerms,
          (error) => {
            if (this.running.has(id)) this.lapsed.add(id);
            this.emit('task:lost', task, error);
          },
          (error) => this.report(error),
        )
      : undefined;
    const controller = lease?.controller ?? new LazyAbort();
    const attempt = new Attempt(this.leaseTerms.clock);
    let holdMs: number | undefined;
    const ensureContext: EnsureContext = new RunContext(
      controller,
      () => (lease === undefined ? Promise.resolve() : lease.extend()),
      (value) => this.progress(task, value),
      (line) => attempt.log(line),
      (child) => attempt.spawn(prepareSpawn(this.engine, child)),
      (ms) => {
        const asked = readHoldMs(ms);
        holdMs = Math.max(holdMs ?? 0, asked);
      },
    );
    this.running.set(id, controller);
    if (lease !== undefined) {
      this.leases.set(id, lease);
      const begun = this.begin(task, lease);
      if (begun !== true && !(await begun)) return undefined;
    }
    const started = performance.now();
    const { end, timedOut } = await this.runAttempt(
      task,
      handler,
      ensureContext,
      attempt,
      controller,
      lease,
    );
    const durationMs = performance.now() - started;
    if (context.observers.size > 0) {
      const failed = end.kind === 'rejected';
      notify(context, (observer) => observer.handled?.(task, durationMs, failed));
    }
    // context.rateLimit: back to the queue without a cycle, its values held
    // (a task lost, cancelled or cut short meanwhile is settled as such)
    if (
      holdMs !== undefined &&
      owned &&
      lease?.lost !== true &&
      !controller.isAborted &&
      !this.cancelled.has(id) &&
      this.closedBy === undefined
    ) {
      await this.release(task, undefined, holdMs);
      this.emit('task:rateLimited', task, { holdMs });
      return undefined;
    }
    const settlement = settle({
      end,
      cancelled: this.cancelled.delete(id),
      leaseLost: lease?.lost === true,
      timedOut,
      aborted: controller.isAborted,
      owned,
      closed: this.closedBy !== undefined,
      stopCause: this.closedBy ?? this.graceError,
    });
    switch (settlement.kind) {
      case 'dropped': // gone from the queue: nothing to keep
        return undefined;
      case 'lost':
        if (settlement.failed) this.failed(task, settlement.error);
        return undefined;
      case 'timedOut':
        // the task stays owned until its lease ends, and expire offers it
        // again one cycle more
        this.failed(task, settlement.error);
        if (settlement.record) {
          const fields = attempt.failed(this.engine.worker, settlement.error);
          await this.recordFailure(task, 'timeout', fields);
        }
        return undefined;
      case 'cutShort':
        // the work was cut short, so the task goes back to the queue (no
        // cycle) instead of being deleted or held until its lease ends; after
        // engine.close() there is no connection to give it back on. The
        // attempt is kept with it: a handler ran (run's acceptTimeout asks)
        this.failed(task, settlement.error);
        if (settlement.release)
          await this.release(task, attempt.failed(this.engine.worker, settlement.error));
        return undefined;
      case 'failed':
        this.failed(task, settlement.error);
        // for `rescue tail`: the script events cannot know of a failure
        recordFailedEvent(engineContext(this.engine), id, settlement.error).catch(
          (error: unknown) => this.report(error),
        );
        if (settlement.settle)
          await this.settleFailure(
            task,
            handler,
            attempt.failed(this.engine.worker, settlement.error),
            settlement.error,
          );
        return undefined;
      case 'completed':
        return this.complete(task, slot, lease, durationMs, settlement.fields, attempt.children());
    }
  }

  /**
   * runAttempt runs the handler's ensure once, under its timeout (which
   * aborts the signal), and answers how it ended; the worker no longer runs
   * the task afterwards (forget). What becomes of the task is settle()'s.
   */
  private async runAttempt(
    task: Task,
    handler: Handler,
    ensureContext: EnsureContext,
    attempt: Attempt,
    controller: LazyAbort,
    lease: Lease | undefined,
  ): Promise<{ end: AttemptEnd; timedOut: TaskTimeoutError | undefined }> {
    const context = engineContext(this.engine);
    const id = task.core?.[Label.Object] ?? '';
    let end: AttemptEnd;
    const timeout = handlerTimeout(handler, task);
    let timedOut: TaskTimeoutError | undefined;
    const timer =
      timeout === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = new TaskTimeoutError(
              `Worker: the handler of task ${id} ran longer than its timeout of ${timeout} ms`,
            );
            controller.abort(timedOut);
          }, timeout);
    attempt.start();
    try {
      const result = await (context.observers.size === 0
        ? handler.ensure(task, ensureContext)
        : runEnsure(context, task, () => handler.ensure(task, ensureContext)));
      // a result that cannot be kept with the outcome fails the attempt
      end = { kind: 'resolved', fields: attempt.completed(result) };
    } catch (error) {
      end = { kind: 'rejected', error };
    } finally {
      clearTimeout(timer);
      this.forget(id, lease);
    }
    return { end, timedOut };
  }

  /**
   * begin readies the lease of a claimed task before its handler starts. A
   * claim that came too late, whose renewal failed, or that stop() overtook
   * is not started: it is given back (if still owned).
   */
  private begin(task: Task, lease: Lease): boolean | Promise<boolean> {
    const ready = lease.begin(claimedLeaseEnd(task));
    if (ready === true && !lease.lost && !this.stopRequested) return true;
    return this.notBegun(task, lease, ready);
  }

  /** notBegun waits for a lease that had to be renewed first, and gives back a claim that may not start. */
  private async notBegun(
    task: Task,
    lease: Lease,
    ready: boolean | Promise<boolean>,
  ): Promise<boolean> {
    if ((await ready) && !lease.lost && !this.stopRequested) return true;
    this.forget(task.core?.[Label.Object] ?? '', lease);
    await this.release(task);
    return false;
  }

  /** forget ends the bookkeeping of a task this worker no longer runs. */
  private forget(id: string, lease: Lease | undefined): void {
    lease?.stop();
    this.running.delete(id);
    this.leases.delete(id);
    this.lapsed.delete(id);
  }

  /** complete deletes an ensured task; while taking work, in one step with the next claim. */
  private async complete(
    task: Task,
    slot: number,
    lease: Lease | undefined,
    durationMs: number,
    fields: string,
    children: string,
  ): Promise<Task | undefined> {
    try {
      let next: Task | undefined;
      if (this.taking) {
        const outcome = await this.completions.complete(
          {
            task,
            filters: this.nextFilters(),
            parking: this.parking(slot),
            outcome: fields,
            children,
          },
          slot,
        );
        if (!outcome.deleted) throw outcome.error;
        if (outcome.searchError !== undefined) this.report(outcome.searchError);
        next = outcome.next;
        if (next === undefined && outcome.searchError === undefined)
          this.completedAndParked.add(slot);
      } else {
        await completeTask(this.engine, task, fields, children);
      }
      this.emit('task:ensured', task, { durationMs });
      return next;
    } catch (error) {
      if (isLost(error)) {
        if (lease !== undefined) lease.lose(error);
        else this.emit('task:lost', task, error);
      } else {
        this.report(error);
      }
      return undefined;
    }
  }

  /**
   * settleFailure settles a rejected ensure: under a retry policy (the task's
   * label, its handler's, the worker's) or with an UnrecoverableError the task
   * goes back now (retry.lua), else it waits for its lease (recordFailure).
   */
  private async settleFailure(
    task: Task,
    handler: Handler,
    fields: string,
    error: unknown,
  ): Promise<void> {
    const policy = taskPolicy(
      task,
      handlerPolicy(handler) ?? this.options.retry ?? engineContext(this.engine).options.retry,
    );
    const plan = retryPlan(policy, task, error, engineContext(this.engine).clock().getTime());
    if (plan === undefined) return this.recordFailure(task, 'failed', fields);
    try {
      await retryTask(this.engine, task, fields, plan);
    } catch (error) {
      this.report(error);
    }
  }

  /** recordFailure keeps how an attempt failed, for the task's status and, if it halts, its outcome. */
  private async recordFailure(
    task: Task,
    state: 'failed' | 'timeout',
    fields: string,
  ): Promise<void> {
    try {
      await failTask(this.engine, task, state, fields);
    } catch (error) {
      this.report(error);
    }
  }

  /**
   * control handles a message of the queue's control channel: a task this
   * worker runs was cancelled, so its handler's signal aborts now (the task
   * is gone from the queue; nothing of this attempt is kept). A cancel of a
   * task it does not run yet is kept for when the claim's reply arrives.
   */
  private control(message: string): void {
    let id: unknown;
    let owner: unknown;
    try {
      ({ c: id, w: owner } = JSON.parse(message) as { c?: unknown; w?: unknown });
    } catch {
      return;
    }
    if (typeof id !== 'string') return;
    const controller = this.running.get(id);
    if (controller === undefined) {
      // This worker's claim (or, for a broadcast task with no owner, its
      // search) may be on its way: the cancel is applied when it arrives.
      if (owner === this.engine.worker || owner === '') this.earlyCancels.heard(id);
      return;
    }
    this.cancelled.add(id);
    const error = new TaskCancelledError(`Worker: task ${id} was cancelled`);
    const lease = this.leases.get(id);
    if (lease !== undefined) lease.lose(error);
    else controller.abort(error);
  }

  /** failed emits `task:failed` and tells the engine's observers (metrics). */
  private failed(task: Task, error: unknown): void {
    notify(engineContext(this.engine), (observer) => observer.failed?.(task));
    this.emit('task:failed', task, error);
  }

  private async release(task: Task, cutShort?: string, holdMs?: number): Promise<void> {
    try {
      await releaseTask(this.engine, task, cutShort, holdMs);
    } catch (error) {
      this.report(error);
    }
  }

  /** progress tells the queue's progress channel, and the waiters of the task (its watch channel). */
  private async progress(task: Task, value: unknown): Promise<void> {
    const context = engineContext(this.engine);
    this.emit('task:progress', task, value);
    const id = task.core?.[Label.Object] ?? '';
    const at = context.clock();
    const progress = JSON.stringify({ id, worker: this.engine.worker, at: formatTime(at), value });
    const watched = JSON.stringify({ p: value ?? null, w: this.engine.worker, at: at.getTime() });
    // on a cluster, sharded: only the node of the queue's slot passes them on
    const { client, sharded } = context.connection;
    await Promise.all(
      sharded
        ? [
            client.spublish(context.keys.progress, progress),
            client.spublish(watchChannel(context.keys, id), watched),
          ]
        : [
            client.publish(context.keys.progress, progress),
            client.publish(watchChannel(context.keys, id), watched),
          ],
    );
  }

  /**
   * report emits 'error'. Without a listener the error goes to stderr instead
   * of crashing the process, as an unheard 'error' event would.
   */
  private report(error: unknown): void {
    if (this.closedBy !== undefined) return; // the engine closed: see engineClosed
    if (this.listenerCount('error') > 0) this.emit('error', error);
    else console.error('[rescue-engine] Worker error:', error);
  }
}

/** The longest hold context.rateLimit may ask: 30 days. */
const maxHoldMs = 2_592_000_000;

/** readHoldMs checks context.rateLimit's argument: ms from 1 to maxHoldMs, rounded up. */
function readHoldMs(ms: unknown): number {
  if (typeof ms !== 'number' || Number.isNaN(ms)) {
    throw new TypeError(`context.rateLimit: "ms" must be a number; got ${describe(ms)}`);
  }
  const whole = Math.ceil(ms);
  if (whole < 1 || whole > maxHoldMs) {
    throw new RangeError(`context.rateLimit: "ms" must be from 1 to ${maxHoldMs}; got ${ms}`);
  }
  return whole;
}
