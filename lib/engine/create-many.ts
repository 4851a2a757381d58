import { copyTask, encodeStored, encodeTask } from '../task/codec.js';
import { Label } from '../task/label.js';
import type { Task } from '../task/task.js';
import { describe } from '../task/describe.js';
import { assertOpen, readClock, type EngineContext } from './context.js';
import {
  layoutArg,
  leanCreatable,
  prepareCreate,
  splitRequest,
  type PreparedCreate,
} from './create.js';
import { beginCreate, countTasks } from './observe.js';
import { runRequest } from './run.js';

/**
 * How many tasks one create-many script call stores at most: the call's
 * fixed part (the request, the features read) is paid once a chunk, and a
 * chunk of plain tasks keeps Redis busy for well under a millisecond.
 */
export const createManyChunk = 100;

/**
 * createTasks stores many tasks (engine.createMany), in order, one script
 * call per chunk of createManyChunk tasks (create-many.lua). Every task is
 * validated as create validates it before the first write: an invalid one
 * rejects the whole call with its typed error, its message naming its index,
 * and nothing is written. A chunk is stored whole or not at all; a chunk the
 * script refuses (TASK_LIMIT) leaves the chunks before it stored. Returns the
 * stored tasks; unlike create, the caller's objects are left as they are.
 */
export async function createTasks(context: EngineContext, argument: unknown): Promise<Task[]> {
  assertOpen(context, 'createMany');
  if (!Array.isArray(argument)) {
    throw new TypeError(`createMany: tasks must be an array; got ${describe(argument)}`);
  }
  const now = readClock(context.clock);
  const prepared = argument.map((task: unknown, index) => prepareAt(task, index, now));
  const stored: Task[] = [];
  for (let from = 0; from < prepared.length; from += createManyChunk) {
    stored.push(...(await createChunk(context, prepared.slice(from, from + createManyChunk), now)));
  }
  return stored;
}

/** prepareAt validates one task of the list; its error names its index. */
function prepareAt(task: unknown, index: number, now: Date): PreparedCreate {
  try {
    return prepareCreate(task, now);
  } catch (error) {
    if (error instanceof Error) error.message = `createMany: task ${index}: ${error.message}`;
    throw error;
  }
}

async function createChunk(
  context: EngineContext,
  chunk: PreparedCreate[],
  now: Date,
): Promise<Task[]> {
  const ends = chunk.map(({ stored }) => beginCreate(context, stored));
  const taskArgs = chunk.flatMap(({ stored, args }): (string | number)[] =>
    leanCreatable(stored, args)
      ? ['l', encodeStored(stored), '', '', '']
      : ['g', encodeTask(stored), args[1], args[2], args[3]],
  );
  let answer: string;
  try {
    answer = (await runRequest(context, 'createMany', (request) => [
      now.getTime(),
      layoutArg(context),
      ...splitRequest(request),
      ...taskArgs,
    ])) as string;
  } catch (error) {
    for (const end of ends) end?.(undefined, error);
    throw error;
  }
  context.layoutStored = true;
  const ids = answer.split(',');
  const stored = chunk.map(({ stored }, index) => {
    stored.core = { ...stored.core, [Label.Object]: ids[index] ?? '' };
    ends[index]?.(stored, undefined);
    return copyTask(stored);
  });
  countTasks(context, { created: { api: chunk.length } });
  return stored;
}
