import { createHash } from 'node:crypto';
import { encodeTask } from '../task/codec.js';
import type { Task } from '../task/task.js';

/**
 * FilterList is the filters one search tries in turn, as the search script
 * reads them: a JSON array of their JSON texts, and their ids. A filter's id
 * names it in Redis, where the queue keeps the filters its workers search
 * with (for their wake-ups) and a pool of matching tasks for each filter that
 * matches few of them (docs/redis-layout.md, "Filters").
 */
export interface FilterList {
  readonly texts: string;
  readonly ids: string;
  /** The set of the filters, whatever their order: broadcast delivery keeps a floor per set. */
  readonly set: string;
}

/** noFilters is the list of a search without a filter. */
export const noFilters: FilterList = { texts: '', ids: '', set: '' };

/** filterList prepares validated filters for the search script. */
export function filterList(filters: readonly Task[]): FilterList {
  if (filters.length === 0) return noFilters;
  const texts = filters.map((filter) => encodeTask(filter));
  const ids = texts.map((text) => filterId(text));
  return {
    texts: JSON.stringify(texts),
    ids: ids.map((id) => `${id},`).join(''),
    set: [...new Set(ids)].sort().join(','),
  };
}

/** filterId names a filter by its JSON text: the first 16 hex digits of its SHA-1. */
export function filterId(text: string): string {
  return createHash('sha1').update(text).digest('hex').slice(0, 16);
}
