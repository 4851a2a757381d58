import { decodeStored, encodeTask } from '../task/codec.js';
import { Label } from '../task/label.js';
import type { Task } from '../task/task.js';
import { validateExists, validateLister } from '../task/validate.js';
import { assertOpen, type EngineContext } from './context.js';
import { listMetaIndexes } from './meta-index.js';
import { run } from './run.js';
import { argv } from './lua/arguments.js';

/**
 * How many records one scan script reads (it stops at the first `HSCAN` batch
 * that reaches this, or earlier at 256 KiB or the engine's stepTime): a queue
 * up to this size is read as one consistent snapshot; a larger one in several
 * steps, each task read atomically. A record that cannot hold a value the
 * query asks for exactly is passed over without decoding it (include/has.lua
 * may_match): 500 such records cost Redis about 1 ms at 1M (`npm run bench`,
 * adversarial depth, lister page). A query that asks an exact value of a key
 * the queue lists (metaIndexes) reads only the tasks listed under it.
 */
const scanBudget = 500;

/** existsTask tells whether some task matches the query (docs/semantics.md §3.4). */
export async function existsTask(context: EngineContext, argument: unknown): Promise<boolean> {
  assertOpen(context, 'exists');
  const query = validateExists(argument);
  let found = false;
  await scan(context, query, true, () => {
    found = true;
  });
  return found;
}

/** listTasks returns every task matching the query, oldest first, as stored (docs/semantics.md §3.5). */
export async function listTasks(context: EngineContext, argument: unknown): Promise<Task[]> {
  assertOpen(context, 'lister');
  const query = validateLister(argument);
  const byId = new Map<string, Task>();
  await scan(context, query, false, (task) => {
    byId.set(task.core?.[Label.Object] ?? '', task);
  });
  return [...byId.keys()].sort().map((id) => byId.get(id) as Task);
}

async function scan(
  context: EngineContext,
  query: Task,
  first: boolean,
  found: (task: Task) => void,
): Promise<void> {
  const json = encodeTask(query);
  await listMetaIndexes(context);
  let cursor = '0';
  do {
    const [next = '0', ...matches] = (await run(
      context,
      'scan',
      argv('scan', { query: json, cursor, budget: scanBudget, first: first ? '1' : '0' }),
    )) as string[];
    for (let index = 0; index + 1 < matches.length; index += 2) {
      found(decodeStored(matches[index] ?? '', matches[index + 1] ?? ''));
    }
    if (first && matches.length > 0) return;
    cursor = next;
  } while (cursor !== '0');
}
