// The task lists the CLI offers, as engine.tasks() names them.
import { isTaskPageState, taskPageStateNames, type TaskPageState } from '../task/state.js';
import { usageError } from './exit.js';

/** stateFlag reads --state (one of engine.tasks()'s lists), or the fallback. */
export function stateFlag(text: string | undefined, fallback: TaskPageState): TaskPageState {
  if (text === undefined) return fallback;
  if (!isTaskPageState(text))
    throw usageError(
      `--state must be one of ${taskPageStateNames.join(', ')}; got ${JSON.stringify(text)}`,
    );
  return text;
}
