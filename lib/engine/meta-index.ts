import type { EngineContext } from './context.js';
import { run } from './run.js';
import { argv } from './lua/arguments.js';

/**
 * listMetaIndexes makes sure the queue lists its tasks by the meta keys of
 * the engine's metaIndexes option before the engine's first exists, lister or
 * tasks() reads them (meta-index.lua): each call lists at most 256 of the records
 * stored before (or runs the stepTime), and it calls again until every key is
 * listed; from then on every write keeps the listing. Once per engine; a
 * failed attempt is made again by the next listing. Returns undefined when
 * there is nothing to wait for, so the common path adds no promise.
 */
export function listMetaIndexes(context: EngineContext): Promise<void> | undefined {
  if (context.metaIndexesListed || context.options.metaIndexes.length === 0) return undefined;
  context.metaIndexesListing ??= listAll(context).then(
    () => {
      context.metaIndexesListed = true;
    },
    (error: unknown) => {
      context.metaIndexesListing = undefined;
      throw error;
    },
  );
  return context.metaIndexesListing;
}

async function listAll(context: EngineContext): Promise<void> {
  const keys = JSON.stringify(context.options.metaIndexes);
  while ((await run(context, 'metaIndex', argv('meta_index', { keys }))) !== 1) {
    // the next call lists the next records
  }
}
