// What the pages tell about a task, read from its labels alone (no Redis):
// its id, what kind of task it is, its owner and lease, cycles, due time,
// and the templates it relates to.
import { Gate, Label, Method } from '../task/label.js';
import type { Task } from '../task/task.js';
import { parseTime } from '../task/time.js';

/**
 * TaskKind is what a task is now, judged by its labels (the engine's indexes
 * decide; a task a page shows is read a moment before):
 *
 *     cron       a cron template (@every)
 *     gate       a gate template (gate keys, none `trigger`)
 *     broadcast  method `all`: every worker runs it
 *     owned      a worker owns it (a lease runs)
 *     halted     the circuit breaker holds it (cycles reached cancel)
 *     waiting    @exact or deferred, not due yet
 *     claimable  a search may claim it now
 */
export type TaskKind = 'cron' | 'gate' | 'broadcast' | 'owned' | 'halted' | 'waiting' | 'claimable';

export interface TaskFacts {
  readonly id: string;
  readonly kind: TaskKind;
  readonly owner: string | undefined;
  readonly leaseEnd: string | undefined;
  readonly cycles: number;
  readonly cancel: number | undefined;
  /** @exact time, a deferred task's earliest re-run, or a template's next tick */
  readonly due: string | undefined;
  /** the template an emitted child points at (its root's object id) */
  readonly template: string | undefined;
  /** gate keys of a template with their state (waiting / deleted), or a trigger's keys */
  readonly gateKeys: readonly { key: string; value: string }[];
  readonly triggers: boolean;
}

/** idOf is a task's object id ('' when it has none: not a stored task). */
export function idOf(task: Task): string {
  return task.core?.[Label.Object] ?? '';
}

/** taskFacts reads what the pages show about a task from its labels. */
export function taskFacts(task: Task, now: Date): TaskFacts {
  const core = task.core ?? {};
  const cron = task.cron ?? {};
  const gate = task.gate ?? {};
  const gateKeys = Object.entries(gate).map(([key, value]) => ({ key, value }));
  const triggers = gateKeys.some(({ value }) => value === Gate.Trigger);
  const cycles = wholeNumber(core[Label.Cycles]) ?? 0;
  const cancel = wholeNumber(core[Label.Cancel]);
  const due = cron[Label.TickP1] ?? cron[Label.Exact];
  return {
    id: idOf(task),
    kind: kindOf(task, { triggers, gateKeys: gateKeys.length, cycles, cancel, due }, now),
    owner: core[Label.Worker],
    leaseEnd: core[Label.Expiry],
    cycles,
    cancel,
    due,
    template: task.root?.[Label.Object],
    gateKeys,
    triggers,
  };
}

function kindOf(
  task: Task,
  facts: {
    triggers: boolean;
    gateKeys: number;
    cycles: number;
    cancel: number | undefined;
    due: string | undefined;
  },
  now: Date,
): TaskKind {
  if (task.cron?.[Label.Every] !== undefined) return 'cron';
  if (facts.gateKeys > 0 && !facts.triggers) return 'gate';
  if (task.node?.[Label.Method] === Method.All) return 'broadcast';
  if (task.core?.[Label.Worker] !== undefined) return 'owned';
  if (facts.cancel !== undefined && facts.cycles >= facts.cancel) return 'halted';
  if (facts.due !== undefined && isAfter(facts.due, now)) return 'waiting';
  return 'claimable';
}

function isAfter(value: string, now: Date): boolean {
  try {
    return parseTime(value).getTime() > now.getTime();
  } catch {
    return false;
  }
}

function wholeNumber(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d{1,15}$/.test(value.trim())) return undefined;
  return Number(value.trim());
}
