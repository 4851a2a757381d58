import { readFileSync } from 'node:fs';
import { commands } from '../../lib/cli/commands/index.js';
import { ExitCode } from '../../lib/cli/exit.js';

// docs/cli.md's tables say what the code says: the commands of
// lib/cli/commands/index.ts, in the order `rescue --help` lists them, and
// the exit codes of lib/cli/exit.ts.

const page = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');

/** firstCells returns the first cell of each row of the table whose header starts with `| <header>`. */
function firstCells(header: string): string[] {
  const lines = page.split('\n');
  const start = lines.findIndex((line) => line.startsWith(`| ${header} `));
  if (start < 0) throw new Error(`docs/cli.md has no table headed "${header}"`);
  const rows: string[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.split('|')[1]?.trim() ?? '');
  }
  return rows;
}

describe('docs/cli.md', () => {
  it('lists every command, in the order of rescue --help', () => {
    const documented = firstCells('command').map((cell) =>
      cell
        .replaceAll('`', '')
        .replace(/\s*\[?<[^>]+>\]?/g, '')
        .trim(),
    );
    expect(documented).toEqual(Object.keys(commands));
  });

  it('lists every exit code', () => {
    expect(firstCells('exit code').map(Number)).toEqual(Object.values(ExitCode));
  });
});
