import { copyLabels, copyTask, encodeStored, encodeTask } from '../task/codec.js';
import { Label, Method } from '../task/label.js';
import type { Snapshot } from '../task/snapshot.js';
import type { Task } from '../task/task.js';
import { formatTime } from '../task/time.js';
import { validateCreate, type CreatePlan } from '../task/validate.js';
import { TaskCronError, TaskGateError } from '../errors.js';
import { describe } from '../task/describe.js';
import { readId } from './status.js';
import { schedule } from '../schedule/index.js';
import { assertOpen, readClock, type EngineContext } from './context.js';
import { layoutVersion } from './keys.js';
import { beginCreate, countTasks } from './observe.js';
import { readTaskById } from './read.js';
import { runRequest } from './run.js';
import {
  markUnique,
  readAnswer,
  readUnique,
  uniqueTask,
  type UniqueCreate,
  type UniqueOptions,
} from './unique.js';
import { argumentNames, argv, type ArgumentValues } from './lua/arguments.js';

/**
 * createTask stores a new task (docs/semantics.md §3.1): validation of a snapshot of
 * the argument, then one script that mints the object id and indexes the
 * snapshot. Returns the stored task, and applies the same additions to the
 * caller's object where it takes them.
 */
export async function createTask(
  context: EngineContext,
  argument: unknown,
  options?: CreateOptions,
): Promise<Task> {
  return (await createAny(context, argument, options)) as Task;
}

/**
 * Where the lean form's layout is in its arguments: runRequest prefixes it
 * with `r` on a send that may find the create ran already (create.lua: only
 * such a send looks for a kept answer).
 */
const leanSentAgainAt = argumentNames('create_lean').indexOf('layout');

/**
 * createAny is createTask that also takes the `unique` option (docs/semantics.md
 * §3.11), and then answers a UniqueCreate.
 */
export async function createAny(
  context: EngineContext,
  argument: unknown,
  options?: CreateOptions,
): Promise<Task | UniqueCreate> {
  assertOpen(context, 'create');
  const now = readClock(context.clock);
  const after = readAfter(options);
  const unique = readUnique(options);
  const given = unique === undefined ? argument : uniqueTask(unique, argument, now, after);
  const { stored, sources, plan, args } = prepareCreate(given, now);
  if (unique !== undefined) {
    markUnique(unique, stored, plan);
    args.task = encodeTask(stored);
  }
  if (after !== '' && plan.ticks !== undefined) {
    throw new TaskCronError('create: a cron template cannot be created after another task');
  }
  if (
    after !== '' &&
    stored.gate !== undefined &&
    !Object.values(stored.gate).includes('trigger')
  ) {
    throw new TaskGateError('create: a gate template cannot be created after another task');
  }

  // observers (tracing) may add core labels of their own: after validation,
  // so the task is encoded again when they did
  const end = beginCreate(context, stored);
  // a unique task (option `unique`) is checked by the general path only
  const lean = after === '' && unique === undefined && leanCreatable(stored, args);
  let answer: string;
  try {
    answer = (await runRequest(
      context,
      'create',
      (request) =>
        lean
          ? argv('create_lean', {
              now_ms: now.getTime(),
              task: '',
              record: encodeStored(stored),
              ...splitRequest(request),
              layout: layoutArg(context),
            })
          : argv('create', {
              ...args,
              now_ms: now.getTime(),
              task: end === undefined ? args.task : encodeTask(stored),
              layout: layoutVersion,
              request,
              after,
              unique: unique?.argument ?? '',
            }),
      lean ? leanSentAgainAt : undefined,
    )) as string;
  } catch (error) {
    end?.(undefined, error);
    throw error;
  }
  context.layoutStored = true; // the create wrote it, if nobody had
  const { action, id } =
    unique === undefined ? { action: 'created', id: answer } : readAnswer(answer);
  if (action === 'skipped') {
    end?.(undefined, undefined);
    return { action, id, task: await readTaskById(context, id) };
  }
  stored.core = { ...stored.core, [Label.Object]: id };
  end?.(stored, undefined);
  countTasks(context, { created: { api: 1 } });
  applyAdditions(argument as object, sources, stored, plan.ticks !== undefined);
  const task = copyTask(stored);
  return unique === undefined ? task : { action: action as UniqueCreate['action'], id, task };
}

/** CreateOptions configure `engine.create`. */
export interface CreateOptions {
  /**
   * The id of a task whose completion releases this one: until then it is
   * held (state `held`; search, exists and lister do not see it); it is
   * cancelled if that task leaves the queue otherwise. A task that completed
   * already (its outcome is kept) releases it at once.
   */
  after?: string;
  /**
   * Make the task unique by a key (docs/semantics.md §3.11): `skip` (the
   * default) stores nothing when a task holds the key, `replace` replaces a
   * queued holder, `debounce` replaces it and makes it due `delay` ms from
   * now; `ttl` keeps the key held that long after its task left the queue.
   * Create then answers a UniqueCreate.
   */
  unique?: UniqueOptions;
}

