import { isObjectId } from '../task/object-id.js';
import { tryDecodeStored } from '../task/codec.js';
import type { Task } from '../task/task.js';
import { assertOpen, type EngineContext } from './context.js';
import { readOutcome, type Outcome } from './outcome.js';

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

/**
 * readRecentOutcomes reads the outcomes the queue keeps, those that go last
 * first (the `outcome-expiry` index, then one HMGET): with one retention for
 * all, the most recently finished first (failedOutcomeRetention may keep
 * the outcomes of halts longer). At most `most` records are read;
 * records that are not outcomes are left out. The dashboard's lists of
 * completed and failed tasks read it.
 */
export async function readRecentOutcomes(context: EngineContext, most: number): Promise<Outcome[]> {
  assertOpen(context, 'read');
  const client = context.connection.client;
  const ids = await context.reach.guard(
    client.zrevrange(context.keys['outcome-expiry'], 0, Math.max(0, most - 1)),
  );
  if (ids.length === 0) return [];
  const records = await context.reach.guard(client.hmget(context.keys.outcomes, ...ids));
  return records.flatMap((record) => readOutcome(record) ?? []);
}

/**
 * readTasksById reads the records of some tasks by id (one HMGET): a map of
 * those in the queue; ids not in it, or not object ids, are left out. The
 * dashboard shows the labels of the tasks its events and its overview name.
 */
export async function readTasksById(
  context: EngineContext,
  ids: readonly string[],
): Promise<Map<string, Task>> {
  assertOpen(context, 'read');
  const wanted = [...new Set(ids.filter(isObjectId))];
  const found = new Map<string, Task>();
  if (wanted.length === 0) return found;
  const records = await context.reach.guard(
    context.connection.client.hmget(context.keys.tasks, ...wanted),
  );
  wanted.forEach((id, index) => {
    const task = tryDecodeStored(id, records[index]);
    if (task !== undefined) found.set(id, task);
  });
  return found;
}
