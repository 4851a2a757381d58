import { assertOpen, readClock, type EngineContext } from './context.js';
import { run } from './run.js';
import { argv } from './lua/arguments.js';

/**
 * pauseQueue pauses (`paused` true) or resumes the whole queue
 * (docs/semantics.md §3.14) in one script (pause.lua); resolves whether the
 * queue's state changed.
 */
export async function pauseQueue(context: EngineContext, paused: boolean): Promise<boolean> {
  const operation = paused ? 'pause' : 'resume';
  assertOpen(context, operation);
  const now = readClock(context.clock);
  return (await run(context, 'pause', argv('pause', { now_ms: now.getTime(), operation }))) === 1;
}
