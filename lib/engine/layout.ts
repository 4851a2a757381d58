import { QueueLayoutError } from '../errors.js';
import type { EngineContext } from './context.js';
import { layoutVersion } from './keys.js';

/**
 * checkLayout makes sure the queue was written by this layout version before
 * the engine's first script runs on it: it reads the queue's `layout` key
 * once per engine and remembers the answer. A missing key is fine (nothing
 * written yet: the first create writes it); another version rejects with
 * QueueLayoutError, now and on every later call, and nothing is written. A
 * read that fails (Redis away) is tried again by the next call. Returns
 * undefined once the check passed, so the hot path adds no promise.
 */
export function checkLayout(context: EngineContext): Promise<void> | undefined {
  if (context.layoutChecked) return undefined;
  context.layoutCheck ??= readLayout(context).then(
    (stored) => {
      if (stored !== null && stored !== layoutVersion) {
        throw new QueueLayoutError(
          `queue "${context.options.queue}" has key layout "${stored}" (${context.keys.layout}); this engine reads layout "${layoutVersion}" only` +
            (Number(stored) < Number(layoutVersion)
              ? ': with the older engines stopped, engine.repair() (rescue repair) moves it (docs/upgrading.md)'
              : ''),
        );
      }
      context.layoutChecked = true;
      if (stored !== null) context.layoutStored = true;
    },
    (error: unknown) => {
      context.layoutCheck = undefined;
      throw error;
    },
  );
  return context.layoutCheck;
}

/** readLayout returns the layout version stored for the queue, or null when none is. */
export function readLayout(context: EngineContext): Promise<string | null> {
  return context.reach.guard(context.connection.client.get(context.keys.layout));
}
