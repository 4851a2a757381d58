import { defineEngineCommand } from '../command.js';
import { integerFlag } from '../args.js';
import { usageError } from '../exit.js';
import { json, table } from '../format.js';

/**
 * `rescue caps`: list the queue's concurrency caps with their counts
 * (engine.caps()); `--set <n>` declares or changes one (engine.setCap),
 * `--remove` removes one (engine.removeCap); `--key` names the meta key,
 * none the whole queue.
 */
export const capsCommand = defineEngineCommand({
  name: 'caps',
  summary: 'list, set or remove concurrency caps (per value of a meta key, or of the whole queue)',
  description:
    'Without --set or --remove, lists the declared caps: each with the most tasks of\none value owned at once and how many are owned now, per value. --set <n>\ndeclares or changes the cap of --key (without --key: of the whole queue);\n--remove removes it. Every engine and worker of the queue obeys the caps.',
  options: {
    key: {
      type: 'string',
      value: '<meta key>',
      help: 'the meta key whose values are capped (none: the whole queue)',
    },
    set: {
      type: 'string',
      value: '<n>',
      help: 'declare or change the cap: at most n tasks of one value owned at once',
    },
    remove: { type: 'boolean', help: 'remove the cap of --key (none: the whole-queue cap)' },
  },
  examples: [
    'rescue caps',
    'rescue caps --key x.api.io/tenant --set 2',
    'rescue caps --set 100',
    'rescue caps --key x.api.io/tenant --remove',
  ],
  check(values) {
    if (values.string('set') !== undefined && values.flag('remove'))
      throw usageError('--set and --remove exclude each other');
    if (values.string('set') !== undefined) integerFlag(values, 'set', 1, 1, 1_000_000);
    if (
      values.string('key') !== undefined &&
      values.string('set') === undefined &&
      !values.flag('remove')
    )
      throw usageError('--key goes with --set <n> or --remove');
  },
  async run({ engine, values, io, json: asJson }) {
    const key = values.string('key');
    const what = key === undefined ? 'the whole queue' : key;
    if (values.string('set') !== undefined) {
      const concurrency = integerFlag(values, 'set', 1, 1, 1_000_000);
      const changed = await engine.setCap(
        key === undefined ? { concurrency } : { key, concurrency },
      );
      io.out(
        asJson
          ? json({ key: key ?? null, concurrency, changed })
          : `cap of ${what}: ${concurrency}${changed ? '' : ' (unchanged)'}`,
      );
      return;
    }
    if (values.flag('remove')) {
      const changed = await engine.removeCap(key);
      io.out(
        asJson
          ? json({ key: key ?? null, removed: changed })
          : `cap of ${what} ${changed ? 'removed' : 'was not declared'}`,
      );
      return;
    }
    const caps = await engine.caps();
    if (asJson) {
      io.out(json(caps));
      return;
    }
    io.out(
      table(caps, [
        { header: 'key', cell: (cap) => cap.key ?? '(whole queue)' },
        { header: 'concurrency', cell: (cap) => String(cap.concurrency) },
        { header: 'owned', cell: (cap) => String(cap.owned) },
        {
          header: 'values at the cap',
          cell: (cap) =>
            Object.entries(cap.values)
              .filter(([, owned]) => owned >= cap.concurrency)
              .map(([value]) => value)
              .join(', ') || '-',
        },
      ]),
    );
  },
});
