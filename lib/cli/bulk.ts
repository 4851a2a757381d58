// Bulk actions (tasks delete / tasks reset with a label query): walk the
// pages of a state's tasks that match the query and act on each, or only list
// them with --dry-run. A destructive one needs --yes.
import type { Engine } from '../engine/engine.js';
import { pageMostLimit } from '../engine/page.js';
import { TaskNotFoundError } from '../errors.js';
import { idOf } from '../task/facts.js';
import type { TaskPageState } from '../task/state.js';
import type { Task } from '../task/task.js';
import type { OptionSpecs, Values } from './args.js';
import type { CommandRun } from './command.js';
import { queryFrom, selectOptions, taskTable } from './commands/tasks-list.js';
import { usageError } from './exit.js';
import { json } from './format.js';
import { taskId } from './lookup.js';
import { stateFlag } from './states.js';

/** BulkOutcome is what a bulk action did (or, with --dry-run, would do). */
interface BulkOutcome {
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

/** bulkOptions are a bulk command's flags: what it selects, then --yes and --dry-run. */
export function bulkOptions(help: { yes: string; dryRun: string }) {
  return {
    ...selectOptions,
    yes: { type: 'boolean', short: 'y', help: help.yes },
    'dry-run': { type: 'boolean', help: help.dryRun },
  } as const satisfies OptionSpecs;
}

/**
 * bulkTarget checks what a bulk command acts on: a task id, or a label query
 * (with --state) but not both. It returns the id; undefined for a query.
 */
export function bulkTarget(
  values: Values,
  positionals: readonly string[],
  command: string,
): string | undefined {
  const id = positionals[0];
  const query = queryFrom(values);
  if (id === undefined && query === undefined)
    throw usageError(`${command} needs a task id or a label query (--meta k=v ..., --query)`);
  if (id !== undefined && (query !== undefined || values.string('state') !== undefined))
    throw usageError(`${command} takes a task id or a query, not both`);
  if (id !== undefined) taskId(id);
  stateFlag(values.string('state'), 'all');
  return id;
}

/**
 * runBulk acts on every task of the state that matches the query, a page at
 * a time. `act` resolves with a reason to skip a task, or undefined once it
 * acted; `onDone` hears of each task acted on. A task met twice (a scan may
 * repeat one) is acted on once; a task gone meanwhile is skipped.
 */
async function runBulk(
  engine: Engine,
  options: {
    action: string;
    state: TaskPageState;
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
function bulkSummary(outcome: BulkOutcome, verb: string): string {
  const count = (n: number) => `${n} task${n === 1 ? '' : 's'}`;
  const lines = [
    outcome.dryRun
      ? `would ${verb} ${count(outcome.ids.length)} (dry run: nothing changed)`
      : `${verb === 'reset' ? 'reset' : `${verb}d`} ${count(outcome.ids.length)}`,
  ];
  for (const { id, reason } of outcome.skipped) lines.push(`skipped ${id}: ${reason}`);
  return lines.join('\n');
}

/** idReport is what a bulk command given one task id prints: the outcome as JSON, or its summary. */
export function idReport(action: string, dryRun: boolean, id: string, asJson: boolean): string {
  const outcome: BulkOutcome = { action, dryRun, ids: [id], skipped: [] };
  return asJson ? json(outcome) : bulkSummary(outcome, action);
}

/** BulkQuery is a bulk command's action on the tasks of --state (else `state`) its query matches. */
interface BulkQuery {
  readonly action: string;
  readonly state: TaskPageState;
  /** a reason to leave a matched task alone (dry run too), or undefined */
  readonly skip?: (task: Task) => string | undefined;
}

/**
 * runBulkQuery runs a bulk command given a query (or its --dry-run) and
 * prints the outcome: as JSON, or as a summary after the tasks a dry run
 * would act on.
 */
export async function runBulkQuery(
  { engine, values, io, json: asJson }: CommandRun,
  bulk: BulkQuery,
  act: (task: Task) => Promise<void>,
): Promise<void> {
  const dryRun = values.flag('dry-run');
  const listed: Task[] = [];
  const outcome = await runBulk(
    engine,
    {
      ...bulk,
      state: stateFlag(values.string('state'), bulk.state),
      query: queryFrom(values) ?? {},
      dryRun,
    },
    async (task) => {
      await act(task);
      return undefined;
    },
    (task) => listed.push(task),
  );
  if (dryRun && !asJson) io.out(taskTable(listed));
  io.out(asJson ? json(outcome) : bulkSummary(outcome, bulk.action));
}
