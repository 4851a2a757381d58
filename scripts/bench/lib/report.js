// Benchmark tables: printed to the terminal and written into a section of
// docs/benchmarks.md between markers, so several benchmark scripts share one
// document and each rewrites only its own section.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/** table renders rows (arrays of cells) under a header as a Markdown table. */
export function table(header, rows) {
  const widths = header.map((cell, column) =>
    Math.max(cell.length, ...rows.map((row) => String(row[column]).length)),
  );
  const line = (cells) =>
    `| ${cells.map((cell, column) => String(cell).padEnd(widths[column])).join(' | ')} |`;
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join(
    '\n',
  );
}

/** writeSection replaces (or appends) the section `name` of a Markdown file. */
export function writeSection(file, name, body) {
  const begin = `<!-- begin ${name} -->`;
  const end = `<!-- end ${name} -->`;
  const section = `${begin}\n${body.trim()}\n${end}`;
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n';
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  const next =
    from >= 0 && to > from
      ? text.slice(0, from) + section + text.slice(to + end.length)
      : `${text.trimEnd()}\n\n${section}\n`;
  writeFileSync(file, next);
}

export const number = (value, digits = 0) =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
