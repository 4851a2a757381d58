import { systemClock } from '../../clock.js';
import type { Engine } from '../../engine/engine.js';
import { taskFacts, type TaskFacts } from '../../task/facts.js';
import type { Task } from '../../task/task.js';
import { tryParseTime } from '../../task/time.js';
import { defineEngineCommand } from '../command.js';
import { notFound } from '../exit.js';
import { fields, json, oneLine, relative, taskLabels } from '../format.js';
import { readTask, taskId } from '../lookup.js';

/** `rescue tasks show <id>`: one task, every label and what they mean. */
export const tasksShowCommand = defineEngineCommand({
  name: 'tasks show',
  args: '<id>',
  positionals: [1, 1],
  summary: 'one task: its labels, owner, lease end, cycles, due time',
  description:
    'Shows one task: what kind it is (claimable, owned, waiting, halted, cron,\ngate, broadcast, held), its owner and lease end, its cycles and circuit breaker,\nits due time or next tick, the template it came from, and every label.\nExits 4 when the queue does not have it.',
  check(_values, positionals) {
    taskId(positionals[0] ?? '');
  },
  async run({ engine, positionals, io, json: asJson }) {
    const id = taskId(positionals[0] ?? '');
    const task = await readTask(engine, id);
    // a finished task is no longer in the queue, but its outcome may be kept
    const extras = await taskExtras(engine, id);
    if (task === undefined && extras === undefined) throw notFound(id);
    const now = systemClock();
    const facts = task === undefined ? undefined : taskFacts(task, now);
    if (asJson) {
      io.out(
        json({
          task: task ?? null,
          facts: facts === undefined ? null : jsonFacts(facts),
          ...(extras ?? {}),
        }),
      );
      return;
    }
    if (task !== undefined && facts !== undefined) {
      io.out(fields(factLines(facts, now)));
      io.out('');
      io.out(taskLabels(task));
    } else if (typeof extras?.['held'] === 'object') {
      const held = extras['held'] as { after: string; task: Task };
      io.out(`task ${id} is held: it joins the queue when task ${held.after} completes`);
      io.out('');
      io.out(taskLabels(held.task));
    } else {
      io.out(`task ${id} is not in the queue any more`);
    }
    if (extras !== undefined) {
      for (const [name, value] of Object.entries(extras)) {
        if (name === 'held') continue; // printed above
        io.out('');
        io.out(`${name}:`);
        io.out(extraLines(value));
      }
    }
  },
});

/**
 * jsonFacts is the `facts` object of `--json`: the facts the human form
 * prints, in that order (the gate keys are already among the task's labels).
 */
function jsonFacts(facts: TaskFacts): Omit<TaskFacts, 'gateKeys' | 'triggers'> {
  const { id, kind, created, owner, leaseEnd, cycles, cancel, due, template } = facts;
  return { id, kind, created, owner, leaseEnd, cycles, cancel, due, template };
}

function factLines(facts: TaskFacts, now: Date): [string, string][] {
  const at = (text: string | undefined) => {
    const time = tryParseTime(text);
    return text === undefined
      ? '-'
      : time === undefined
        ? text
        : `${text}  (${relative(time, now)})`;
  };
  return [
    ['id', facts.id],
    ['state', facts.kind],
    ['created', at(facts.created)],
    ['owner', facts.owner ?? '-'],
    ['lease end', at(facts.leaseEnd)],
    ['cycles', `${facts.cycles}${facts.cancel === undefined ? '' : ` (halts at ${facts.cancel})`}`],
    [facts.kind === 'cron' ? 'next tick' : 'due', at(facts.due)],
    ['template', facts.template ?? '-'],
  ];
}

/**
 * taskExtras is where `tasks show` adds what the engine keeps about a task
 * besides its record: each provider resolves with sections (a name and a
 * value) printed after the labels and added to the --json object, or with
 * undefined. The outcome records (engine.status): a finished task's outcome
 * (result, error, log), and a task's last failed attempt and its last ended
 * attempts with their times (at most 10) while it is queued.
 */
const taskExtraProviders: readonly ((
  engine: Engine,
  id: string,
) => Promise<Record<string, unknown> | undefined>)[] = [statusSections];

async function statusSections(
  engine: Engine,
  id: string,
): Promise<Record<string, unknown> | undefined> {
  const status = await engine.status(id);
  if (status === undefined) return undefined;
  const sections: Record<string, unknown> = {};
  if (status.outcome !== undefined) sections['outcome'] = status.outcome;
  if (status.failure !== undefined) sections['last failed attempt'] = status.failure;
  if (status.attempts !== undefined) sections['attempts'] = status.attempts;
  // a task held `after` another is not in the queue yet (readTask does not see it)
  if (status.state === 'held' && status.task !== undefined)
    sections['held'] = { after: status.after ?? '', task: status.task };
  return Object.keys(sections).length === 0 ? undefined : sections;
}

/** taskExtras collects the providers' sections; undefined when none has any. */
async function taskExtras(
  engine: Engine,
  id: string,
): Promise<Record<string, unknown> | undefined> {
  const sections = await Promise.all(taskExtraProviders.map((provide) => provide(engine, id)));
  const merged = Object.assign(
    {},
    ...sections.filter((section) => section !== undefined),
  ) as Record<string, unknown>;
  return Object.keys(merged).length === 0 ? undefined : merged;
}

/** extraLines prints a section: an outcome as fields, with its log one line each. */
function extraLines(value: unknown): string {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return json(value);
  const { log, ...rest } = value as { log?: unknown };
  const lines: [string, string][] = Object.entries(rest).map(([name, field]) => [
    name,
    typeof field === 'string' ? field : JSON.stringify(field),
  ]);
  const text = fields(lines);
  if (!Array.isArray(log) || log.length === 0) return text;
  return `${text}\nlog:\n${log.map((line) => `  ${oneLine(String(line))}`).join('\n')}`;
}
