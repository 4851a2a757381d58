import { encodeTask } from '../task/codec.js';
import type { Task } from '../task/task.js';
import { validateQuery } from '../task/validate.js';
import { moveAside } from './aside.js';
import { assertOpen, readClock, type EngineContext } from './context.js';
import { filterId } from './filters.js';
import { run } from './run.js';
import { argv } from './lua/arguments.js';

/** How many queries a queue may have paused at once (pause.lua). */
const pausedQueriesMost = 32;

/**
 * pauseQueue pauses (`paused` true) or resumes the whole queue
 * (docs/semantics.md §3.14) in one script (pause.lua), or, with a query,
 * only the tasks it matches (§3.17): the query is stored in one step, then
 * the ready tasks it matches are set aside (aside.lua) a bounded step a
 * call; a resume stores the change, then moves them back the same way.
 * Resolves whether the queue's state changed.
 */
export async function pauseQueue(
  context: EngineContext,
  paused: boolean,
  queryArgument?: unknown,
): Promise<boolean> {
  const operation = paused ? 'pause' : 'resume';
  if (queryArgument === undefined) {
    assertOpen(context, operation);
    const now = readClock(context.clock);
    return (
      (await run(
        context,
        'pause',
        argv('pause', { now_ms: now.getTime(), operation, query_id: '', query: '' }),
      )) === 1
    );
  }
  const query: Task = validateQuery(queryArgument, operation);
  const text = encodeTask(query);
  const id = filterId(text);
  assertOpen(context, operation);
  const now = readClock(context.clock);
  const answer = (await run(
    context,
    'pause',
    argv('pause', {
      now_ms: now.getTime(),
      operation: paused ? 'pause-query' : 'resume-query',
      query_id: id,
      query: paused ? text : '',
    }),
  )) as number;
  if (answer === -1) {
    throw new RangeError(
      `pause: at most ${pausedQueriesMost} queries may be paused at once; resume one first`,
    );
  }
  if (answer === 1) await moveAside(context, paused ? 'pause' : 'drain-query', id);
  return answer === 1;
}
