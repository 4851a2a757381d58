import { TaskCoreError } from '../errors.js';
import { tryDecodeStored } from '../task/codec.js';
import { describe } from '../task/describe.js';
import { Gate, Label } from '../task/label.js';
import { isObjectId } from '../task/object-id.js';
import type { Task } from '../task/task.js';
import { formatTime, tryParseTime } from '../task/time.js';
import { assertOpen, readClock, type EngineContext } from './context.js';
import type { TaskState } from '../task/state.js';
import { readOutcome, type Outcome } from './outcome.js';
import { run } from './run.js';
import { argv } from './lua/arguments.js';

/**
 * TaskStatus is what `engine.status(id)` tells: the state, the stored task
 * while it is in the queue, and what belongs to the state.
 *
 *     { id, state: 'owned', task, worker: 'eon', since: '2023-10-20T00:00:02Z',
 *       leaseEnd: '2023-10-20T00:00:32Z' }
 *     { id, state: 'completed', outcome: { state: 'completed', result: 42, ... } }
 */
export interface TaskStatus {
  id: string;
  state: TaskState;
  /** The task as stored, while it is in the queue (or held). */
  task?: Task;
  /** owned: the owner. */
  worker?: string;
  /** owned: when it was claimed (unknown after a repair). */
  since?: string;
  /** owned: when its lease ends. */
  leaseEnd?: string;
  /** waiting: when it becomes due. */
  dueAt?: string;
  /** held: the task whose completion releases it. */
  after?: string;
  /** Finished: its outcome. Halted: the outcome its halt recorded, while kept. */
  outcome?: Outcome;
  /** In the queue after a failed attempt: how that attempt ended (state failed or timeout). */
  failure?: Outcome;
  /**
   * In the queue: its last ended attempts (at most 10), oldest first, that
   * did not complete it: failed, timed out, or whose lease ran out.
   */
  attempts?: AttemptRecord[];
}

/** AttemptRecord is one ended attempt at a task (docs/semantics.md §7.2). */
export interface AttemptRecord {
  /** failed or timeout: its handler rejected or ran past its timeout; expired: its lease ran out with nothing recorded. */
  state: 'failed' | 'timeout' | 'expired';
  /** The worker that made it. */
  worker?: string;
  /** When it was claimed (expired) or its handler started. */
  startedAt?: string;
  /** When it ended. */
  endedAt: string;
  /** The error's message (at most 300 characters). */
  error?: string;
}

/** StatusReply is what the status script answers (status.lua). */
type StatusReply = [
  record: string,
  outcome: string,
  claimed: string,
  due: string,
  attempt: string,
  held: string,
  log: string,
];

/** readId checks an object id argument (status, wait, cancel): TaskCoreError for anything else. */
export function readId(id: unknown, operation: string): string {
  if (typeof id !== 'string' || !isObjectId(id)) {
    throw new TaskCoreError(`${operation}: the id must be an object id; got ${describe(id)}`);
  }
  return id;
}

/**
 * taskStatus reads where a task stands, in one atomic read, or undefined
 * when the queue neither has it nor keeps its outcome.
 */
export async function taskStatus(
  context: EngineContext,
  idArgument: unknown,
): Promise<TaskStatus | undefined> {
  assertOpen(context, 'status');
  const id = readId(idArgument, 'status');
  const nowMs = readClock(context.clock).getTime();
  const reply = (await run(context, 'status', argv('status', { id }))) as StatusReply;
  return statusFrom(id, reply, nowMs);
}

