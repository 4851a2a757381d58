import { assertOpen, readClock, type EngineContext } from './context.js';
import { countTasks } from './observe.js';
import { run } from './run.js';
import { argv } from './lua/arguments.js';

/** How many tasks one expire script deletes or revokes at most, per kind. */
const expireBatch = 500;
/** How many records one expire call's sweep for records that are not tasks reads. */
const sweepCount = 50;

/**
 * expireTasks deletes tasks past retention and revokes ended leases
 * (docs/semantics.md §3.6), in batches of atomic steps that share one `now`. A lease
 * counts as ended once it ended `clockSkew` ms before `now`: the owner's
 * clock may be that far behind this engine's.
 */
export async function expireTasks(context: EngineContext): Promise<void> {
  assertOpen(context, 'expire');
  const now = readClock(context.clock).getTime();
  const cutoff = String(Math.max(0, now - context.options.cleanup)).padStart(13, '0');
  let sweep = sweepCount;
  // where the sweep of owned tasks past retention goes on (expire.lua)
  let ownedAfter = '';
  const counts = { retired: 0, revoked: 0, halted: 0 };
  try {
    for (;;) {
      const [retired, revoked, more, halted, owned] = (await run(
        context,
        'expire',
        argv('expire', {
          now_ms: now,
          cutoff,
          batch: expireBatch,
          sweep,
          revoke_ms: now - context.options.clockSkew,
          retention: context.options.outcomeRetention,
          most: context.options.outcomeLimit,
          failed: context.options.failedOutcomeRetention,
          halted_cutoff: now - context.options.haltedRetention,
          owned_after: ownedAfter,
        }),
      )) as [number, number, number, number, string];
      counts.retired += retired;
      counts.revoked += revoked;
      counts.halted += halted;
      sweep = 0;
      ownedAfter = owned;
      if (more !== 1) return;
    }
  } finally {
    // the batches that went through count, also when a later one failed
    countTasks(context, counts);
  }
}
