import { isObjectId } from '../task/object-id.js';
import { tryDecodeStored } from '../task/codec.js';
import type { Task } from '../task/task.js';
import { assertOpen, type EngineContext } from './context.js';

/**
 * readTaskById reads one task record by its object id (one HGET, no script):
 * undefined when there is none, or the id is not an object id, or the record
 * is not a task. Not part of the public API (lister cannot select by core);
 * the dashboard reads a task's page with it.
 */
export async function readTaskById(context: EngineContext, id: string): Promise<Task | undefined> {
  assertOpen(context, 'read');
  if (!isObjectId(id)) return undefined;
  const json = await context.connection.client.hget(context.keys.tasks, id);
  return tryDecodeStored(id, json);
}
