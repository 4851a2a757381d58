import { readFile } from 'node:fs/promises';
import { Label } from '../../task/label.js';
import type { Task } from '../../task/task.js';
import { labelOptions, labelsFrom, type Values } from '../args.js';
import { defineEngineCommand } from '../command.js';
import { CliError, ExitCode, usageError } from '../exit.js';
import { json, taskLabels } from '../format.js';

/** Flags for the reserved labels a user may set, so nobody has to spell them. */
const shorthands = {
  every: { map: 'cron', key: Label.Every },
  exact: { map: 'cron', key: Label.Exact },
  cancel: { map: 'core', key: Label.Cancel },
  retry: { map: 'core', key: Label.Retry },
  priority: { map: 'core', key: Label.Priority },
  method: { map: 'node', key: Label.Method },
} as const;

/** taskFrom builds the task of --task, the label flags and the shorthands; undefined when none is given. */
function taskFrom(values: Values): Task | undefined {
  let task = labelsFrom(values, 'task');
  for (const [flag, { map, key }] of Object.entries(shorthands)) {
    const value = values.string(flag);
    if (value === undefined) continue;
    task ??= {};
    task[map] = { ...task[map], [key]: value };
  }
  return task;
}

/**
 * tasksFromFile reads `--file`: one task JSON a line (blank lines skipped),
 * with the line number of each. A line that is not a JSON object is a usage
 * error naming it.
 */
async function tasksFromFile(path: string): Promise<{ tasks: unknown[]; lines: number[] }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw usageError(`--file ${path}: ${(error as Error).message}`);
  }
  const tasks: unknown[] = [];
  const lines: number[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    try {
      tasks.push(JSON.parse(line));
    } catch (error) {
      throw usageError(`${path} line ${index + 1}: not JSON: ${(error as Error).message}`);
    }
    lines.push(index + 1);
  });
  if (tasks.length === 0) throw usageError(`${path}: no task in the file`);
  return { tasks, lines };
}

/** `rescue tasks create`: store a task from label flags or JSON (engine.create()), or the tasks of a file (engine.createMany()). */
export const tasksCreateCommand = defineEngineCommand({
  name: 'tasks create',
  summary: 'store a task from label flags or JSON',
  description:
    "Stores a task and prints it with its id. Labels come from flags (--meta k=v,\nrepeatable, and the same for --cron, --gate, --node, --root, --sync, --core)\nor from --task '<json>' (flags add to it). meta is required; the engine\nchecks the task as for create() and a rejected task is not stored (exit 1).\nWith --file, stores the tasks of a file, one task JSON a line, with\ncreateMany() and prints their ids; a rejected task (its line named) stores\nnone of them.",
  options: {
    ...labelOptions('task'),
    file: {
      type: 'string',
      value: '<path>',
      help: 'store the tasks of a file: one task JSON a line (NDJSON)',
    },
    task: {
      type: 'string',
      value: '<json>',
      help: `the task as JSON, e.g. '{"meta":{"kind":"mail"}}' (label flags add to it)`,
    },
    every: { type: 'string', value: '<expr>', help: `a cron template: cron ${Label.Every}` },
    exact: { type: 'string', value: '<time>', help: `run once at this time: cron ${Label.Exact}` },
    cancel: { type: 'string', value: '<n>', help: `halt after n cycles: core ${Label.Cancel}` },
    retry: {
      type: 'string',
      value: '<policy>',
      help: `retry policy, e.g. 'exponential 1 second .. 1 hour x 5': core ${Label.Retry}`,
    },
    priority: {
      type: 'string',
      value: '<n>',
      help: `claimed before lower priorities (an integer, default 0; --priority=-1 below it): core ${Label.Priority}`,
    },
    method: {
      type: 'string',
      value: '<m>',
      help: `delivery all, any or uni: node ${Label.Method}`,
    },
  },
  examples: [
    'rescue tasks create --meta kind=mail --meta to=ops@example.com --cancel 3',
    "rescue tasks create --meta kind=report --every 'day at 08:00 in Europe/Berlin'",
    `rescue tasks create --task '{"meta":{"kind":"mail"},"gate":{"leaf-0":"trigger"}}'`,
    'rescue tasks create --file tasks.ndjson',
  ],
  check(values) {
    if (values.string('file') !== undefined) {
      if (taskFrom(values) !== undefined)
        throw usageError('tasks create takes --file or labels, not both');
      return;
    }
    if (taskFrom(values) === undefined)
      throw usageError('tasks create needs labels: --meta k=v ... or --task <json>');
  },
  async run({ engine, values, io, json: asJson }) {
    const file = values.string('file');
    if (file !== undefined) {
      const { tasks, lines } = await tasksFromFile(file);
      let stored: Task[];
      try {
        stored = await engine.createMany(tasks as Task[]);
      } catch (error) {
        // the engine names the task's index: the user knows the line
        const index = /^createMany: task (\d+): (.*)$/s.exec((error as Error).message);
        if (index === null) throw error;
        throw new CliError(`${file} line ${lines[Number(index[1])]}: ${index[2]}`, ExitCode.Failed);
      }
      if (asJson) {
        io.out(json(stored));
        return;
      }
      for (const task of stored) io.out(`created ${task.core?.[Label.Object] ?? ''}`);
      return;
    }
    const stored = await engine.create(taskFrom(values) ?? {});
    if (asJson) {
      io.out(json(stored));
      return;
    }
    io.out(`created ${stored.core?.[Label.Object] ?? ''}`);
    io.out(taskLabels(stored));
  },
});
