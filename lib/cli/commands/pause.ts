import { defineEngineCommand } from '../command.js';
import { json } from '../format.js';
import { queryFrom, queryOptions } from './tasks-list.js';

/** `rescue pause`: pause the whole queue (engine.pause()), or only the tasks a label query matches. */
export const pauseCommand = defineEngineCommand({
  name: 'pause',
  summary: 'pause the queue, or the tasks a query matches: no worker claims them until resume',
  description:
    'Pauses the whole queue: from now on no search of any engine or worker hands out\na task. Creates, completions, lease renewals, expire and ticker go on, and the\ntasks already running finish. With a label query (--meta k=v ..., or --query)\nonly the tasks it matches are paused (at most 32 queries at once); the others\nflow. `rescue resume` (with the same query) ends it.',
  options: queryOptions,
  examples: ['rescue pause', 'rescue pause --meta kind=mail'],
  check(values) {
    queryFrom(values);
  },
  async run({ engine, io, values, json: asJson }) {
    const query = queryFrom(values);
    const changed = await engine.pause(query);
    const what =
      query === undefined ? engine.keyfmt() : `${engine.keyfmt()} ${JSON.stringify(query)}`;
    io.out(
      asJson
        ? json({ paused: true, changed, ...(query === undefined ? {} : { query }) })
        : `${what} ${changed ? 'paused' : 'was paused already'}`,
    );
  },
});

/** `rescue resume`: end a pause (engine.resume()), or that of a query; idle workers are woken at once. */
export const resumeCommand = defineEngineCommand({
  name: 'resume',
  summary: 'resume a paused queue or query: workers claim again, idle ones are woken at once',
  description:
    'Ends a pause (`rescue pause`): searches hand out tasks again, and the idle\nslots of the workers are woken at once. With a label query, ends the pause of\nthat query (the same labels as its pause).',
  options: queryOptions,
  examples: ['rescue resume', 'rescue resume --meta kind=mail'],
  check(values) {
    queryFrom(values);
  },
  async run({ engine, io, values, json: asJson }) {
    const query = queryFrom(values);
    const changed = await engine.resume(query);
    const what =
      query === undefined ? engine.keyfmt() : `${engine.keyfmt()} ${JSON.stringify(query)}`;
    io.out(
      asJson
        ? json({ paused: false, changed, ...(query === undefined ? {} : { query }) })
        : `${what} ${changed ? 'resumed' : 'was not paused'}`,
    );
  },
});
