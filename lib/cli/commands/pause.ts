import { defineEngineCommand } from '../command.js';
import { json } from '../format.js';

/** `rescue pause`: pause the whole queue (engine.pause()): searches hand out no task until resume. */
export const pauseCommand = defineEngineCommand({
  name: 'pause',
  summary: 'pause the queue: no worker claims a task until resume (running tasks finish)',
  description:
    'Pauses the whole queue: from now on no search of any engine or worker hands out\na task. Creates, completions, lease renewals, expire and ticker go on, and the\ntasks already running finish. `rescue resume` ends it.',
  async run({ engine, io, json: asJson }) {
    const changed = await engine.pause();
    io.out(
      asJson
        ? json({ paused: true, changed })
        : `${engine.keyfmt()} ${changed ? 'paused' : 'was paused already'}`,
    );
  },
});

/** `rescue resume`: end a pause (engine.resume()); idle workers are woken at once. */
export const resumeCommand = defineEngineCommand({
  name: 'resume',
  summary: 'resume a paused queue: workers claim again, idle ones are woken at once',
  description:
    'Ends a pause (`rescue pause`): searches hand out tasks again, and the idle\nslots of the workers are woken at once.',
  async run({ engine, io, json: asJson }) {
    const changed = await engine.resume();
    io.out(
      asJson
        ? json({ paused: false, changed })
        : `${engine.keyfmt()} ${changed ? 'resumed' : 'was not paused'}`,
    );
  },
});
