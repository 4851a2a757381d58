#!/usr/bin/env node
// Checks the links of the markdown pages (README.md, CHANGELOG.md, docs/*.md):
// every relative link names a file of the repository, and every anchor
// (#heading) names a heading of its page, spelled as GitHub spells heading ids.
// Links to the web are not fetched. Exits 1 and lists what is broken.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');

/** The markdown pages the site and the repository show. */
export function pages() {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(root, 'docs', name));
  return [join(root, 'README.md'), join(root, 'CHANGELOG.md'), ...docs];
}

/** slug spells a heading's id as GitHub does: lower case, punctuation dropped, spaces to '-'. */
export function slug(heading) {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}_\- ]/gu, '')
    .replace(/ /g, '-');
}

/** outside drops fenced code blocks and inline code, where link syntax is text. */
function prose(text) {
  const lines = [];
  let fence = null;
  for (const line of text.split('\n')) {
    const open = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence === null && open) fence = open[1];
    else if (fence !== null && line.trim().startsWith(fence)) fence = null;
    else if (fence === null) lines.push(line.replace(/`[^`]*`/g, ''));
    if (fence !== null || open) lines.push('');
  }
  return lines.join('\n');
}

/** anchors lists the ids of a page's headings (repeats get -1, -2 as on GitHub). */
export function anchors(text) {
  const seen = new Map();
  const ids = new Set();
  let fence = null;
  for (const line of text.split('\n')) {
    const open = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence === null && open) {
      fence = open[1];
      continue;
    }
    if (fence !== null) {
      if (line.trim().startsWith(fence)) fence = null;
      continue;
    }
    const heading = /^#{1,6} (.*)$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1].replace(/`/g, ''));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.add(n === 0 ? base : `${base}-${n}`);
  }
  return ids;
}

/** brokenLinks lists the broken links of one page. */
export function brokenLinks(file) {
  const text = readFileSync(file, 'utf8');
  const broken = [];
  const links = /!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;
  for (const match of prose(text).matchAll(links)) {
    const target = match[1];
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
    const [path, anchor] = target.split('#');
    const to = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
    if (!existsSync(to)) {
      broken.push(`${target}: no such file`);
      continue;
    }
    if (anchor === undefined || statSync(to).isDirectory()) continue;
    if (!to.endsWith('.md')) continue;
    if (!anchors(readFileSync(to, 'utf8')).has(anchor))
      broken.push(`${target}: no heading #${anchor} in ${relative(root, to)}`);
  }
  return broken;
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  let count = 0;
  for (const file of pages()) {
    for (const problem of brokenLinks(file)) {
      console.error(`${relative(root, file)}: ${problem}`);
      count += 1;
    }
  }
  if (count > 0) {
    console.error(`${count} broken link${count === 1 ? '' : 's'}`);
    process.exit(1);
  }
  console.log(`links: ${pages().length} pages, no broken link`);
}
