import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

// House rules that a grep can keep: one file spells the reserved scheme, one
// file reads the wall clock.
const root = new URL('..', import.meta.url).pathname;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(ts|lua)$/.test(name) ? [path] : [];
  });
}

const libFiles = sources(join(root, 'lib')).map((path) => ({
  path: relative(root, path),
  text: readFileSync(path, 'utf8'),
}));

describe('house rules', () => {
  it('spells reserved labels only in lib/task/label.ts', () => {
    const offenders = libFiles
      .filter(({ path }) => path !== 'lib/task/label.ts')
      .filter(({ text }) => /['"](task|time|addr|sync)\.rescue\.io\//.test(text))
      .map(({ path }) => path);
    expect(offenders).toEqual([]);
  });

  it('reads the wall clock only in lib/clock.ts (timers aside)', () => {
    const offenders = libFiles
      .filter(({ path }) => path !== 'lib/clock.ts' && !path.startsWith('lib/testing/'))
      .filter(({ text }) => /Date\.now\(\)|new Date\(\)/.test(text))
      .map(({ path }) => path);
    expect(offenders).toEqual([]);
  });
});
