import type { EngineContext } from './context.js';
import { runScript, scripts, type ScriptName } from './lua/scripts.js';

/** run runs one of the engine's scripts on the context's queue. */
export function run(
  context: EngineContext,
  name: ScriptName,
  args: (string | number)[],
): Promise<unknown> {
  return runScript(context.connection.client, scripts[name], context.keys, args);
}
