// What a task is, told from its labels alone (no Redis): its id, what kind of
// task it is now, owner and lease end, cycles, due time, the template it came
// from and its gate keys. The CLI (`rescue tasks`) and the dashboard read it.
import { Gate, Label, Method } from './label.js';
import { creationTime } from './object-id.js';
import type { TaskPageState } from './state.js';
import type { Task } from './task.js';
import { tryParseTime } from './time.js';

/**
 * TaskKind is the list of `engine.tasks()` a task's labels put it on (the
 * engine's indexes decide; labels read a moment ago may be behind them).
 * Judged in this order: cron, gate (a gate map, even `{}`, with no value
 * `trigger`), broadcast (method `all`), owned, halted (cycles reached
 * cancel), waiting (@exact or deferred, not due yet), claimable. `all` and
 * `held` are no kind: every record is on `all`, and a held task is no record.
 */
export type TaskKind = Exclude<TaskPageState, 'all' | 'held'>;

/** GateKey is one label of a task's gate map: its key and its value (trigger / waiting / deleted). */
interface GateKey {
  readonly key: string;
  readonly value: string;
}

/** TaskFacts are what a task's labels tell besides the labels themselves. */
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
  /** gate keys of a template with their state (waiting / deleted), or a trigger's keys */
  readonly gateKeys: readonly GateKey[];
  /** some gate value is `trigger`: deleting this task counts toward gate templates */
  readonly triggers: boolean;
}

/** idOf is a task's object id ('' when it has none: not a stored task). */
export function idOf(task: Task): string {
  return task.core?.[Label.Object] ?? '';
}

/** taskFacts reads the facts of a task from its labels, at `now`. */
export function taskFacts(task: Task, now: Date): TaskFacts {
  const core = task.core ?? {};
  const cron = task.cron ?? {};
  const gateKeys = Object.entries(task.gate ?? {}).map(([key, value]) => ({ key, value }));
  const triggers = gateKeys.some(({ value }) => value === Gate.Trigger);
  const cycles = wholeNumber(core[Label.Cycles]) ?? 0;
  const cancel = wholeNumber(core[Label.Cancel]);
  const due = cron[Label.TickP1] ?? cron[Label.Exact];
  const owner = core[Label.Worker];
  let kind: TaskKind;
  if (cron[Label.Every] !== undefined) kind = 'cron';
  else if (task.gate !== undefined && !triggers) kind = 'gate';
  else if (task.node?.[Label.Method] === Method.All) kind = 'broadcast';
  else if (owner !== undefined) kind = 'owned';
  else if (cancel !== undefined && cycles >= cancel) kind = 'halted';
  else if (due !== undefined && (tryParseTime(due)?.getTime() ?? 0) > now.getTime())
    kind = 'waiting';
  else kind = 'claimable';
  const id = idOf(task);
  return {
    id,
    kind,
    created: creationTime(id)?.toISOString(),
    owner,
    leaseEnd: core[Label.Expiry],
    cycles,
    cancel,
    due,
    template: task.root?.[Label.Object],
    gateKeys,
    triggers,
  };
}

function wholeNumber(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d+$/.test(text.trim())) return undefined;
  return Number(text.trim());
}
