// The one vocabulary of a task's state (docs/states.md). engine.status()
// tells a TaskState; engine.tasks() lists one of the queue's indexes, named
// by a TaskPageState, and each of those holds tasks of one TaskState (or,
// for `all`, of every state in the queue). stats() fields and the metrics
// gauge's labels are the TaskPageState names.

/** How a task finished: the state of its kept outcome. */
export const outcomeStates = ['completed', 'failed', 'cancelled', 'timeout', 'removed'] as const;

/** OutcomeState is how a task finished. */
export type OutcomeState = (typeof outcomeStates)[number];

/**
 * TaskState is where a task stands (what `engine.status(id)` tells): in the
 * queue (`queued`: a search may claim it; `owned`: a worker has it;
 * `waiting`: an exact or deferred task not yet due; `halted`: held by the
 * circuit breaker; `template`: a cron or gate template; `held`: created
 * `after` a task that has not completed yet), or finished (an outcome's
 * state).
 */
export type TaskState =
  'queued' | 'owned' | 'waiting' | 'halted' | 'template' | 'held' | OutcomeState;

/**
 * @deprecated TaskStatusState is the old name of TaskState, the state
 * `engine.status()` tells (docs/upgrading.md).
 */
export type TaskStatusState = TaskState;

/**
 * The lists `engine.tasks({ state })` reads, in the order the CLI and the
 * dashboard offer them, and the TaskState of the tasks each holds:
 *
 *     all         every record, in no particular order (held tasks are not among them)
 *     claimable   queued: unowned tasks a search can claim now (the ready pools), oldest first
 *     owned       owned: tasks a worker owns, by lease end
 *     waiting     waiting: `@exact` / deferred tasks not promoted yet, by due time
 *     halted      halted: tasks the circuit breaker holds, oldest first
 *     cron        template: cron templates, by next tick
 *     gate        template: gate templates, oldest first
 *     broadcast   queued: broadcast tasks (method `all`, no owner), in store order
 *     held        held: tasks created `after` a task that has not completed yet, in no particular order
 */
export const taskPageStates = {
  all: undefined,
  claimable: 'queued',
  owned: 'owned',
  waiting: 'waiting',
  halted: 'halted',
  cron: 'template',
  gate: 'template',
  broadcast: 'queued',
  held: 'held',
} as const satisfies Record<string, TaskState | undefined>;

/**
 * TaskPageState selects the list `engine.tasks()` reads (its `state`
 * option): one of the queue's indexes, each holding tasks of one TaskState
 * (taskPageStates), or `all`.
 *
 * A query that asks an exact value of a meta key the queue lists (the
 * metaIndexes option) reads, in any state, the tasks listed under it when
 * they are fewer than the state's, oldest first.
 */
export type TaskPageState = keyof typeof taskPageStates;

/** The TaskPageState names, in the order of taskPageStates. */
export const taskPageStateNames = Object.keys(taskPageStates) as readonly TaskPageState[];

/** isTaskPageState tells whether a value names one of engine.tasks()'s lists. */
export function isTaskPageState(value: unknown): value is TaskPageState {
  return typeof value === 'string' && Object.hasOwn(taskPageStates, value);
}
