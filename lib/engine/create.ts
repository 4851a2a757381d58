import { copyLabels, copyTask, encodeTask } from '../task/codec.js';
import { Label, Method } from '../task/label.js';
import type { Labels, Task } from '../task/task.js';
import { formatTime } from '../task/time.js';
import { validateCreate } from '../task/validate.js';
import { schedule } from '../schedule/index.js';
import { assertOpen, readClock, type EngineContext } from './context.js';
import { layoutVersion } from './keys.js';
import { run } from './run.js';

/**
 * createTask stores a new task (semantics 3.1): validation, then one script
 * that mints the object id and indexes the task. Returns the stored task and
 * applies the same additions to the caller's object.
 */
export async function createTask(context: EngineContext, argument: unknown): Promise<Task> {
  assertOpen(context, 'create');
  const now = readClock(context.clock);
  const { task, plan } = validateCreate(argument, now);

  const stored = copyTask(task);
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

  const id = (await run(context, 'create', [
    now.getTime(),
    encodeTask(stored),
    plan.exactAt?.getTime() ?? '',
    tickP1Ms,
    checkMs,
    layoutVersion,
  ])) as string;
  stored.core[Label.Object] = id;
  applyAdditions(argument as Record<string, unknown>, stored);
  return copyTask(stored);
}

/** The caller's object gets the object id, a template's ticks and a default node. */
function applyAdditions(caller: Record<string, unknown>, stored: Task): void {
  const core = (caller['core'] ?? {}) as Labels;
  core[Label.Object] = stored.core?.[Label.Object] ?? '';
  caller['core'] = core;
  if (
    stored.cron?.[Label.TickM1] !== undefined &&
    caller['cron'] !== undefined &&
    caller['cron'] !== null
  ) {
    const cron = caller['cron'] as Labels;
    cron[Label.TickM1] = stored.cron[Label.TickM1] ?? '';
    cron[Label.TickP1] = stored.cron[Label.TickP1] ?? '';
  }
  if ((caller['node'] === undefined || caller['node'] === null) && stored.node !== undefined) {
    caller['node'] = copyLabels(stored.node);
  }
}
