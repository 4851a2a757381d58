import { TaskTimeoutError } from '../../lib/errors.js';
import { settle, type AttemptEnd, type AttemptFacts } from '../../lib/worker/settle.js';

// The outcome rules of an attempt, without Redis: what becomes of a task once
// its handler ended (lib/worker/settle.ts; the Worker carries it out, and the
// conformance files worker/worker-*, worker/cancel-timeout and failures/retry
// play each case on a real queue).

const resolved: AttemptEnd = { kind: 'resolved', fields: '{"r":1}' };
const failure = new Error('the handler failed');
const rejected: AttemptEnd = { kind: 'rejected', error: failure };
const timeout = new TaskTimeoutError('ran longer than its timeout');
const graceOver = new Error('Worker.stop: the grace period ran out');

/** facts of an owned attempt that ended as `end`, nothing else having happened */
function facts(end: AttemptEnd, more: Partial<AttemptFacts> = {}): AttemptFacts {
  return {
    end,
    cancelled: false,
    leaseLost: false,
    timedOut: undefined,
    aborted: false,
    owned: true,
    closed: false,
    stopCause: graceOver,
    ...more,
  };
}

describe('settle: the outcome rules of an attempt', () => {
  it('completes a task whose handler resolved, with the outcome fields', () => {
    expect(settle(facts(resolved))).toEqual({ kind: 'completed', fields: '{"r":1}' });
    // a broadcast copy (not owned) completes too: locally, by the worker
    expect(settle(facts(resolved, { owned: false }))).toEqual({
      kind: 'completed',
      fields: '{"r":1}',
    });
  });

  it('settles a rejection of an owned task (retry or record), and only reports one of a broadcast copy', () => {
    expect(settle(facts(rejected))).toEqual({ kind: 'failed', error: failure, settle: true });
    expect(settle(facts(rejected, { owned: false }))).toEqual({
      kind: 'failed',
      error: failure,
      settle: false,
    });
  });

  it('keeps whatever a handler rejected with, undefined too', () => {
    const undefinedRejection: AttemptEnd = { kind: 'rejected', error: undefined };
    expect(settle(facts(undefinedRejection))).toEqual({
      kind: 'failed',
      error: undefined,
      settle: true,
    });
  });

  it('keeps nothing of a cancelled task, whatever else happened', () => {
    for (const end of [resolved, rejected]) {
      const all = { cancelled: true, leaseLost: true, timedOut: timeout, aborted: true };
      expect(settle(facts(end, all))).toEqual({ kind: 'dropped' });
      expect(settle(facts(end, { cancelled: true }))).toEqual({ kind: 'dropped' });
    }
  });

  it('writes nothing for a lost lease: a rejection is reported, a result dropped', () => {
    expect(settle(facts(resolved, { leaseLost: true }))).toEqual({
      kind: 'lost',
      failed: false,
      error: undefined,
    });
    // a lost lease comes before a timeout and an abort
    expect(settle(facts(rejected, { leaseLost: true, timedOut: timeout, aborted: true }))).toEqual({
      kind: 'lost',
      failed: true,
      error: failure,
    });
  });

  it('fails a timed-out attempt whatever ensure answered, recorded for an owned task', () => {
    for (const end of [resolved, rejected]) {
      expect(settle(facts(end, { timedOut: timeout, aborted: true }))).toEqual({
        kind: 'timedOut',
        error: timeout,
        record: true,
      });
    }
    expect(settle(facts(resolved, { timedOut: timeout, owned: false }))).toEqual({
      kind: 'timedOut',
      error: timeout,
      record: false,
    });
  });

  it('gives back a task cut short by stop() or close(), with the handler’s error or the stop’s', () => {
    expect(settle(facts(rejected, { aborted: true }))).toEqual({
      kind: 'cutShort',
      error: failure,
      release: true,
    });
    // resolved anyway, or rejected with nothing: the stop's cause is the error
    for (const end of [resolved, { kind: 'rejected', error: undefined } as const]) {
      expect(settle(facts(end, { aborted: true }))).toEqual({
        kind: 'cutShort',
        error: graceOver,
        release: true,
      });
    }
  });

  it('gives nothing back after engine.close(), nor for a broadcast copy', () => {
    const closedBy = new Error('Engine closed');
    expect(settle(facts(resolved, { aborted: true, closed: true, stopCause: closedBy }))).toEqual({
      kind: 'cutShort',
      error: closedBy,
      release: false,
    });
    expect(settle(facts(rejected, { aborted: true, owned: false }))).toEqual({
      kind: 'cutShort',
      error: failure,
      release: false,
    });
  });
});
