import { systemClock } from '../../clock.js';
import { pageDefaultLimit, pageMostLimit } from '../../engine/page.js';
import { taskFacts } from '../../task/facts.js';
import { taskPageStateNames } from '../../task/state.js';
import type { Task } from '../../task/task.js';
import { integerFlag, labelOptions, labelsFrom, type Values } from '../args.js';
import { defineEngineCommand } from '../command.js';
import { usageError } from '../exit.js';
import { json, labelList, table } from '../format.js';
import { stateFlag } from '../states.js';

/** The options of a label query: label flags and --query (tasks list, pause and resume). */
export const queryOptions = {
  ...labelOptions('query'),
  query: {
    type: 'string',
    value: '<json>',
    help: `a query as JSON, e.g. '{"meta":{"kind":"mail"}}' (label flags add to it)`,
  },
} as const;

/** The options that select tasks: a state and a label query (tasks list, bulk delete and reset). */
export const selectOptions = {
  state: {
    type: 'string',
    value: '<state>',
    help: `only tasks in this state: ${taskPageStateNames.join(', ')}`,
  },
  ...queryOptions,
} as const;

/** queryFrom reads the label query of --query and the label flags; undefined when none is given. */
export function queryFrom(values: Values): Task | undefined {
  return labelsFrom(values, 'query');
}

/** `rescue tasks list`: one page of tasks by state and label query (engine.tasks()). */
export const tasksListCommand = defineEngineCommand({
  name: 'tasks list',
  summary: 'one page of tasks, by state and label query',
  description:
    "Lists one page of the queue's tasks: by --state (default all: every record, in\nno order), matching a label query (--meta k=v ..., or --query). A key or value\n'*' is a pattern (see docs/concepts.md). Each call reads a bounded part of the\nqueue, so a query that skips many tasks may give a short page with a cursor:\npass it back with --cursor for the next page.",
  options: {
    ...selectOptions,
    limit: {
      type: 'string',
      value: '<n>',
      help: `tasks on a page, 1 to ${pageMostLimit} (default ${pageDefaultLimit})`,
    },
    cursor: { type: 'string', value: '<cursor>', help: 'the next page of an earlier listing' },
  },
  examples: [
    'rescue tasks list --state claimable --meta kind=mail',
    'rescue tasks list --state halted --json',
    'rescue tasks list --query \'{"meta":{"x.api.io/*":"*"}}\' --cursor \'all:17:0\'',
  ],
  check(values) {
    stateFlag(values.string('state'), 'all');
    integerFlag(values, 'limit', pageDefaultLimit, 1, pageMostLimit);
    queryFrom(values);
  },
  async run({ engine, values, io, json: asJson }) {
    const state = stateFlag(values.string('state'), 'all');
    const limit = integerFlag(values, 'limit', pageDefaultLimit, 1, pageMostLimit);
    const query = queryFrom(values);
    const cursor = values.string('cursor');
    let page;
    try {
      page = await engine.tasks({
        state,
        limit,
        ...(query === undefined ? {} : { query }),
        ...(cursor === undefined ? {} : { cursor }),
      });
    } catch (error) {
      // the engine's checks of a cursor: it is the command line's
      if (error instanceof TypeError || error instanceof RangeError)
        throw usageError(error.message.replace(/^tasks: option "(\w+)"/, '--$1'));
      throw error;
    }
    if (asJson) {
      io.out(json({ state, tasks: page.tasks, cursor: page.cursor ?? null }));
      return;
    }
    io.out(taskTable(page.tasks));
    if (page.cursor !== undefined) io.out(`\nmore: --cursor '${page.cursor}'`);
  },
});

/** taskTable writes tasks as rows: id, kind, owner, cycles, meta. */
export function taskTable(tasks: readonly Task[]): string {
  const now = systemClock();
  return table(
    tasks.map((task) => ({ task, facts: taskFacts(task, now) })),
    [
      { header: 'id', cell: ({ facts }) => facts.id },
      { header: 'state', cell: ({ facts }) => facts.kind },
      { header: 'owner', cell: ({ facts }) => facts.owner ?? '' },
      {
        header: 'cycles',
        cell: ({ facts }) =>
          `${facts.cycles}${facts.cancel === undefined ? '' : `/${facts.cancel}`}`,
      },
      { header: 'meta', cell: ({ task }) => labelList(task.meta) },
    ],
  );
}
