import type { TaskTimeoutError } from '../errors.js';

// The outcome rules of one attempt, apart from running it: the Worker runs a
// handler (Worker.runAttempt, an AttemptEnd), gathers what it knows at the
// end (AttemptFacts), and asks settle() what to do with the task. settle()
// touches neither Redis nor the clock, so spec/worker/settle.spec.ts tests
// the rules alone; the Worker carries out the Settlement.

/** AttemptEnd is how the handler's `ensure` ended. */
export type AttemptEnd =
  /** it resolved, with a result that can be kept: `fields` are the outcome's (Attempt.completed) */
  | { readonly kind: 'resolved'; readonly fields: string }
  /** it rejected (or its result could not be kept) with `error`, which may be any value */
  | { readonly kind: 'rejected'; readonly error: unknown };

/** AttemptFacts is what the Worker knows of an attempt once its handler ended. */
export interface AttemptFacts {
  readonly end: AttemptEnd;
  /** A cancel of the task reached this worker while the handler ran: the task is gone from the queue. */
  readonly cancelled: boolean;
  /** The lease was lost while the handler ran (another owner may hold the task now). */
  readonly leaseLost: boolean;
  /** The handler ran past its timeout: the error its signal aborted with. */
  readonly timedOut: TaskTimeoutError | undefined;
  /** The handler's signal aborted for another reason: stop()'s grace period ran out, or the engine closed. */
  readonly aborted: boolean;
  /** The worker owns the task (a claim), rather than running a broadcast copy. */
  readonly owned: boolean;
  /** The engine closed: there is no connection left to give the task back on. */
  readonly closed: boolean;
  /** Why the signal aborted when the handler rejected with nothing better: the close's error, or stop()'s. */
  readonly stopCause: unknown;
}

/** Settlement is what becomes of an attempt's task, by the first rule that applies. */
export type Settlement =
  /** cancelled: nothing of the attempt is kept and no event is emitted */
  | { readonly kind: 'dropped' }
  /** the lease was lost: nothing is written; `task:failed` only when the handler rejected (`failed`) */
  | { readonly kind: 'lost'; readonly failed: boolean; readonly error: unknown }
  /**
   * the handler timed out, whatever ensure answered: `task:failed`, and the
   * failed attempt recorded (`record`, owned tasks) while the task stays
   * owned until its lease ends
   */
  | { readonly kind: 'timedOut'; readonly error: TaskTimeoutError; readonly record: boolean }
  /**
   * cut short (stop's grace ran out, or the engine closed), whatever ensure
   * answered: `task:failed`, and the task given back at once with the
   * attempt (`release`: owned, and the engine still open), no cycle counted
   */
  | { readonly kind: 'cutShort'; readonly error: unknown; readonly release: boolean }
  /**
   * the handler rejected: `task:failed` and the failure event; an owned task
   * (`settle`) is retried by its retry policy or recorded as failed until its
   * lease ends (Worker.settleFailure)
   */
  | { readonly kind: 'failed'; readonly error: unknown; readonly settle: boolean }
  /** the handler resolved: the task is completed with the outcome's `fields` */
  | { readonly kind: 'completed'; readonly fields: string };

const dropped: Settlement = { kind: 'dropped' };

/**
 * settle applies the outcome rules, in this order: a cancel, a lost lease, a
 * timeout, a signal aborted by stop() or close(), a rejection, else the task
 * is completed.
 */
export function settle(facts: AttemptFacts): Settlement {
  const { end } = facts;
  if (facts.cancelled) return dropped;
  if (facts.leaseLost) {
    return end.kind === 'rejected'
      ? { kind: 'lost', failed: true, error: end.error }
      : { kind: 'lost', failed: false, error: undefined };
  }
  if (facts.timedOut !== undefined) {
    return { kind: 'timedOut', error: facts.timedOut, record: facts.owned };
  }
  if (facts.aborted) {
    const error = (end.kind === 'rejected' ? end.error : undefined) ?? facts.stopCause;
    return { kind: 'cutShort', error, release: facts.owned && !facts.closed };
  }
  if (end.kind === 'rejected') return { kind: 'failed', error: end.error, settle: facts.owned };
  return { kind: 'completed', fields: end.fields };
}
