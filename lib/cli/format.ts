// Output: aligned tables and key-value blocks for people, JSON for scripts.
// Nothing here talks to Redis.
import type { Labels, Task } from '../task/task.js';

/** Column is one column of a table: its header and how a row shows in it. */
export interface Column<Row> {
  readonly header: string;
  readonly cell: (row: Row) => string;
}

/** table lays rows out in aligned columns under upper-case headers; `(none)` when empty. */
export function table<Row>(rows: readonly Row[], columns: readonly Column<Row>[]): string {
  if (rows.length === 0) return '(none)';
  const cells = [
    columns.map((column) => column.header.toUpperCase()),
    ...rows.map((row) => columns.map((column) => oneLine(column.cell(row)))),
  ];
  const widths = columns.map((_, index) =>
    Math.max(...cells.map((line) => (line[index] ?? '').length)),
  );
  return cells
    .map((line) =>
      line
        .map((cell, index) => (index === line.length - 1 ? cell : cell.padEnd(widths[index] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** fields lays out `name  value` pairs with the values aligned. */
export function fields(pairs: readonly (readonly [string, string])[]): string {
  const width = Math.max(...pairs.map(([name]) => name.length));
  return pairs.map(([name, value]) => `${name.padEnd(width)}  ${oneLine(value)}`).join('\n');
}

/** json writes a value as indented JSON (Dates as ISO strings). */
export function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

/** labelList writes a label map as `k=v, k=v` ('' when empty). */
export function labelList(labels: Labels | undefined): string {
  return Object.entries(labels ?? {})
    .map(([key, value]) => `${key}=${value}`)
    .join(', ');
}

/** The maps of a task in the order they are shown. */
const taskMaps = ['core', 'cron', 'gate', 'meta', 'node', 'root', 'sync'] as const;

/** taskLabels writes every label of a task, one per line: `meta  kind = mail`. */
export function taskLabels(task: Task): string {
  const lines: [string, string][] = [];
  for (const map of taskMaps) {
    for (const [key, value] of Object.entries(task[map] ?? {}))
      lines.push([map, `${key} = ${value}`]);
  }
  if (task.payload !== undefined) lines.push(['payload', JSON.stringify(task.payload)]);
  return lines.length === 0 ? '(no labels)' : fields(lines);
}

/** duration writes ms the short human way: 850ms, 12s, 3m 05s, 2h 10m, 3d 4h. */
export function duration(ms: number): string {
  const sign = ms < 0 ? '-' : '';
  let rest = Math.abs(Math.round(ms));
  if (rest < 1_000) return `${sign}${rest}ms`;
  rest = Math.floor(rest / 1_000);
  if (rest < 60) return `${sign}${rest}s`;
  const pad = (n: number) => String(n).padStart(2, '0');
  if (rest < 3_600) return `${sign}${Math.floor(rest / 60)}m ${pad(rest % 60)}s`;
  if (rest < 86_400)
    return `${sign}${Math.floor(rest / 3_600)}h ${pad(Math.floor(rest / 60) % 60)}m`;
  return `${sign}${Math.floor(rest / 86_400)}d ${Math.floor(rest / 3_600) % 24}h`;
}

/** relative says how far a time is from now: `in 12s` or `5s ago`. */
export function relative(at: Date, now: Date): string {
  const ms = at.getTime() - now.getTime();
  return ms >= 0 ? `in ${duration(ms)}` : `${duration(-ms)} ago`;
}

/** oneLine keeps a cell on one line (labels may hold newlines). */
/** oneLine keeps a value on its line, and keeps terminal control characters out of it. */
export function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what it removes
  return text.replace(/[\r\n\t]/g, ' ').replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
}
