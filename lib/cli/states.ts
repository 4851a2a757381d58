// The task states the CLI lists, as engine.tasks() names them.
import { taskStates, type TaskState } from '../engine/page.js';
import { usageError } from './exit.js';

export { taskStates };

/** stateFlag reads --state (one of engine.tasks()'s states), or the fallback. */
export function stateFlag(text: string | undefined, fallback: TaskState): TaskState {
  if (text === undefined) return fallback;
  if (!(taskStates as readonly string[]).includes(text))
    throw usageError(
      `--state must be one of ${taskStates.join(', ')}; got ${JSON.stringify(text)}`,
    );
  return text as TaskState;
}
