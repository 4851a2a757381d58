import { Label } from '../../task/label.js';
import type { Task } from '../../task/task.js';
import { bulkOptions, bulkTarget, idReport, requireConfirmation, runBulkQuery } from '../bulk.js';
import { defineEngineCommand } from '../command.js';
import { CliError, ExitCode, notFound } from '../exit.js';
import { readTask } from '../lookup.js';

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
  options: bulkOptions({
    yes: 'do it (a reset by query)',
    dryRun: 'list what a reset by query would reset, change nothing',
  }),
  examples: [
    'rescue tasks reset 1697760001000-000000000042',
    'rescue tasks reset --meta kind=mail --dry-run',
    'rescue tasks reset --state halted --meta kind=mail --yes',
  ],
  check(values, positionals) {
    const id = bulkTarget(values, positionals, 'tasks reset');
    if (id === undefined) requireConfirmation(values, 'tasks reset --meta ...');
  },
  async run(command) {
    const { engine, values, positionals, io, json: asJson } = command;
    const id = positionals[0];
    if (id === undefined) {
      const skip = (task: Task) => (resetCopy(task) === undefined ? noBreaker : undefined);
      await runBulkQuery(command, { action: 'reset', state: 'halted', skip }, async (task) => {
        await engine.cycles(resetCopy(task) ?? {});
      });
      return;
    }
    const dryRun = values.flag('dry-run');
    const task = await readTask(engine, id);
    if (task === undefined) throw notFound(id);
    const copy = resetCopy(task);
    if (copy === undefined) throw new CliError(`task ${id} has ${noBreaker}`, ExitCode.Failed);
    if (!dryRun) await engine.cycles(copy);
    io.out(idReport('reset', dryRun, id, asJson));
  },
});
