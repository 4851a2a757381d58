import { queueEventKinds, type QueueEvent } from '../../engine/events.js';
import { integerFlag } from '../args.js';
import { defineEngineCommand } from '../command.js';
import { usageError } from '../exit.js';
import { oneLine } from '../format.js';

/** The most events one read returns (engine.events()'s limit). */
const readMost = 1_000;

/** eventLine prints an event; what a worker wrote (its id, an error message) goes through oneLine. */
function eventLine(event: QueueEvent): string {
  const reason = event.reason === undefined ? '' : `  ${event.reason}`;
  return oneLine(
    `${event.at.toISOString()}  ${event.kind.padEnd(9)}  ${event.task}  ${event.worker || '-'}${reason}`,
  );
}

/** pause waits ms, or less when the command is told to stop. */
function pause(ms: number, stopped: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
    stopped,
  ]).finally(() => clearTimeout(timer));
}

/** `rescue tail`: the queue's recent events, and with --follow the new ones as they come. */
export const tailCommand = defineEngineCommand({
  name: 'tail',
  summary: 'recent events (created, claimed, completed, failed, ...); --follow for live ones',
  description: `Prints the queue's newest events, oldest first, and with --follow polls for new\nones until Ctrl-C. Kinds: ${queueEventKinds.join(', ')}.\nThe queue records events only while somebody reads them: the first read of an\nidle queue starts the recording (it stops 10 minutes after the last read).\nWith --json, one JSON object per line.`,
  options: {
    follow: { type: 'boolean', short: 'f', help: 'keep printing new events until Ctrl-C' },
    limit: {
      type: 'string',
      value: '<n>',
      help: `newest events to print first, 0 to ${readMost} (default 20)`,
    },
    interval: {
      type: 'string',
      value: '<ms>',
      help: 'ms between polls with --follow, 50 to 60000 (default 500)',
    },
    kind: {
      type: 'string',
      multiple: true,
      value: '<kind>',
      help: 'only events of this kind (repeatable)',
    },
  },
  examples: ['rescue tail --limit 50', 'rescue tail -f --kind failed --kind revoked'],
  check(values) {
    integerFlag(values, 'limit', 20, 0, readMost);
    integerFlag(values, 'interval', 500, 50, 60_000);
    for (const kind of values.strings('kind'))
      if (!(queueEventKinds as readonly string[]).includes(kind))
        throw usageError(
          `--kind must be one of ${queueEventKinds.join(', ')}; got ${JSON.stringify(kind)}`,
        );
  },
  async run({ engine, values, io, json: asJson }) {
    const limit = integerFlag(values, 'limit', 20, 0, readMost);
    const interval = integerFlag(values, 'interval', 500, 50, 60_000);
    const only = new Set(values.strings('kind'));
    const print = (events: readonly QueueEvent[]) => {
      for (const event of events) {
        if (only.size > 0 && !only.has(event.kind)) continue;
        io.out(asJson ? JSON.stringify(event) : eventLine(event));
      }
    };
    // the newest events (at least one read: it keeps the queue recording)
    const newest = await engine.events({ limit: Math.max(limit, 1) });
    print(newest.slice(newest.length - limit));
    if (newest.length === 0 && !asJson)
      io.err(
        'no events recorded yet: the queue records them from now on, for 10 minutes after the last read',
      );
    if (!values.flag('follow')) return;
    // from the stream's start when it had no events: everything after the read above
    let after = newest.at(-1)?.id ?? '0-0';
    let stopped = false;
    void io.stopped.then(() => {
      stopped = true;
    });
    const going = () => !stopped; // a call: the flag changes while we wait
    io.err(`following ${engine.keyfmt()} on ${engine.listen()} (Ctrl-C to stop)`);
    while (going()) {
      await pause(interval, io.stopped);
      if (!going()) break;
      let events: QueueEvent[];
      do {
        events = await engine.events({ after, limit: readMost });
        print(events);
        after = events.at(-1)?.id ?? after;
      } while (events.length === readMost && going());
    }
  },
});
