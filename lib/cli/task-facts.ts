// What `rescue` tells about a task from its labels alone: its id, what kind
// of task it is now, owner and lease end, cycles, due time, its template.
import { Gate, Label, Method } from '../task/label.js';
import { creationTime } from '../task/object-id.js';
import type { Task } from '../task/task.js';
import { tryParseTime } from '../task/time.js';

/**
 * TaskKind is what a task is, judged by its labels (a moment after they were
 * read):
 *
 *     cron       a cron template (@every)
 *     gate       a gate template (a gate map, no value `trigger`)
 *     broadcast  method `all`: every worker runs it
 *     owned      a worker owns it (a lease runs)
 *     halted     the circuit breaker holds it (cycles reached cancel)
 *     waiting    @exact or deferred, not due yet
 *     claimable  a search may claim it now
 */
export type TaskKind = 'cron' | 'gate' | 'broadcast' | 'owned' | 'halted' | 'waiting' | 'claimable';

/** TaskFacts are what `tasks show` and `tasks list` print about a task besides its labels. */
export interface TaskFacts {
  readonly id: string;
  readonly kind: TaskKind;
  /** creation time, read from the object id */
  readonly created: string | undefined;
  readonly owner: string | undefined;
  readonly leaseEnd: string | undefined;
  readonly cycles: number;
  /** the circuit breaker's limit (core cancel), if it has one */
  readonly cancel: number | undefined;
  /** @exact time, a deferred task's earliest re-run, or a template's next tick */
  readonly due: string | undefined;
  /** the template an emitted child came from (its root's object id) */
  readonly template: string | undefined;
}

/** idOf is a task's object id ('' when it has none). */
export function idOf(task: Task): string {
  return task.core?.[Label.Object] ?? '';
}

/** taskFacts reads the facts of a task from its labels, at `now`. */
export function taskFacts(task: Task, now: Date): TaskFacts {
  const core = task.core ?? {};
  const cron = task.cron ?? {};
  const cycles = wholeNumber(core[Label.Cycles]) ?? 0;
  const cancel = wholeNumber(core[Label.Cancel]);
  const due = cron[Label.TickP1] ?? cron[Label.Exact];
  const owner = core[Label.Worker];
  const gate = task.gate;
  let kind: TaskKind;
  if (cron[Label.Every] !== undefined) kind = 'cron';
  else if (gate !== undefined && !Object.values(gate).includes(Gate.Trigger)) kind = 'gate';
  else if (task.node?.[Label.Method] === Method.All) kind = 'broadcast';
  else if (owner !== undefined) kind = 'owned';
  else if (cancel !== undefined && cycles >= cancel) kind = 'halted';
  else if (due !== undefined && (tryParseTime(due)?.getTime() ?? 0) > now.getTime())
    kind = 'waiting';
  else kind = 'claimable';
  const id = idOf(task);
  const created = creationTime(id)?.toISOString();
  return {
    id,
    kind,
    created,
    owner,
    leaseEnd: core[Label.Expiry],
    cycles,
    cancel,
    due,
    template: task.root?.[Label.Object],
  };
}

function wholeNumber(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d+$/.test(text.trim())) return undefined;
  return Number(text.trim());
}
