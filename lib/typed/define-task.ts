import { systemClock } from '../clock.js';
import type { CreateOptions } from '../engine/create.js';
import type { Engine } from '../engine/engine.js';
import type { Outcome } from '../engine/outcome.js';
import type { UniqueCreate, UniqueOptions } from '../engine/unique.js';
import type { RunOptions, WaitOptions } from '../engine/wait.js';
import { TaskCoreError, TaskPayloadError, UnrecoverableError } from '../errors.js';
import { has } from '../matcher/matcher.js';
import { copyLabels } from '../task/codec.js';
import { describe, quoteShort } from '../task/describe.js';
import { Label } from '../task/label.js';
import type { Labels, Task } from '../task/task.js';
import { validateCreate } from '../task/validate.js';
import type { EnsureContext, Handler } from '../worker/handler.js';
import type { StandardSchemaIssue, StandardSchemaV1 } from './standard-schema.js';

/** TaskDefinition is what defineTask takes: the labels of the kind of work, and optionally a schema. */
export interface TaskDefinition<Payload> {
  /** The meta labels every task of this kind carries, and its handler searches with. */
  meta: Labels;
  /**
   * A Standard Schema v1 schema (zod, valibot, arktype, …) the payload is
   * validated with: at create (TaskPayloadError, nothing written) and before
   * the handler runs (a refused payload halts the task: UnrecoverableError).
   * The value it answers (defaults filled in, say) is what is stored and
   * what the handler gets.
   */
  schema?: StandardSchemaV1<unknown, Payload>;
  /**
   * The priority of the tasks of this kind (docs/semantics.md §3.13): an
   * integer from -2147483648 to 2147483647, stored as `core[Label.Priority]`;
   * higher is claimed first, 0 (the default) is no priority. `create` and
   * `run` take `{ priority }` to override it for one task.
   */
  priority?: number;
}

/** TypedCreateOptions are create's options, and the task's priority (over the kind's). */
export type TypedCreateOptions = CreateOptions & {
  /** This task's priority, over the kind's: an integer from -2147483648 to 2147483647. */
  priority?: number;
};

/** TypedRunOptions are run's options, and the task's priority (over the kind's). */
export type TypedRunOptions = RunOptions & {
  /** This task's priority, over the kind's: an integer from -2147483648 to 2147483647. */
  priority?: number;
};

/** TypedOutcome is an Outcome whose result has the typed task's result type. */
export type TypedOutcome<Result> = Omit<Outcome, 'result'> & { result?: Result };

/** TypedEnsureContext is what a typed handler gets besides its payload: the EnsureContext, and the task. */
export interface TypedEnsureContext extends EnsureContext {
  /** The task being run (its labels; a change to `sync` or `cron` is kept by the delete, as for any handler). */
  task: Task;
}

/** TypedEnsure does the work of a typed task: its payload in, its result out. */
export type TypedEnsure<Payload, Result> = (
  payload: Payload,
  context: TypedEnsureContext,
) => Promise<Result>;

/** TypedHandlerOptions are the Handler options a typed handler may have besides its labels. */
export type TypedHandlerOptions = Pick<Handler, 'timeout' | 'retry'>;

/**
 * TypedTask is one kind of work with a payload and a result of known types
 * (docs/typed-tasks.md): producers create and run it, a worker takes its
 * handler.
 */
export interface TypedTask<Payload, Result> {
  /** The meta labels of the kind (a copy). */
  readonly meta: Labels;
  /** The kind's priority (0: none). */
  readonly priority: number;
  /** create stores a task of this kind carrying the payload (validated by the schema first). */
  create(
    engine: Engine,
    payload: Payload,
    options: TypedCreateOptions & { unique: UniqueOptions },
  ): Promise<UniqueCreate>;
  create(engine: Engine, payload: Payload, options?: TypedCreateOptions): Promise<Task>;
  /** run creates a task of this kind and waits for its outcome (engine.run). */
  run(engine: Engine, payload: Payload, options?: TypedRunOptions): Promise<TypedOutcome<Result>>;
  /** wait waits for the outcome of a task of this kind (engine.wait). */
  wait(engine: Engine, id: string, options?: WaitOptions): Promise<TypedOutcome<Result>>;
  /** handler makes the Handler of this kind: it takes the tasks with the kind's meta, and gives `ensure` the payload. */
  handler(ensure: TypedEnsure<Payload, Result>, options?: TypedHandlerOptions): Handler;
  /** parse validates a value with the schema (TaskPayloadError) and answers the payload; without a schema, the value. */
  parse(value: unknown): Promise<Payload>;
}

/**
 * defineTask defines a kind of work with a typed payload and result:
 *
 *     const sendMail = defineTask<{ to: string }, { messageId: string }>({ meta: { kind: 'send-mail' } });
 *     await sendMail.create(engine, { to: 'ann@example.com' });
 *     new Worker(engine, [sendMail.handler(async ({ to }) => ({ messageId: await send(to) }))]);
 *
 * The meta labels are checked now, as create checks them (its typed errors).
 */
