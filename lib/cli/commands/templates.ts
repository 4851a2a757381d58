import { systemClock } from '../../clock.js';
import { pageDefaultLimit, pageMostLimit } from '../../engine/page.js';
import { idOf } from '../../task/facts.js';
import { Gate, Label } from '../../task/label.js';
import type { Task } from '../../task/task.js';
import { tryParseTime } from '../../task/time.js';
import { integerFlag } from '../args.js';
import { defineEngineCommand } from '../command.js';
import { json, labelList, relative, table } from '../format.js';
import { queryFrom, selectOptions } from './tasks-list.js';

/** CronTemplate is a cron template as `rescue templates` shows it. */
interface CronTemplate {
  /** The name engine.schedule gave it, or null. */
  name: string | null;
  id: string;
  every: string;
  lastTick: string | null;
  nextTick: string | null;
  meta: Task['meta'];
}

/** GateTemplate is a gate template: its keys whose triggers were deleted, and those still waiting. */
interface GateTemplate {
  id: string;
  triggered: string[];
  waiting: string[];
  meta: Task['meta'];
}

function cronTemplate(task: Task): CronTemplate {
  const cron = task.cron ?? {};
  return {
    name: task.core?.[Label.Schedule] ?? null,
    id: idOf(task),
    every: cron[Label.Every] ?? '',
    lastTick: cron[Label.TickM1] ?? null,
    nextTick: cron[Label.TickP1] ?? null,
    meta: task.meta,
  };
}

function gateTemplate(task: Task): GateTemplate {
  const keys = Object.entries(task.gate ?? {});
  return {
    id: idOf(task),
    triggered: keys.filter(([, value]) => value === Gate.Deleted).map(([key]) => key),
    waiting: keys.filter(([, value]) => value === Gate.Waiting).map(([key]) => key),
    meta: task.meta,
  };
}

/** `rescue templates`: cron templates with their next tick, gate templates with their keys. */
export const templatesCommand = defineEngineCommand({
  name: 'templates',
  summary: 'cron templates with their next tick, gate templates with their keys',
  description:
    "Lists the queue's cron templates (@every, by next tick: the name engine.schedule\ngave it, the expression, the last and the next tick) and gate templates (oldest\nfirst: the gate keys whose trigger tasks were deleted already, and those still\nwaiting). A label query selects among them.",
  options: {
    ...Object.fromEntries(Object.entries(selectOptions).filter(([name]) => name !== 'state')),
    limit: {
      type: 'string',
      value: '<n>',
      help: `templates of each kind, 1 to ${pageMostLimit} (default ${pageDefaultLimit})`,
    },
  },
  check(values) {
    integerFlag(values, 'limit', pageDefaultLimit, 1, pageMostLimit);
    queryFrom(values);
  },
  async run({ engine, values, io, json: asJson }) {
    const limit = integerFlag(values, 'limit', pageDefaultLimit, 1, pageMostLimit);
    const query = queryFrom(values);
    const select = query === undefined ? { limit } : { limit, query };
    const [cronPage, gatePage] = await Promise.all([
      engine.tasks({ state: 'cron', ...select }),
      engine.tasks({ state: 'gate', ...select }),
    ]);
    const cron = cronPage.tasks.map(cronTemplate);
    const gate = gatePage.tasks.map(gateTemplate);
    const more = cronPage.cursor !== undefined || gatePage.cursor !== undefined;
    if (asJson) {
      io.out(json({ cron, gate, more }));
      return;
    }
    const now = systemClock();
    const when = (text: string | null) => {
      const time = tryParseTime(text ?? undefined);
      return text === null ? '-' : time === undefined ? text : `${text} (${relative(time, now)})`;
    };
    io.out('cron templates');
    io.out(
      table(cron, [
        { header: 'name', cell: (row) => row.name ?? '-' },
        { header: 'id', cell: (row) => row.id },
        { header: 'every', cell: (row) => row.every },
        { header: 'next tick', cell: (row) => when(row.nextTick) },
        { header: 'last tick', cell: (row) => row.lastTick ?? '-' },
        { header: 'meta', cell: (row) => labelList(row.meta) },
      ]),
    );
    io.out('');
    io.out('gate templates');
    io.out(
      table(gate, [
        { header: 'id', cell: (row) => row.id },
        { header: 'triggered', cell: (row) => row.triggered.join(', ') || '-' },
        { header: 'waiting', cell: (row) => row.waiting.join(', ') || '-' },
        { header: 'meta', cell: (row) => labelList(row.meta) },
      ]),
    );
    if (more) io.out(`\nmore templates than --limit ${limit}: narrow the query or raise --limit`);
  },
});
