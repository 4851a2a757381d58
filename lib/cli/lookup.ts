// Finding one task by its id for `tasks show` and `tasks reset`: one HGET
// (lister cannot select by core, and a scan would read the whole queue).
import type { Engine } from '../engine/engine.js';
import { contextOf } from '../engine/context-registry.js';
import { readTaskById } from '../engine/read.js';
import { isObjectId } from '../task/object-id.js';
import type { Task } from '../task/task.js';
import { usageError } from './exit.js';

/** taskId checks that an argument is an object id (a usage error otherwise). */
export function taskId(text: string): string {
  if (!isObjectId(text))
    throw usageError(
      `${JSON.stringify(text)} is not a task id (<13-digit ms>-<12-digit sequence>, e.g. 1697760001000-000000000042)`,
    );
  return text;
}

/** readTask reads a task by id; undefined when the queue does not have it. */
export function readTask(engine: Engine, id: string): Promise<Task | undefined> {
  return readTaskById(contextOf(engine), id);
}
