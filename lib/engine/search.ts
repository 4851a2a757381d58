import { decodeTask, encodeTask } from '../task/codec.js';
import { Label } from '../task/label.js';
import type { Task } from '../task/task.js';
import { formatTime } from '../task/time.js';
import { validateFilter } from '../task/validate.js';
import { assertOpen, readClock, type EngineContext } from './context.js';
import { run } from './run.js';

type SearchReply = [
  kind: 'broadcast' | 'task' | 'none',
  json: string,
  floor: string,
  nextDue: string,
];

/**
 * searchTask delivers a broadcast task or claims a task for this worker
 * (semantics 3.2), in one script. When two searches of this engine race for
 * the same broadcast task, the ledger lets one deliver it and the other
 * searches again.
 */
export async function searchTask(
  context: EngineContext,
  filterArgument?: unknown,
): Promise<Task | undefined> {
  assertOpen(context, 'search');
  const filter = validateFilter(filterArgument);
  const now = readClock(context.clock);
  const nowMs = now.getTime();
  const leaseEndMs = nowMs + context.options.expiry;
  const { ledger } = context;
  ledger.forget(nowMs - context.options.cleanup);

  for (;;) {
    const [kind, json, floor] = (await run(context, 'search', [
      nowMs,
      context.options.worker,
      formatTime(new Date(leaseEndMs)),
      leaseEndMs,
      filter === undefined ? '' : encodeTask(filter),
      ledger.floor,
      JSON.stringify(ledger.doneIds()),
      JSON.stringify(ledger.leasedIds(nowMs)),
    ])) as SearchReply;
    ledger.raiseFloor(floor);
    if (kind === 'none') return undefined;
    const task = decodeTask(json);
    if (kind === 'task') return task;
    if (ledger.deliver(task.core?.[Label.Object] ?? '', nowMs, leaseEndMs)) return task;
  }
}
