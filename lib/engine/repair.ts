import { Label } from '../task/label.js';
import { tryDecodeStored } from '../task/codec.js';
import type { Task } from '../task/task.js';
import { tryParseTime } from '../task/time.js';
import { assertOpen, readClock, type EngineContext } from './context.js';
import { layoutVersion } from './keys.js';
import { runUnchecked } from './run.js';
import { argv } from './lua/arguments.js';

/** How many records one step of repair reads. */
const repairBatch = 100;

/** RepairReport says what engine.repair() did. */
export interface RepairReport {
  /** records indexed anew */
  tasks: number;
  /** records that are not tasks (left to expire's sweep), or that changed meanwhile (indexed by that change) */
  skipped: number;
  /** scripts run */
  steps: number;
}

/**
 * repairQueue rebuilds every index of the queue from its records: the first
 * step drops them all and writes this engine's layout version (so it also
 * moves a queue of an older layout to this one), the next steps index the
 * records a batch at a time (docs/redis-layout.md). The queue stays usable
 * meanwhile, but a task whose record is not indexed again yet is invisible
 * to search, expire and ticker: run it while workers are stopped, or accept
 * that for the seconds it takes. Running it again starts over.
 */
export async function repairQueue(context: EngineContext): Promise<RepairReport> {
  assertOpen(context, 'repair');
  const nowMs = readClock(context.clock).getTime();
  await runUnchecked(
    context,
    'repairStart',
    argv('repair_start', { layout: layoutVersion, retired: JSON.stringify(context.keys.retired) }),
  );
  context.layoutCheck = undefined;
  context.layoutChecked = true;
  context.layoutStored = true;
  // the declared meta keys are listed anew: this engine's next listing waits for it
  context.metaIndexesListing = undefined;
  context.metaIndexesListed = false;
  const report: RepairReport = { tasks: 0, skipped: 0, steps: 1 };
  let cursor = '0';
  do {
    const [next = '0', ...flat] = (await runUnchecked(
      context,
      'repairRead',
      argv('repair_read', { cursor, count: repairBatch }),
    )) as string[];
    const entries: [string, string, number | '', number | '-inf' | '', number | ''][] = [];
    for (let index = 0; index + 1 < flat.length; index += 2) {
      const id = flat[index] ?? '';
      const record = flat[index + 1] ?? '';
      const task = tryDecodeStored(id, record);
      if (task === undefined) report.skipped++;
      else entries.push([id, record, dueMs(task), tickMs(task), leaseEndMs(task)]);
    }
    report.steps += 2;
    if (entries.length > 0) {
      const indexed = (await runUnchecked(
        context,
        'repairWrite',
        argv('repair_write', { now_ms: nowMs, entries: JSON.stringify(entries) }),
      )) as number;
      report.tasks += indexed;
      report.skipped += entries.length - indexed;
    }
    cursor = next;
  } while (cursor !== '0');
  return report;
}

/** The due time of an @exact, deferred or retried task (0: unreadable, so due at once), or '' for others. */
function dueMs(task: Task): number | '' {
  // a retry's due time wins, as retry.lua set it (templates are never retried)
  const retryAt = task.core?.[Label.RetryAt];
  if (retryAt !== undefined) return tryParseTime(retryAt)?.getTime() ?? 0;
  const cron = task.cron;
  if (cron === undefined || cron[Label.Every] !== undefined) return '';
  if (cron[Label.Exact] !== undefined) return tryParseTime(cron[Label.Exact])?.getTime() ?? 0;
  if (cron[Label.Defer] !== undefined && cron[Label.TickP1] !== undefined) {
    return tryParseTime(cron[Label.TickP1])?.getTime() ?? 0;
  }
  return '';
}

/** A cron template's tick+1 ('-inf': missing or unreadable, so overdue), or '' for others. */
function tickMs(task: Task): number | '-inf' | '' {
  if (task.cron?.[Label.Every] === undefined) return '';
  return tryParseTime(task.cron[Label.TickP1])?.getTime() ?? '-inf';
}

/** An owned task's lease end (0: missing or unreadable, so ended), or '' for others. */
function leaseEndMs(task: Task): number | '' {
  if (task.core?.[Label.Worker] === undefined || task.core[Label.Worker] === '') return '';
  return tryParseTime(task.core[Label.Expiry])?.getTime() ?? 0;
}
