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
import { readTaskById } from './read.js';
import { runRequest } from './run.js';
import {
  markUnique,
  readAnswer,
  readUnique,
  uniqueTask,
  type ReadUnique,
  type UniqueCreate,
  type UniqueOptions,
} from './unique.js';
import { argumentNames, argv } from './lua/arguments.js';

/**
 * How many tasks one create-many script call stores at most: the call's
 * fixed part (the request, the features read) is paid once a chunk, and a
 * chunk of plain tasks keeps Redis busy for well under a millisecond.
 */
export const createManyChunk = 100;

/**
 * The argument create-many.lua reads prefixed with `r` on a send that may
 * find the chunk stored already (only such a send looks for a kept answer).
 */
const formAt = argumentNames('create_many').indexOf('form');

/** CreateManyOptions configure `engine.createMany`. */
export interface CreateManyOptions {
  /**
   * The unique option of each task (docs/semantics.md §3.11), by index: an
   * array as long as the tasks, `undefined` for a task without a key. Each
   * task then is what `create(task, { unique })` would do, in order, and
   * createMany answers a UniqueCreate a task.
   */
  unique?: readonly (UniqueOptions | undefined)[];
}

/** PreparedMany is a task of createMany, validated, with its unique option read. */
interface PreparedMany extends PreparedCreate {
  unique: ReadUnique | undefined;
}

/**
 * createTasks stores many tasks (engine.createMany), in order, one script
 * call per chunk of createManyChunk tasks (create-many.lua). Every task is
 * validated as create validates it before the first write: an invalid one
 * rejects the whole call with its typed error, its message naming its index,
 * and nothing is written. A chunk is stored whole or not at all; a chunk the
 * script refuses (TASK_LIMIT) leaves the chunks before it stored. Returns the
 * stored tasks, or with the `unique` option a UniqueCreate a task; unlike
 * create, the caller's objects are left as they are.
 */
export async function createTasks(
  context: EngineContext,
  argument: unknown,
  options?: CreateManyOptions,
): Promise<Task[] | UniqueCreate[]> {
  assertOpen(context, 'createMany');
  if (!Array.isArray(argument)) {
    throw new TypeError(`createMany: tasks must be an array; got ${describe(argument)}`);
  }
  const uniques = readUniques(options, argument.length);
  const now = readClock(context.clock);
  const prepared = argument.map((task: unknown, index) =>
    prepareAt(task, index, now, uniques?.[index]),
  );
  const answers: UniqueCreate[] = [];
  for (let from = 0; from < prepared.length; from += createManyChunk) {
    answers.push(
      ...(await createChunk(context, prepared.slice(from, from + createManyChunk), now)),
    );
  }
  return uniques === undefined ? answers.map(({ task }) => task as Task) : answers;
}

/** readUniques reads the `unique` option of createMany: one per task, undefined where absent. */
function readUniques(options: unknown, count: number): (UniqueOptions | undefined)[] | undefined {
  if (options === undefined || options === null) return undefined;
  if (typeof options !== 'object') {
    throw new TypeError(`createMany: options must be an object; got ${describe(options)}`);
  }
  const unique = (options as CreateManyOptions).unique;
  if (unique === undefined) return undefined;
  if (!Array.isArray(unique) || unique.length !== count) {
    throw new TypeError(
      `createMany: option "unique" must be an array of one entry a task (${count}); got ${describe(unique)}`,
    );
  }
  return unique as (UniqueOptions | undefined)[];
}

/** prepareAt validates one task of the list (and its unique option); its error names its index. */
function prepareAt(
  task: unknown,
  index: number,
  now: Date,
  options: UniqueOptions | undefined,
): PreparedMany {
  try {
    const unique = options === undefined ? undefined : readUnique({ unique: options });
    const given = unique === undefined ? task : uniqueTask(unique, task, now, '');
    const prepared = prepareCreate(given, now);
    if (unique !== undefined) {
      markUnique(unique, prepared.stored, prepared.plan);
      prepared.args.task = encodeTask(prepared.stored);
    }
    return { ...prepared, unique };
  } catch (error) {
    if (error instanceof Error) error.message = `createMany: task ${index}: ${error.message}`;
    throw error;
  }
}

async function createChunk(
  context: EngineContext,
  chunk: PreparedMany[],
  now: Date,
): Promise<UniqueCreate[]> {
  const ends = chunk.map(({ stored }) => beginCreate(context, stored));
  // a chunk of plain tasks takes the lean form, a record a task; a unique
  // task takes the general path, its kind `u<mode>\0<ttl>` (create-many.lua)
  const lean = chunk.every(
    ({ stored, args, unique }) => unique === undefined && leanCreatable(stored, args),
  );
  const taskArgs = lean
    ? chunk.flatMap(({ stored }) => argv('create_many_plain', { record: encodeStored(stored) }))
    : chunk.flatMap(({ stored, args, unique }, index) =>
        unique === undefined && leanCreatable(stored, args)
          ? argv('create_many_task', {
              kind: 'l',
              task: encodeStored(stored),
              due_ms: '',
              tick_p1_ms: '',
              check_ms: '',
            })
          : argv('create_many_task', {
              ...args,
              kind: unique === undefined ? 'g' : `u${unique.argument}`,
              task: ends[index] === undefined ? args.task : encodeTask(stored),
            }),
      );
  let answer: string;
  try {
    answer = (await runRequest(
      context,
      'createMany',
      (request) =>
        argv('create_many', {
          now_ms: now.getTime(),
          form: lean ? 'l' : 'g',
          layout: layoutArg(context),
          ...splitRequest(request),
        }).concat(taskArgs),
      formAt,
    )) as string;
  } catch (error) {
    for (const end of ends) end?.(undefined, error);
    throw error;
  }
  context.layoutStored = true;
  const parts = answer.split(',');
  const answers: UniqueCreate[] = [];
  let created = 0;
  for (const [index, { stored, unique }] of chunk.entries()) {
    const part = parts[index] ?? '';
    const { action, id } =
      unique === undefined ? { action: 'created' as const, id: part } : readAnswer(part);
    if (action === 'skipped') {
      ends[index]?.(undefined, undefined);
      answers.push({ action, id, task: await readTaskById(context, id) });
      continue;
    }
    stored.core = { ...stored.core, [Label.Object]: id };
    ends[index]?.(stored, undefined);
    created += 1;
    answers.push({ action, id, task: copyTask(stored) });
  }
  countTasks(context, { created: { api: created } });
  return answers;
}