export function defineTask<Payload = unknown, Result = unknown>(
  definition: TaskDefinition<Payload>,
): TypedTask<Payload, Result> {
  const meta = readMeta(definition);
  const priority =
    readPriority('defineTask', (definition as TaskDefinition<Payload> | undefined)?.priority) ?? 0;
  const schema = definition.schema;
  const kind = Object.values(meta)[0] ?? '';
  const what = `task ${quoteShort(kind)}`;

  async function parse(value: unknown): Promise<Payload> {
    if (schema === undefined) return value as Payload;
    const result = await schema['~standard'].validate(value);
    if (result.issues !== undefined) {
      throw new TaskPayloadError(
        `${what}: the schema refuses the payload: ${issues(result.issues)}`,
      );
    }
    return result.value;
  }

  /** taskOf makes the task: the kind's meta, the payload the schema answers, the priority (none at 0). */
  const taskOf = async (payload: Payload, given: number | undefined): Promise<Task> => {
    const chosen = given ?? priority;
    return {
      ...(chosen === 0 ? {} : { core: { [Label.Priority]: String(chosen) } }),
      meta: copyLabels(meta),
      payload: await parse(payload),
    };
  };

  /** split takes `priority` out of a call's options (checked), and answers the rest. */
  function split<Options extends { priority?: number }>(
    operation: string,
    options: Options | undefined,
  ): [number | undefined, Omit<Options, 'priority'> | undefined] {
    // not an object: engine.create / run refuse it with their error
    if (typeof options !== 'object' || (options as unknown) === null) return [undefined, options];
    const { priority: given, ...rest } = options;
    return [readPriority(`${what}: ${operation}`, given), rest];
  }

  return {
    get meta() {
      return copyLabels(meta);
    },
    priority,
    parse,
    // one body for both overloads: engine.create answers what the options ask for
    create: (async (engine: Engine, payload: Payload, options?: TypedCreateOptions) => {
      const [given, rest] = split('create', options);
      return engine.create(await taskOf(payload, given), rest);
    }) as TypedTask<Payload, Result>['create'],
    async run(engine, payload, options) {
      const [given, rest] = split('run', options);
      return (await engine.run(await taskOf(payload, given), rest)) as TypedOutcome<Result>;
    },
    async wait(engine, id, options) {
      return (await engine.wait(id, options)) as TypedOutcome<Result>;
    },
    handler(ensure, options = {}) {
      return {
        ...options,
        labels: { meta: copyLabels(meta) },
        filter: (task) => has(task.meta, meta),
        async ensure(task, context) {
          let payload: Payload;
          try {
            payload = await parse(task.payload);
          } catch (error) {
            // the payload will never pass: no attempt may run it
            if (error instanceof TaskPayloadError) throw new UnrecoverableError(error.message);
            throw error;
          }
          return ensure(payload, typedContext(context, task));
        },
      };
    },
  };
}

/** typedContext is the context with its task; the signal is read when the handler reads it (it is made lazily). */
function typedContext(context: EnsureContext, task: Task): TypedEnsureContext {
  return {
    get signal() {
      return context.signal;
    },
    extend: () => context.extend(),
    progress: (value) => context.progress(value),
    log: (line) => context.log(line),
    spawn: (child) => context.spawn(child),
    rateLimit: (ms) => context.rateLimit(ms),
    task,
  };
}

/** The range of a priority (docs/semantics.md §3.13), as create checks `core[Label.Priority]`. */
const priorityRange = { min: -2147483648, max: 2147483647 } as const;

/** readPriority checks a priority given as a number; throws TaskCoreError, as create does for the label. */
function readPriority(where: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (
    typeof value !== 'number' ||
    !Number.isInteger(value) ||
    value < priorityRange.min ||
    value > priorityRange.max
  ) {
    throw new TaskCoreError(
      `${where}: "priority" must be an integer from ${priorityRange.min} to ${priorityRange.max} (it is stored as core ${quoteShort(Label.Priority)}); got ${describe(value)}`,
    );
  }
  return value === 0 ? 0 : value; // -0 is 0
}

function readMeta(definition: unknown): Labels {
  const meta = (definition as TaskDefinition<unknown> | undefined)?.meta;
  // the labels are a task's: create's rules, its typed errors
  const { task } = validateCreate({ meta }, systemClock()); // meta alone: the time is not read
  return task.meta ?? {};
}

/** issues writes a schema's issues in a line: `to: Required; n: Expected number`. */
function issues(list: readonly StandardSchemaIssue[]): string {
  return list
    .slice(0, 5)
    .map((issue) => {
      const path = (issue.path ?? [])
        .map((segment) => String(typeof segment === 'object' ? segment.key : segment))
        .join('.');
      return path === '' ? issue.message : `${path}: ${issue.message}`;
    })
    .join('; ');
}
