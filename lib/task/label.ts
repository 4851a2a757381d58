/**
 * Label names every reserved key of the engine. This file is the only place in
 * lib/ that spells the `rescue.io` scheme; everything else, Lua included (via
 * the generated prelude), refers to these names.
 */
export const Label = {
  /** core, copy passed to `delete`: `'true'` skips the ownership check; never stored. */
  Bypass: 'task.rescue.io/bypass',
  /** core: circuit breaker; a positive integer N halts the task once cycles ≥ N. */
  Cancel: 'task.rescue.io/cancel',
  /**
   * core: the task's priority, a decimal integer from -2147483648 to 2147483647
   * (32-bit signed, no leading zeros or `+`); absent means 0. Claims take the
   * highest priority first, then the oldest (docs/semantics.md §3.13). Set with
   * create, like Cancel; kept across cycles; a cron template's children have it.
   */
  Priority: 'task.rescue.io/priority',
  /**
   * core: the task's own retry policy, in the interval language
   * (`exponential 1 second .. 1 hour x 5`, `fixed 30 seconds`; lib/schedule/retry.ts);
   * it wins over its handler's. Set with create, like Cancel.
   */
  Retry: 'task.rescue.io/retry',
  /**
   * core: when a task a retry policy gave back after a failure may run again,
   * formatTime; until then it waits like a deferred task. Written by the
   * worker's retry (retry.lua), kept until the next retry or the task's end.
   */
  RetryAt: 'task.rescue.io/retry-at',
  /** core: revocations plus requeues, a decimal integer; absent means 0. */
  Cycles: 'task.rescue.io/cycles',
  /** core: end of the ownership lease, formatTime. */
  Expiry: 'task.rescue.io/expiry',
  /** core: the task's object id; root of an emitted child: its template's id. */
  Object: 'task.rescue.io/object',
  /** core: the owning worker; node: the only worker a `uni` task goes to. */
  Worker: 'task.rescue.io/worker',
  /**
   * core: the fencing token of the current claim, a decimal number that grows
   * with every claim in the queue; `delete` and `extend` pass only with a copy
   * of this claim. Written by `search`, removed with the worker.
   */
  Token: 'task.rescue.io/token',
  /**
   * core: the W3C trace context (`traceparent`) of the span that created the
   * task, when the creating engine traces (rescue-engine/tracing); the worker's
   * span for the task continues that trace. Written by `create`; kept across
   * cycles; not passed on to the children of a template.
   */
  Trace: 'task.rescue.io/trace',
  /**
   * core: the key of a task created with `unique` (`create(task, { unique })`):
   * no other task of the queue holds it while this one lives, nor for the
   * unique `ttl` after it ended. Written by `create`; kept across cycles.
   */
  Unique: 'task.rescue.io/unique',
  /**
   * core: the name of a cron template made by `engine.schedule(name, template)`;
   * the queue has at most one template of each name. Written by `schedule`.
   */
  Schedule: 'task.rescue.io/schedule',
  /** node: delivery method, one of Method. */
  Method: 'addr.rescue.io/method',
  /** sync: requeue pointer; a value other than '', blanks or '0' pages again. */
  Paging: 'sync.rescue.io/paging',
  /** cron of a copy passed to `delete`: run me again after this duration. */
  Defer: 'time.rescue.io/@defer',
  /** cron: interval expression; marks a cron template. */
  Every: 'time.rescue.io/@every',
  /** cron: one-shot time. */
  Exact: 'time.rescue.io/@exact',
  /** cron: a template's last tick, formatTime. */
  TickM1: 'time.rescue.io/tick-1',
  /** cron: a template's next tick, or a deferred task's earliest re-run, formatTime. */
  TickP1: 'time.rescue.io/tick+1',
} as const;

/** Method names the delivery methods of `node[Label.Method]`. */
export const Method = { All: 'all', Any: 'any', Uni: 'uni' } as const;

/** Gate names the reserved values of the gate map. */
export const Gate = { Trigger: 'trigger', Waiting: 'waiting', Deleted: 'deleted' } as const;

/** The substring that marks a key as reserved. */
export const reservedScheme = 'rescue.io';

/** Bypass values a copy passed to `delete` may carry. */
export const Bypass = { True: 'true', False: 'false' } as const;

/** The prefix of every Redis key of the engine (`keyfmt()` is `rescue.io:{<queue>}`). */
export const keyScheme = 'rescue.io';
