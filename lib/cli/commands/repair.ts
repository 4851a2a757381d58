import { defineEngineCommand } from '../command.js';
import { usageError } from '../exit.js';
import { json } from '../format.js';

/** `rescue repair`: rebuild the queue's indexes from its records (engine.repair()); needs --yes. */
export const repairCommand = defineEngineCommand({
  name: 'repair',
  summary: "rebuild the queue's indexes from its records (needs --yes)",
  description:
    'Rebuilds every index of the queue from its task records, a batch at a time,\nand moves a queue of an older layout to this one. Tasks not indexed again yet\nare invisible to workers meanwhile: stop the workers first. Needs --yes.',
  options: { yes: { type: 'boolean', short: 'y', help: 'do it' } },
  check(values) {
    if (!values.flag('yes'))
      throw usageError("repair rebuilds the queue's indexes: stop the workers, then add --yes");
  },
  async run({ engine, io, json: asJson }) {
    const report = await engine.repair();
    io.out(
      asJson
        ? json(report)
        : `repaired ${engine.keyfmt()}: ${report.tasks} tasks indexed, ${report.skipped} skipped, ${report.steps} steps`,
    );
  },
});
