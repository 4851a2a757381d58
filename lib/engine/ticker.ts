import { TaskCronError } from '../errors.js';
import { schedule } from '../schedule/index.js';
import { formatTime, tryParseTime } from '../task/time.js';
import { assertOpen, readClock, type EngineContext } from './context.js';
import { countTasks } from './observe.js';
import { run } from './run.js';
import { argv } from './lua/arguments.js';

/** How many templates one ticker step looks at. */
const tickerBatch = 200;

/** TickerReply is the ticker script's answer: children emitted, and the stale ids. */
type TickerReply = [emitted: number, stale: string[]];

/** The ticks of one template, or `unreadable` for a template whose @every has none. */
type TickEntry = Ticks | { id: string; every: string; seen: string; unreadable: true };

interface Ticks {
  id: string;
  every: string;
  seen: string;
  m1: string;
  p1: string;
  p1_ms: number;
  pm: string;
  pm_ms: number;
  pm_next: string;
  pm_next_ms: number;
}

/**
 * tickTemplates runs tick-1 maintenance and emission for every cron template
 * that is due or may need maintenance (docs/semantics.md §3.9). The ticks are computed
 * here from each template's @every and `now`; the script re-checks each
 * template and reports the ones that changed meanwhile, which are computed
 * again.
 */
export async function tickTemplates(context: EngineContext): Promise<void> {
  assertOpen(context, 'ticker');
  const now = readClock(context.clock);
  const attempts = new Map<string, number>();
  let emitted = 0;
  try {
    await tickBatches(context, now, attempts, (count) => (emitted += count));
  } finally {
    // the batches that went through count, also when a later one failed
    countTasks(context, { created: { cron: emitted } });
  }
}

/** tickBatches runs ticker steps until no template is due; `emitted` hears each step's children. */
async function tickBatches(
  context: EngineContext,
  now: Date,
  attempts: Map<string, number>,
  emitted: (count: number) => void,
): Promise<void> {
  const nowMs = now.getTime();
  for (;;) {
    const flat = (await run(
      context,
      'tickerDue',
      argv('ticker_due', { now_ms: nowMs, limit: tickerBatch }),
    )) as string[];
    const entries: TickEntry[] = [];
    for (let index = 0; index + 2 < flat.length; index += 3) {
      const id = flat[index] ?? '';
      const tries = attempts.get(id) ?? 0;
      if (tries >= 3) continue; // looked at already in this call
      attempts.set(id, tries + 1);
      entries.push(tickEntry(id, flat[index + 1] ?? '', flat[index + 2] ?? '', now));
    }
    if (entries.length === 0) return;
    entries.sort((a, b) => (a.id < b.id ? -1 : 1));
    const [count, stale] = (await run(
      context,
      'ticker',
      argv('ticker', { now_ms: nowMs, entries: JSON.stringify(entries) }),
    )) as TickerReply;
    emitted(count);
    const retry = new Set(stale);
    for (const entry of entries) if (!retry.has(entry.id)) attempts.set(entry.id, 3);
  }
}

function tickEntry(id: string, every: string, seen: string, now: Date): TickEntry {
  try {
    const ticks = schedule(every, now);
    const seenAt = tryParseTime(seen);
    const settled = seenAt === undefined ? undefined : schedule(every, seenAt).tickM1;
    const settledNext = schedule(every, ticks.tickP1).tickM1;
    return {
      id,
      every,
      seen,
      m1: formatTime(ticks.tickM1),
      p1: formatTime(ticks.tickP1),
      p1_ms: ticks.tickP1.getTime(),
      pm: settled === undefined ? '' : formatTime(settled),
      pm_ms: settled?.getTime() ?? 0,
      pm_next: formatTime(settledNext),
      pm_next_ms: settledNext.getTime(),
    };
  } catch (error) {
    // A template whose @every cannot be read (or has no tick in range) is
    // skipped (docs/semantics.md §1.10); the script parks it so no ticker reads it again.
    if (error instanceof TaskCronError) return { id, every, seen, unreadable: true };
    throw error;
  }
}
