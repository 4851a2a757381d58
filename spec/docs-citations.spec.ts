import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

// Code and tests cite the specification as `docs/semantics.md §3.2` (and
// further sections of one sentence as `§5.2`). Every cited section must exist
// in docs/semantics.md, and nothing may cite what a newcomer cannot open: the
// contract files we started from, a bare "semantics 3.2", or an issue number.

const root = new URL('..', import.meta.url).pathname;
const semantics = readFileSync(join(root, 'docs/semantics.md'), 'utf8');
const searched = ['lib', 'conformance', 'spec', 'scripts'];
const self = 'spec/docs-citations.spec.ts';

/** sections lists the section numbers of docs/semantics.md's headings: '3', '3.2', ... */
function sections(): Set<string> {
  const found = new Set<string>();
  for (const match of semantics.matchAll(/^#{2,4} §(\d+(?:\.\d+)*) /gm)) found.add(match[1] ?? '');
  return found;
}

/** files lists every text file under the searched folders. */
function files(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(ts|js|lua|sh)$/.test(name) || !name.includes('.')) out.push(path);
    }
  };
  for (const dir of searched) walk(join(root, dir));
  return out.filter((path) => relative(root, path) !== self);
}

interface Hit {
  file: string;
  line: number;
  text: string;
}

/** hits finds every match of a pattern, with file and line. */
function hits(pattern: RegExp): Hit[] {
  const out: Hit[] = [];
  for (const path of files()) {
    const lines = readFileSync(path, 'utf8').split('\n');
    lines.forEach((text, index) => {
      for (const match of text.matchAll(pattern))
        out.push({ file: relative(root, path), line: index + 1, text: match[0] });
    });
  }
  return out;
}

describe('citations of docs/semantics.md', () => {
  it('has numbered sections', () => {
    expect([...sections()]).toEqual(expect.arrayContaining(['0', '1.10', '3.2', '4.7', '5.2']));
  });

  it('cites only sections that exist', () => {
    const known = sections();
    const cited = hits(/§(\d+(?:\.\d+)*)/g);
    expect(cited.length).toBeGreaterThan(50);
    const missing = cited
      .filter((hit) => !known.has(hit.text.slice(1)))
      .map((hit) => `${hit.file}:${hit.line} ${hit.text}`);
    expect(missing).toEqual([]);
  });

  it('cites the specification by its file, docs/semantics.md', () => {
    const full = hits(/docs\/semantics\.md §\d/g);
    expect(full.length).toBeGreaterThan(50);
  });

  it('names docs/semantics.md in every file that cites a section', () => {
    const citing = new Set(hits(/§\d/g).map((hit) => hit.file));
    const unnamed = [...citing].filter(
      (file) => !readFileSync(join(root, file), 'utf8').includes('docs/semantics.md'),
    );
    expect(unnamed).toEqual([]);
  });

  it('cites no file outside the repository and no bare "semantics N.N"', () => {
    const spec = 'spec/' + 'semantics.md';
    const api = 'spec/' + 'api.md';
    const wrong = [
      ...hits(new RegExp(`${spec.replace('.', '\\.')}|${api.replace('.', '\\.')}`, 'g')),
      ...hits(/(?<![/\w.])semantics(?:\.md)? \d+(?:\.\d+)*/g),
      ...hits(/\bissues? #?\d+/gi),
    ].map((hit) => `${hit.file}:${hit.line} ${hit.text}`);
    expect(wrong).toEqual([]);
  });
});
