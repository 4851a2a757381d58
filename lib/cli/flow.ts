// Flow control as the CLI shows it (docs/semantics.md §3.15, §3.16): the caps
// and rate limits of engine.stats(), with their counts. Nothing here talks to
// Redis.
import type { CapStats, RateLimitStats } from '../engine/stats.js';
import { relative, table } from './format.js';

/** How many values a cell names (the fullest first); stats() read up to 20. */
const valuesShown = 5;

/** capsTable lays out the caps of stats(): owned now, values at the cap, the fullest values. */
export function capsTable(caps: readonly CapStats[]): string {
  return table(caps, [
    { header: 'cap', cell: (cap) => cap.key ?? '(whole queue)' },
    { header: 'concurrency', cell: (cap) => String(cap.concurrency) },
    { header: 'owned', cell: (cap) => `${cap.owned}${cap.exact ? '' : '+'}` },
    {
      header: 'values (at the cap)',
      cell: (cap) => (cap.key === undefined ? '-' : `${cap.valueCount} (${cap.full})`),
    },
    {
      header: 'fullest values',
      cell: (cap) => named(cap.values.map((value) => `${value.value}=${value.owned}`)),
    },
  ]);
}

/** limitsTable lays out the rate limits of stats(): claims in the current windows, values closed, the busiest. */
export function limitsTable(limits: readonly RateLimitStats[], now: Date): string {
  return table(limits, [
    { header: 'limit', cell: (rate) => rate.key ?? '(whole queue)' },
    { header: 'rate', cell: (rate) => rate.limit ?? '(held only)' },
    { header: 'claims now', cell: (rate) => `${rate.counted}${rate.exact ? '' : '+'}` },
    {
      header: 'values (closed)',
      cell: (rate) => (rate.key === undefined ? '-' : `${rate.valueCount} (${rate.closed})`),
    },
    {
      header: 'busiest windows',
      cell: (rate) =>
        named(
          rate.values.map(
            (window) =>
              `${rate.key === undefined ? '' : `${window.value}=`}${window.held ? 'held' : window.claims} (reopens ${relative(window.reopensAt, now)})`,
          ),
        ),
    },
  ]);
}

function named(list: readonly string[]): string {
  if (list.length === 0) return '-';
  const shown = list.slice(0, valuesShown).join(', ');
  return list.length > valuesShown ? `${shown}, …` : shown;
}
