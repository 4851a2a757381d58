import { Bypass, Label } from '../../task/label.js';
import type { Task } from '../../task/task.js';
import { defineEngineCommand } from '../command.js';
import { bulkOptions, bulkTarget, idReport, requireConfirmation, runBulkQuery } from '../bulk.js';
import { notFound } from '../exit.js';
import { readTask } from '../lookup.js';
import { taskTable } from './tasks-list.js';

/** deleteCopy is what delete gets to remove a task whoever owns it: its id and bypass. */
function deleteCopy(id: string): Task {
  return { core: { [Label.Object]: id, [Label.Bypass]: Bypass.True } };
}

/** `rescue tasks delete`: remove a task, or every task a query matches, whoever owns it. */
export const tasksDeleteCommand = defineEngineCommand({
  name: 'tasks delete',
  args: '[<id>]',
  positionals: [0, 1],
  summary: 'remove a task, or the tasks a query matches (bypass; needs --yes)',
  description:
    'Removes a task by id, or every task of --state (default all) that matches a\nlabel query, whoever owns it (delete with bypass). It removes, it does not\ncomplete: no requeue, no gate accounting, no sync handed to a template; its\noutcome is removed (a wait on it resolves with that), and the tasks created\nafter it are removed with it, not released. A worker running the task loses\nit. Needs --yes; --dry-run lists what it would remove. Exits 4 when the task\nnamed is not in the queue.',
  options: bulkOptions({ yes: 'do it', dryRun: 'list what it would remove, change nothing' }),
  examples: [
    'rescue tasks delete 1697760001000-000000000042 --yes',
    'rescue tasks delete --state halted --meta kind=mail --dry-run',
  ],
  check(values, positionals) {
    bulkTarget(values, positionals, 'tasks delete');
    requireConfirmation(values, 'tasks delete');
  },
  async run(command) {
    const { engine, values, positionals, io, json: asJson } = command;
    const dryRun = values.flag('dry-run');
    const id = positionals[0];
    if (id === undefined) {
      await runBulkQuery(command, { action: 'delete', state: 'all' }, async (task) => {
        await engine.delete(deleteCopy(task.core?.[Label.Object] ?? ''));
      });
      return;
    }
    if (!dryRun) {
      await engine.delete(deleteCopy(id));
      io.out(asJson ? idReport('delete', dryRun, id, asJson) : `deleted ${id}`);
      return;
    }
    // a task held `after` another is not in the queue yet: its status has it
    const task = (await readTask(engine, id)) ?? (await engine.status(id))?.task;
    if (task === undefined) throw notFound(id);
    if (!asJson) io.out(taskTable([task]));
    io.out(idReport('delete', dryRun, id, asJson));
  },
});
