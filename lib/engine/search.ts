import { decodeStored, encodeTask } from '../task/codec.js';
import type { Task } from '../task/task.js';
import { formatTime } from '../task/time.js';
import { validateFilter } from '../task/validate.js';
import { assertOpen, readClock, type EngineContext } from './context.js';
import { run } from './run.js';

type SearchReply = [
  kind: 'broadcast' | 'task' | 'none',
  id: string,
  record: string,
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
  await pruneLedger(context, nowMs);

  for (;;) {
    const [kind, id, record, floor] = (await run(context, 'search', [
      nowMs,
      context.options.worker,
      formatTime(new Date(leaseEndMs)),
      leaseEndMs,
      filter === undefined ? '' : encodeTask(filter),
      ledger.floor,
      JSON.stringify(ledger.doneIds()),
      JSON.stringify(ledger.leasedIds(nowMs)),
      context.startMs,
    ])) as SearchReply;
    ledger.raiseFloor(Number(floor));
    if (kind === 'none') return undefined;
    const task = decodeStored(id, record);
    if (kind === 'task') return task;
    if (ledger.deliver(id, nowMs, leaseEndMs)) return task;
  }
}

/** How often (engine time) the ledger drops entries of tasks that left the queue. */
const ledgerPruneIntervalMs = 60_000;

/**
 * pruneLedger forgets broadcast tasks that are no longer in the queue (an
 * engine may; semantics 1.8), at most once a minute and only when the ledger
 * holds something.
 */
async function pruneLedger(context: EngineContext, nowMs: number): Promise<void> {
  const { ledger } = context;
  if (ledger.size === 0 || nowMs - context.ledgerPrunedMs < ledgerPruneIntervalMs) return;
  context.ledgerPrunedMs = nowMs;
  const ids = ledger.ids();
  const gone: string[] = [];
  for (let start = 0; start < ids.length; start += 1_000) {
    const batch = ids.slice(start, start + 1_000);
    const scores = await context.connection.client.zmscore(context.keys.broadcast, ...batch);
    batch.forEach((id, index) => {
      if (scores[index] === null) gone.push(id);
    });
  }
  ledger.forget(gone);
}
