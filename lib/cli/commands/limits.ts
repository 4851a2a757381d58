import { parseRate } from '../../schedule/index.js';
import { defineEngineCommand } from '../command.js';
import { usageError } from '../exit.js';
import { limitsTable } from '../flow.js';
import { json } from '../format.js';

/**
 * `rescue limits`: list the queue's rate limits (engine.rateLimits());
 * `--set <rate>` declares or changes one (engine.setRateLimit), `--remove`
 * removes one (engine.removeRateLimit); `--key` names the meta key, none the
 * whole queue.
 */
export const limitsCommand = defineEngineCommand({
  name: 'limits',
  summary: 'list, set or remove rate limits (per value of a meta key, or of the whole queue)',
  description:
    'Without --set or --remove, lists the declared rate limits: each with the most\nclaims in a window and the window, the claims of the current windows and the\nbusiest values (--json: the declarations alone; rescue stats --json has the\nwindows). --set <rate> ("100 per minute") declares or changes the limit of\n--key (without --key: of the whole queue); --remove removes it. Every engine and worker of the queue obeys the limits.',
  options: {
    key: {
      type: 'string',
      value: '<meta key>',
      help: 'the meta key whose values are limited (none: the whole queue)',
    },
    set: {
      type: 'string',
      value: '<rate>',
      help: 'declare or change the limit: "N per unit" or "N per M units", e.g. "100 per minute"',
    },
    remove: { type: 'boolean', help: 'remove the limit of --key (none: the whole queue’s)' },
  },
  examples: [
    'rescue limits',
    "rescue limits --key x.api.io/host --set '10 per second'",
    "rescue limits --set '1000 per minute'",
    'rescue limits --key x.api.io/host --remove',
  ],
  check(values) {
    const rate = values.string('set');
    if (rate !== undefined && values.flag('remove'))
      throw usageError('--set and --remove exclude each other');
    if (rate !== undefined) {
      try {
        parseRate(rate);
      } catch (error) {
        throw usageError(`--set: ${(error as Error).message}`);
      }
    }
    if (values.string('key') !== undefined && rate === undefined && !values.flag('remove'))
      throw usageError('--key goes with --set <rate> or --remove');
  },
  async run({ engine, values, io, json: asJson }) {
    const key = values.string('key');
    const what = key === undefined ? 'the whole queue' : key;
    const limit = values.string('set');
    if (limit !== undefined) {
      const changed = await engine.setRateLimit(key === undefined ? { limit } : { key, limit });
      io.out(
        asJson
          ? json({ key: key ?? null, limit, changed })
          : `rate limit of ${what}: ${limit}${changed ? '' : ' (unchanged)'}`,
      );
      return;
    }
    if (values.flag('remove')) {
      const changed = await engine.removeRateLimit(key);
      io.out(
        asJson
          ? json({ key: key ?? null, removed: changed })
          : `rate limit of ${what} ${changed ? 'removed' : 'was not declared'}`,
      );
      return;
    }
    if (asJson) {
      io.out(json(await engine.rateLimits()));
      return;
    }
    const stats = await engine.stats();
    io.out(limitsTable(stats.rateLimits, stats.at));
  },
});
