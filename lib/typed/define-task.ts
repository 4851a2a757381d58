import { systemClock } from '../clock.js';
import type { CreateOptions } from '../engine/create.js';
import type { Engine } from '../engine/engine.js';
import type { Outcome } from '../engine/outcome.js';
import type { UniqueCreate, UniqueOptions } from '../engine/unique.js';
import type { RunOptions, WaitOptions } from '../engine/wait.js';
import { TaskPayloadError, UnrecoverableError } from '../errors.js';
import { has } from '../matcher/matcher.js';
import { copyLabels } from '../task/codec.js';
import { quoteShort } from '../task/describe.js';
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
}

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
  /** create stores a task of this kind carrying the payload (validated by the schema first). */
  create(
    engine: Engine,
    payload: Payload,
    options: CreateOptions & { unique: UniqueOptions },
  ): Promise<UniqueCreate>;
  create(engine: Engine, payload: Payload, options?: CreateOptions): Promise<Task>;
  /** run creates a task of this kind and waits for its outcome (engine.run). */
  run(engine: Engine, payload: Payload, options?: RunOptions): Promise<TypedOutcome<Result>>;
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

  const taskOf = async (payload: Payload) => ({
    meta: copyLabels(meta),
    payload: await parse(payload),
  });

  return {
    get meta() {
      return copyLabels(meta);
    },
    parse,
    // one body for both overloads: engine.create answers what the options ask for
    create: (async (engine: Engine, payload: Payload, options?: CreateOptions) =>
      engine.create(await taskOf(payload), options)) as TypedTask<Payload, Result>['create'],
    async run(engine, payload, options) {
      return (await engine.run(await taskOf(payload), options)) as TypedOutcome<Result>;
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
