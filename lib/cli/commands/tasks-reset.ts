import { Label } from '../../task/label.js';
import type { Task } from '../../task/task.js';
import { bulkSummary, requireConfirmation, runBulk } from '../bulk.js';
import { defineEngineCommand } from '../command.js';
import { CliError, ExitCode, notFound, usageError } from '../exit.js';
import { json } from '../format.js';
import { readTask, taskId } from '../lookup.js';
import { stateFlag } from '../states.js';
import { queryFrom, selectOptions, taskTable } from './tasks-list.js';

/** resetCopy is what cycles gets: the task's id and its breaker; undefined when it has none. */
function resetCopy(task: Task): Task | undefined {
  const cancel = task.core?.[Label.Cancel];
  const id = task.core?.[Label.Object];
  if (cancel === undefined || id === undefined) return undefined;
  return { core: { [Label.Object]: id, [Label.Cancel]: cancel } };
}

const noBreaker = 'no circuit breaker (core cancel): nothing to reset';

/** `rescue tasks reset`: reset the circuit breaker of a task, or of the tasks a query matches. */
export const tasksResetCommand = defineEngineCommand({
  name: 'tasks reset',
  args: '[<id>]',
  positionals: [0, 1],
  summary: "reset a task's circuit breaker (cycles and owner), or those a query matches",
  description:
    'Resets the circuit breaker of a task by id (engine.cycles()): its owner and\ncycle count go, and a halted task is handed out again. With a label query\ninstead of an id it resets every task of --state (default halted) that\nmatches and has a breaker; that needs --yes, and --dry-run lists them. A\ntask without a breaker (core cancel) cannot be reset (exit 1). Exits 4 when\nthe task named is not in the queue.',
  options: {
    ...selectOptions,
    yes: { type: 'boolean', short: 'y', help: 'do it (a reset by query)' },
    'dry-run': { type: 'boolean', help: 'list what a reset by query would reset, change nothing' },
  },
  examples: [
    'rescue tasks reset 1697760001000-000000000042',
    'rescue tasks reset --meta kind=mail --dry-run',
    'rescue tasks reset --state halted --meta kind=mail --yes',
  ],
  check(values, positionals) {
    const id = positionals[0];
    const query = queryFrom(values);
    if (id === undefined && query === undefined)
      throw usageError('tasks reset needs a task id or a label query (--meta k=v ..., --query)');
    if (id !== undefined && (query !== undefined || values.string('state') !== undefined))
      throw usageError('tasks reset takes a task id or a query, not both');
    stateFlag(values.string('state'), 'halted');
    if (id === undefined) requireConfirmation(values, 'tasks reset --meta ...');
    else taskId(id);
  },
  async run({ engine, values, positionals, io, json: asJson }) {
    const id = positionals[0];
    const dryRun = values.flag('dry-run');
    if (id !== undefined) {
      const task = await readTask(engine, id);
      if (task === undefined) throw notFound(id);
      const copy = resetCopy(task);
      if (copy === undefined) throw new CliError(`task ${id} has ${noBreaker}`, ExitCode.Failed);
      if (!dryRun) await engine.cycles(copy);
      const outcome = { action: 'reset', dryRun, ids: [id], skipped: [] };
      io.out(asJson ? json(outcome) : bulkSummary(outcome, 'reset'));
      return;
    }
    const listed: Task[] = [];
    const outcome = await runBulk(
      engine,
      {
        action: 'reset',
        state: stateFlag(values.string('state'), 'halted'),
        query: queryFrom(values) ?? {},
        dryRun,
        skip: (task) => (resetCopy(task) === undefined ? noBreaker : undefined),
      },
      async (task) => {
        await engine.cycles(resetCopy(task) ?? {});
        return undefined;
      },
      (task) => listed.push(task),
    );
    if (asJson) {
      io.out(json(outcome));
      return;
    }
    if (dryRun) io.out(taskTable(listed));
    io.out(bulkSummary(outcome, 'reset'));
  },
});
