import { Label } from '../task/label.js';
import { formatTime } from '../task/time.js';
import { validateExtend } from '../task/validate.js';
import { assertOpen, readClock, type EngineContext } from './context.js';
import { run } from './run.js';
import { argv } from './lua/arguments.js';

/** extendTask gives the caller's owned task a fresh lease from now (docs/semantics.md §3.7). */
export async function extendTask(context: EngineContext, argument: unknown): Promise<void> {
  assertOpen(context, 'extend');
  const { task, objectId } = validateExtend(argument);
  const now = readClock(context.clock);
  const leaseEndMs = now.getTime() + context.options.expiry;
  await run(
    context,
    'extend',
    argv('extend', {
      now_ms: now.getTime(),
      id: objectId,
      worker: task.core?.[Label.Worker] ?? '',
      expiry: formatTime(new Date(leaseEndMs)),
      expiry_ms: leaseEndMs,
      token: task.core?.[Label.Token] ?? '',
    }),
  );
}
