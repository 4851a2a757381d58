// Bulk actions (tasks delete / tasks reset with a label query): walk the
// pages of a state's tasks that match the query and act on each, or only list
// them with --dry-run. A destructive one needs --yes.
import type { Engine } from '../engine/engine.js';
import { pageMostLimit, type TaskState } from '../engine/page.js';
import { TaskNotFoundError } from '../errors.js';
import type { Task } from '../task/task.js';
import type { Values } from './args.js';
import { usageError } from './exit.js';
import { idOf } from './task-facts.js';

/** BulkOutcome is what a bulk action did (or, with --dry-run, would do). */
export interface BulkOutcome {
  readonly action: string;
  readonly dryRun: boolean;
  /** ids acted on (dry run: that would be) */
  readonly ids: string[];
  /** tasks matched but left alone, and why */
  readonly skipped: { id: string; reason: string }[];
}

/**
 * requireConfirmation: a bulk action runs only with --yes, or lists what it
 * would do with --dry-run (not both).
 */
export function requireConfirmation(values: Values, action: string): void {
  if (values.flag('dry-run') && values.flag('yes'))
    throw usageError('--dry-run and --yes exclude each other');
  if (!values.flag('dry-run') && !values.flag('yes'))
    throw usageError(
      `${action} changes the queue: add --yes to do it, or --dry-run to list what it would do`,
    );
}

/**
 * runBulk acts on every task of the state that matches the query, a page at
 * a time. `act` resolves with a reason to skip a task, or undefined once it
 * acted; `onDone` hears of each task acted on. A task met twice (a scan may repeat one) is acted on once; a task
 * gone meanwhile is skipped.
 */
export async function runBulk(
  engine: Engine,
  options: {
    action: string;
    state: TaskState;
    query: Task;
    dryRun: boolean;
    /** a reason to leave a matched task alone (dry run too), or undefined */
    skip?: (task: Task) => string | undefined;
  },
  act: (task: Task) => Promise<string | undefined>,
  onDone: (task: Task) => void = () => {},
): Promise<BulkOutcome> {
  const outcome: BulkOutcome = {
    action: options.action,
    dryRun: options.dryRun,
    ids: [],
    skipped: [],
  };
  const seen = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await engine.tasks({
      state: options.state,
      query: options.query,
      limit: pageMostLimit,
      ...(cursor === undefined ? {} : { cursor }),
    });
    for (const task of page.tasks) {
      const id = idOf(task);
      if (seen.has(id)) continue;
      seen.add(id);
      let reason = options.skip?.(task);
      try {
        if (reason === undefined && !options.dryRun) reason = await act(task);
      } catch (error) {
        if (!(error instanceof TaskNotFoundError)) throw error;
        reason = 'gone meanwhile';
      }
      if (reason === undefined) {
        outcome.ids.push(id);
        onDone(task);
      } else outcome.skipped.push({ id, reason });
    }
    cursor = page.cursor;
  } while (cursor !== undefined);
  return outcome;
}

/** bulkSummary writes what a bulk action did for people. */
export function bulkSummary(outcome: BulkOutcome, verb: string): string {
  const count = (n: number) => `${n} task${n === 1 ? '' : 's'}`;
  const lines = [
    outcome.dryRun
      ? `would ${verb} ${count(outcome.ids.length)} (dry run: nothing changed)`
      : `${verb === 'reset' ? 'reset' : `${verb}d`} ${count(outcome.ids.length)}`,
  ];
  for (const { id, reason } of outcome.skipped) lines.push(`skipped ${id}: ${reason}`);
  return lines.join('\n');
}
