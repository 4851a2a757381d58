import { TaskCronError, TaskLimitError } from '../errors.js';
import { encodeTask } from '../task/codec.js';
import { describe } from '../task/describe.js';
import { Label } from '../task/label.js';
import { limits } from '../task/limits.js';
import type { Task } from '../task/task.js';
import { assertOpen, readClock, type EngineContext } from './context.js';
import { prepareCreate } from './create.js';
import { layoutVersion } from './keys.js';
import { readTaskById } from './read.js';
import { runRequest } from './run.js';
import { argv, type ArgumentValues } from './lua/arguments.js';

/** ScheduleResult is what `engine.schedule` answers. */
export interface ScheduleResult {
  /** created: the name had no template; updated: its template changed; unchanged: it was as given. */
  action: 'created' | 'updated' | 'unchanged';
  /** The template's id (the same across updates). */
  id: string;
  /** The template as the queue has it now; undefined if it left the queue since. */
  task: Task | undefined;
}

/**
 * scheduleTemplate creates or updates the cron template of a name
 * (docs/semantics.md §3.12): create's rules for the template, which must be a
 * cron template; one script decides, so engines that schedule the same name
 * at once leave one template.
 */
export async function scheduleTemplate(
  context: EngineContext,
  nameArgument: unknown,
  template: unknown,
): Promise<ScheduleResult> {
  const answer = await runSchedule(context, 'schedule', nameArgument, (name, now) => {
    const { stored, plan, args } = prepareCreate(template, now);
    if (plan.ticks === undefined) {
      throw new TaskCronError(
        `schedule: the template of ${JSON.stringify(name)} must be a cron template (cron ${JSON.stringify(Label.Every)})`,
      );
    }
    stored.core = { ...stored.core, [Label.Schedule]: name };
    return { task: encodeTask(stored), tick_p1_ms: args.tick_p1_ms, check_ms: args.check_ms };
  });
  const [action = '', id = ''] = answer.split(' ');
  if (action !== 'created' && action !== 'updated' && action !== 'unchanged') {
    throw new Error(`schedule: the script answered ${JSON.stringify(answer)}`);
  }
  return { action, id, task: await readTaskById(context, id) };
}

/** unscheduleTemplate removes the template of a name; true when there was one. */
export async function unscheduleTemplate(
  context: EngineContext,
  nameArgument: unknown,
): Promise<boolean> {
  const none = { task: '', tick_p1_ms: '', check_ms: '' };
  return (await runSchedule(context, 'unschedule', nameArgument, () => none)) !== 'none';
}

/**
 * runSchedule runs the schedule script for a name: `template` answers its
 * task, tick+1 and check arguments ('' for each: remove the name's template).
 */
async function runSchedule(
  context: EngineContext,
  operation: 'schedule' | 'unschedule',
  nameArgument: unknown,
  template: (
    name: string,
    now: Date,
  ) => Pick<ArgumentValues<'schedule'>, 'task' | 'tick_p1_ms' | 'check_ms'>,
): Promise<string> {
  assertOpen(context, operation);
  const name = readName(operation, nameArgument);
  const now = readClock(context.clock);
  const values = template(name, now);
  return (await runRequest(context, 'schedule', (request) =>
    argv('schedule', { ...values, now_ms: now.getTime(), name, layout: layoutVersion, request }),
  )) as string;
}

function readName(operation: string, name: unknown): string {
  if (typeof name !== 'string' || name === '' || !name.isWellFormed()) {
    throw new TypeError(
      `${operation}: the name must be a non-empty string without lone surrogates; got ${describe(name)}`,
    );
  }
  const bytes = Buffer.byteLength(name);
  if (bytes > limits.keyBytes) {
    throw new TaskLimitError(
      `${operation}: the name is ${bytes} bytes; the limit is ${limits.keyBytes} bytes per key`,
    );
  }
  return name;
}
