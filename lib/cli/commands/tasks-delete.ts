import { Bypass, Label } from '../../task/label.js';
import type { Task } from '../../task/task.js';
import { defineEngineCommand } from '../command.js';
import { bulkSummary, requireConfirmation, runBulk } from '../bulk.js';
import { notFound, usageError } from '../exit.js';
import { json } from '../format.js';
import { readTask, taskId } from '../lookup.js';
import { stateFlag } from '../states.js';
import { queryFrom, selectOptions, taskTable } from './tasks-list.js';

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
    'Removes a task by id, or every task of --state (default all) that matches a\nlabel query, whoever owns it (delete with bypass). It removes, it does not\ncomplete: no requeue, no gate accounting, no sync handed to a template. A\nworker running the task loses it. Needs --yes; --dry-run lists what it would\nremove. Exits 4 when the task named is not in the queue.',
  options: {
    ...selectOptions,
    yes: { type: 'boolean', short: 'y', help: 'do it' },
    'dry-run': { type: 'boolean', help: 'list what it would remove, change nothing' },
  },
  examples: [
    'rescue tasks delete 1697760001000-000000000042 --yes',
    'rescue tasks delete --state halted --meta kind=mail --dry-run',
  ],
  check(values, positionals) {
    const id = positionals[0];
    const query = queryFrom(values);
    if (id === undefined && query === undefined)
      throw usageError('tasks delete needs a task id or a label query (--meta k=v ..., --query)');
    if (id !== undefined && (query !== undefined || values.string('state') !== undefined))
      throw usageError('tasks delete takes a task id or a query, not both');
    if (id !== undefined) taskId(id);
    stateFlag(values.string('state'), 'all');
    requireConfirmation(values, 'tasks delete');
  },
  async run({ engine, values, positionals, io, json: asJson }) {
    const dryRun = values.flag('dry-run');
    const id = positionals[0];
    if (id !== undefined) {
      if (dryRun) {
        const task = await readTask(engine, id);
        if (task === undefined) throw notFound(id);
        io.out(
          asJson ? json({ action: 'delete', dryRun, ids: [id], skipped: [] }) : taskTable([task]),
        );
        if (!asJson) io.out(`would delete 1 task (dry run: nothing changed)`);
        return;
      }
      await engine.delete(deleteCopy(id));
      io.out(asJson ? json({ action: 'delete', dryRun, ids: [id], skipped: [] }) : `deleted ${id}`);
      return;
    }
    const listed: Task[] = [];
    const outcome = await runBulk(
      engine,
      {
        action: 'delete',
        state: stateFlag(values.string('state'), 'all'),
        query: queryFrom(values) ?? {},
        dryRun,
      },
      async (task) => {
        await engine.delete(deleteCopy(task.core?.[Label.Object] ?? ''));
        return undefined;
      },
      (task) => listed.push(task),
    );
    if (asJson) {
      io.out(json(outcome));
      return;
    }
    if (dryRun) io.out(taskTable(listed));
    io.out(bulkSummary(outcome, 'delete'));
  },
});
