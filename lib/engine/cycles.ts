import { validateCycles } from '../task/validate.js';
import { assertOpen, readClock, type EngineContext } from './context.js';
import { runRequest } from './run.js';
import { argv } from './lua/arguments.js';

/** resetCycles resets a task's circuit breaker: no owner, no cycles (docs/semantics.md §3.8). */
export async function resetCycles(context: EngineContext, argument: unknown): Promise<void> {
  assertOpen(context, 'cycles');
  const { objectId } = validateCycles(argument);
  const now = readClock(context.clock);
  await runRequest(context, 'cycles', (request) =>
    argv('cycles', { now_ms: now.getTime(), id: objectId, request }),
  );
}
