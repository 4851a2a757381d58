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
  const json = await context.reach.guard(context.connection.client.hget(context.keys.tasks, id));
  return tryDecodeStored(id, json);
}

/**
 * readChildren reads the children of a template that are in the queue, the
 * first `most` of them by id (the `children` index, then one HMGET).
 */
export async function readChildren(
  context: EngineContext,
  templateId: string,
  most: number,
): Promise<Task[]> {
  assertOpen(context, 'read');
  if (!isObjectId(templateId)) return [];
  const client = context.connection.client;
  const members = await context.reach.guard(
    client.zrangebylex(
      context.keys.children,
      `[${templateId}`,
      `[${templateId}~`, // ids are digits and "-": "~" sorts after them
      'LIMIT',
      0,
      most,
    ),
  );
  const ids = members
    .filter((member) => member.length === templateId.length * 2 && member.startsWith(templateId))
    .map((member) => member.slice(templateId.length));
  if (ids.length === 0) return [];
  const records = await context.reach.guard(client.hmget(context.keys.tasks, ...ids));
  return ids.flatMap((id, index) => tryDecodeStored(id, records[index]) ?? []);
}