/**
 * leanCreatable: a task create.lua may store on its lean path
 * (include/create.lua): an `any` task without cron, gate or root, that no
 * core label makes owned, timed or prioritised, with nothing due. The script still sends
 * it to the general path when the queue's features change what it writes.
 */
export function leanCreatable(task: Task, args: PreparedCreate['args']): boolean {
  if (args.due_ms !== '' || args.tick_p1_ms !== '' || args.check_ms !== '') return false;
  if (task.cron !== undefined || task.gate !== undefined || task.root !== undefined) return false;
  const method = task.node?.[Label.Method];
  if (method === Method.All || method === Method.Uni) return false;
  const core = task.core ?? {};
  if (core[Label.Priority] !== undefined && core[Label.Priority] !== '0') return false;
  return core[Label.Worker] === undefined && core[Label.RetryAt] === undefined;
}

/**
 * layoutArg: the layout version for a lean create to write when the queue
 * has none, or '' once this engine knows the queue's layout key is written
 * (read by its layout check, or by a create of its own): SET NX on every
 * create costs a command for nothing.
 */
export function layoutArg(context: EngineContext): string {
  return context.layoutStored ? '' : layoutVersion;
}

/** splitRequest: an idempotent request's key `<instance>:<slot>` and number, as the lean scripts take them. */
export function splitRequest(request: string): { request_key: string; request_number: string } {
  const colon = request.lastIndexOf(':');
  return { request_key: request.slice(0, colon), request_number: request.slice(colon + 1) };
}

function readAfter(options: unknown): string {
  if (options === undefined || options === null) return '';
  if (typeof options !== 'object') {
    throw new TypeError(`create: options must be an object; got ${describe(options)}`);
  }
  const after = (options as CreateOptions).after;
  return after === undefined ? '' : readId(after, 'create after');
}

/** PreparedCreate is a validated task, ready for the create script (or for a parent's delete). */
export interface PreparedCreate {
  stored: Task;
  sources: Snapshot['sources'];
  plan: CreatePlan;
  /** The script's arguments for the task (as a spawned task passes them): its JSON, due ms, tick+1 ms, tick-1 check ms. */
  args: ArgumentValues<'spawned'>;
}

/** prepareCreate validates a task (C1-C17) and computes what its create script needs. */
export function prepareCreate(argument: unknown, now: Date): PreparedCreate {
  const { task: stored, sources, plan } = validateCreate(argument, now);

  // the snapshot is ours: it becomes the stored task
  stored.core = stored.core ?? {};
  stored.node = stored.node ?? { [Label.Method]: Method.Any };
  let tickP1Ms: number | '' = '';
  let checkMs: number | '' = '';
  if (plan.ticks !== undefined && stored.cron !== undefined) {
    stored.cron[Label.TickM1] = formatTime(plan.ticks.tickM1);
    stored.cron[Label.TickP1] = formatTime(plan.ticks.tickP1);
    tickP1Ms = plan.ticks.tickP1.getTime();
    // tick-1 maintenance is due once time passes the last point before tick+1,
    // unless tick-1 already is that point (a template created on a point is not)
    const settled = schedule(stored.cron[Label.Every] ?? '', plan.ticks.tickP1).tickM1;
    if (settled.getTime() !== plan.ticks.tickM1.getTime()) checkMs = settled.getTime();
  }

  return {
    stored,
    sources,
    plan,
    args: {
      task: encodeTask(stored),
      due_ms: plan.exactAt?.getTime() ?? '',
      tick_p1_ms: tickP1Ms,
      check_ms: checkMs,
    },
  };
}

/**
 * applyAdditions gives the caller's object the object id, a template's ticks
 * and a default node (docs/semantics.md §3.1 step 4), into the map objects validation
 * read. The task is stored by now, so nothing here may throw: an addition a
 * frozen, sealed or non-extensible object, a getter-only property or a proxy
 * refuses is skipped (the returned task has it).
 */
function applyAdditions(
  caller: object,
  sources: Snapshot['sources'],
  stored: Task,
  ticked: boolean,
): void {
  const core = stored.core ?? {};
  if (sources.core === undefined) attempt(caller, 'core', copyLabels(core));
  else attempt(sources.core, Label.Object, core[Label.Object]);
  if (ticked && sources.cron !== undefined) {
    attempt(sources.cron, Label.TickM1, stored.cron?.[Label.TickM1]);
    attempt(sources.cron, Label.TickP1, stored.cron?.[Label.TickP1]);
  }
  if (sources.node === undefined) attempt(caller, 'node', copyLabels(stored.node ?? {}));
}

/** attempt sets a property where the object takes it; Reflect.set answers false instead of throwing. */
function attempt(target: object, key: string, value: unknown): void {
  try {
    Reflect.set(target, key, value);
  } catch {
    // a proxy's trap threw: the caller keeps its object as it is
  }
}
