// How the pages write times and durations: label times as stored, with how
// far they are from now; durations in the largest unit that fits.
import { parseTime } from '../../task/time.js';
import { html, type Html } from '../html.js';

/** duration writes ms as `850 ms`, `42 s`, `3.5 min`, `2.1 h`, `4.0 d`. */
export function duration(ms: number): string {
  const size = Math.abs(ms);
  if (size < 1_000) return `${Math.round(ms)} ms`;
  if (size < 60_000) return `${Math.round(ms / 1_000)} s`;
  if (size < 3_600_000) return `${(ms / 60_000).toFixed(1)} min`;
  if (size < 86_400_000) return `${(ms / 3_600_000).toFixed(1)} h`;
  return `${(ms / 86_400_000).toFixed(1)} d`;
}

/** relative writes an instant against now: `in 3.5 min`, `42 s ago`, `now`. */
export function relative(at: Date, now: Date): string {
  const delta = at.getTime() - now.getTime();
  if (Math.abs(delta) < 500) return 'now';
  return delta > 0 ? `in ${duration(delta)}` : `${duration(-delta)} ago`;
}

/**
 * timeLabel shows a time label's value as stored and, when it is a time,
 * how far from now; a value that is not a time is shown as it is.
 */
export function timeLabel(value: string | undefined, now: Date): Html {
  if (value === undefined) return html`<span class="none">—</span>`;
  let at: Date;
  try {
    at = parseTime(value);
  } catch {
    return html`<code>${value}</code>`;
  }
  return html`<time datetime="${at.toISOString()}">${value}</time>
    <span class="relative">(${relative(at, now)})</span>`;
}

/** count writes an integer with thin separators (`1 204 000`). */
export function count(value: number): string {
  return value.toLocaleString('en-US').replace(/,/g, '\u202f');
}
