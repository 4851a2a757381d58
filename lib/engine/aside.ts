import { assertOpen, readClock, type EngineContext } from './context.js';
import { run } from './run.js';
import { argv } from './lua/arguments.js';

/** AsideOperation names the steps of aside.lua (docs/semantics.md §3.17). */
export type AsideOperation = 'sort' | 'pause' | 'refill' | 'drain-key' | 'drain-query';

/**
 * moveAside runs aside.lua until it is done: each call moves a bounded
 * step of claimable tasks into or out of `aside` (docs/semantics.md §3.17)
 * and answers where the next one goes on. Each step is atomic; the whole is
 * not, and needs not be: searches set aside what a step did not reach yet.
 */
export async function moveAside(
  context: EngineContext,
  operation: AsideOperation,
  subject: string,
): Promise<void> {
  let cursor = '';
  do {
    assertOpen(context, operation === 'pause' || operation === 'drain-query' ? 'pause' : 'lanes');
    const now = readClock(context.clock);
    cursor = (await run(
      context,
      'aside',
      argv('aside', { now_ms: now.getTime(), operation, subject, cursor }),
    )) as string;
  } while (cursor !== '');
}

/**
 * followLanes does what caps.lua or rates.lua answered the engine must do
 * next for the lanes of `key` (2 sort, 3 refill, 4 drain-key); resolves
 * whether the flow controls changed (any answer but 0).
 */
export async function followLanes(
  context: EngineContext,
  answer: number,
  key: string,
): Promise<boolean> {
  if (answer === 2) await moveAside(context, 'sort', key);
  else if (answer === 3) await moveAside(context, 'refill', key);
  else if (answer === 4) await moveAside(context, 'drain-key', key);
  return answer !== 0;
}
