import { Label } from '../../task/label.js';
import type { Task } from '../../task/task.js';
import { labelOptions, labelsFrom, type Values } from '../args.js';
import { defineEngineCommand } from '../command.js';
import { usageError } from '../exit.js';
import { json, taskLabels } from '../format.js';

/** Flags for the reserved labels a user may set, so nobody has to spell them. */
const shorthands = {
  every: { map: 'cron', key: Label.Every },
  exact: { map: 'cron', key: Label.Exact },
  cancel: { map: 'core', key: Label.Cancel },
  retry: { map: 'core', key: Label.Retry },
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

/** `rescue tasks create`: store a task from label flags or JSON (engine.create()). */
export const tasksCreateCommand = defineEngineCommand({
  name: 'tasks create',
  summary: 'store a task from label flags or JSON',
  description:
    "Stores a task and prints it with its id. Labels come from flags (--meta k=v,\nrepeatable, and the same for --cron, --gate, --node, --root, --sync, --core)\nor from --task '<json>' (flags add to it). meta is required; the engine\nchecks the task as for create() and a rejected task is not stored (exit 1).",
  options: {
    ...labelOptions('task'),
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
  ],
  check(values) {
    if (taskFrom(values) === undefined)
      throw usageError('tasks create needs labels: --meta k=v ... or --task <json>');
  },
  async run({ engine, values, io, json: asJson }) {
    const stored = await engine.create(taskFrom(values) ?? {});
    if (asJson) {
      io.out(json(stored));
      return;
    }
    io.out(`created ${stored.core?.[Label.Object] ?? ''}`);
    io.out(taskLabels(stored));
  },
});
