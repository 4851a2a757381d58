import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { keyNames } from '../lib/engine/keys.js';

// House rules that a grep can keep: one file spells the reserved scheme, one
// file reads the wall clock, one file builds a queue's keys.
const root = new URL('..', import.meta.url).pathname;

function sources(dir: string, pattern = /\.(ts|lua)$/): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path, pattern);
    return pattern.test(name) ? [path] : [];
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

  it('has tests take a queue’s keys from lib/engine/keys.ts (q.key.<name>), never `${prefix}:<name>`', () => {
    const known = new Set<string>(keyNames);
    const offenders = ['conformance', 'spec']
      .flatMap((dir) => sources(join(root, dir), /\.spec\.ts$/))
      .flatMap((path) =>
        [...readFileSync(path, 'utf8').matchAll(/\$\{[^}]*prefix\}:([a-z-]+)/g)]
          .filter((match) => known.has(match[1] ?? ''))
          .map((match) => `${relative(root, path)}: ${match[0]}`),
      );
    expect(offenders).toEqual([]);
  });

  it('has tests read a task’s id with the harness’s idOf, not a copy of their own', () => {
    const offenders = sources(join(root, 'conformance'), /\.spec\.ts$/)
      .filter((path) => /(const|function) idOf\b[^\n]*\btask\b/.test(readFileSync(path, 'utf8')))
      .map((path) => relative(root, path));
    expect(offenders).toEqual([]);
  });
});