function statusFrom(id: string, reply: StatusReply, nowMs: number): TaskStatus | undefined {
  const [record, outcomeJson, claimed, due, attempt, held, log] = reply;
  const outcome = readOutcome(outcomeJson);
  const task = tryDecodeStored(id, record === '' ? undefined : record);
  const hold = /^([^\0]*)\0[^\0]*\0([\s\S]*)$/.exec(held);
  const heldTask = hold === null ? undefined : tryDecodeStored(id, hold[2]);
  if (task === undefined && hold !== null && heldTask !== undefined) {
    return { id, state: 'held', task: heldTask, after: hold[1] ?? '' };
  }
  if (task === undefined)
    return outcome === undefined ? undefined : { id, state: outcome.state, outcome };

  const status: TaskStatus = { id, state: stateOf(task, due, nowMs), task };
  if (status.state === 'owned') {
    status.worker = task.core?.[Label.Worker] ?? '';
    const claimedMs = Number(claimed);
    if (claimed !== '' && Number.isFinite(claimedMs))
      status.since = formatTime(new Date(claimedMs));
    const leaseEnd = tryParseTime(task.core?.[Label.Expiry]);
    if (leaseEnd !== undefined) status.leaseEnd = formatTime(leaseEnd);
  }
  if (status.state === 'waiting') status.dueAt = formatTime(new Date(Number(due)));
  if (outcome !== undefined && status.state === 'halted') status.outcome = outcome;
  const failure = readAttempt(id, attempt, task);
  if (failure !== undefined) status.failure = failure;
  const attempts = readAttemptLog(log);
  if (attempts.length > 0) status.attempts = attempts;
  return status;
}

/** readAttemptLog reads a task's attempt log (include/attempt-log.lua); what it cannot read is left out. */
function readAttemptLog(log: string | undefined): AttemptRecord[] {
  let list: unknown;
  try {
    list = JSON.parse(log === undefined || log === '' ? '[]' : log);
  } catch {
    return [];
  }
  if (!Array.isArray(list)) return [];
  const records: AttemptRecord[] = [];
  for (const entry of list as unknown[]) {
    if (typeof entry !== 'object' || entry === null) continue;
    const { state, worker, startedAt, endedAt, error } = entry as Record<string, unknown>;
    if (state !== 'failed' && state !== 'timeout' && state !== 'expired') continue;
    const ended = instant(endedAt);
    if (ended === undefined) continue;
    const record: AttemptRecord = { state, endedAt: ended };
    if (typeof worker === 'string') record.worker = worker;
    const started = instant(startedAt);
    if (started !== undefined) record.startedAt = started;
    if (typeof error === 'string') record.error = error;
    records.push(record);
  }
  return records;
}

function instant(ms: unknown): string | undefined {
  if (typeof ms !== 'number' || !Number.isSafeInteger(ms) || ms < 0 || ms > 9_999_999_999_999)
    return undefined;
  return formatTime(new Date(ms));
}

function stateOf(task: Task, due: string, nowMs: number): TaskState {
  const core = task.core ?? {};
  if (core[Label.Worker] !== undefined && core[Label.Worker] !== '') return 'owned';
  if (halted(task)) return 'halted';
  if (task.cron?.[Label.Every] !== undefined) return 'template';
  if (task.gate !== undefined && !Object.values(task.gate).includes(Gate.Trigger))
    return 'template';
  const dueMs = Number(due);
  if (due !== '' && Number.isFinite(dueMs) && dueMs > nowMs) return 'waiting';
  return 'queued';
}

/** halted: the circuit breaker holds the task (docs/semantics.md §1.4). */
function halted(task: Task): boolean {
  const cancel = task.core?.[Label.Cancel];
  if (cancel === undefined || !/^[0-9]+$/.test(cancel) || Number(cancel) < 1) return false;
  const cycles = task.core?.[Label.Cycles];
  const count = cycles !== undefined && /^[0-9]+$/.test(cycles) ? Number(cycles) : 0;
  return count >= Number(cancel);
}

/** readAttempt reads the last failed attempt (`<state>|<ended ms>|<fields>`) as an outcome of that state. */
function readAttempt(id: string, attempt: string, task: Task): Outcome | undefined {
  const match = /^(failed|timeout)\|(\d+)\|([\s\S]*)$/.exec(attempt);
  if (match === null) return undefined;
  const [, state = '', ended = '0', fields = '{}'] = match;
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(fields) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const createdMs = Number(id.slice(0, 13));
  const cycles = Number(task.core?.[Label.Cycles] ?? '0');
  return readOutcome(
    JSON.stringify({
      ...parsed,
      id,
      state,
      createdAt: createdMs,
      endedAt: Number(ended),
      cycles: Number.isSafeInteger(cycles) ? cycles : 0,
    }),
  );
}
