import { TaskCancelledError } from '../errors.js';
import { assertOpen, readClock, type EngineContext } from './context.js';
import { outcomeFields } from './outcome.js';
import { runRequest } from './run.js';
import { readId } from './status.js';
import { argv } from './lua/arguments.js';

/**
 * cancelTask stops a task (cancel.lua): removed if nobody claimed it,
 * revoked and its handler's signal aborted (through the control channel) if
 * a worker runs it; its outcome is `cancelled`. True when this call
 * cancelled it, false when it had finished already; TaskNotFoundError when
 * the queue neither has it nor keeps its outcome.
 */
export async function cancelTask(context: EngineContext, idArgument: unknown): Promise<boolean> {
  assertOpen(context, 'cancel');
  const id = readId(idArgument, 'cancel');
  const now = readClock(context.clock);
  const fields = outcomeFields({
    error: new TaskCancelledError(`cancelled by ${context.options.worker}`),
  });
  const answer = await runRequest(context, 'cancel', (request) =>
    argv('cancel', {
      now_ms: now.getTime(),
      id,
      fields,
      retention: context.options.outcomeRetention,
      most: context.options.outcomeLimit,
      request,
    }),
  );
  return answer === 1;
}
