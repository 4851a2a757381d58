#!/usr/bin/env node
// Checks that the folders of lib/ import only downward: a module may import
// modules of its own unit (a folder of lib/, or a file at its top), of
// another unit of its layer, or of a lower layer, never of a higher one.
// `npm run lint` runs it; `node scripts/check-layers.js [root]` checks the
// lib/ of another tree. Exits 1 and lists each upward import.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * The layers of lib/, lowest first: each a list of units, a folder by its
 * name or a file at the top of lib/ by its file name (docs/architecture.md).
 */
export const layers = [
  ['errors.ts', 'clock.ts', 'spelling.ts', 'embedded.ts'],
  ['schedule'],
  ['task'],
  ['matcher'],
  ['options.ts'],
  ['engine'],
  ['worker'],
  ['typed'],
  // index.ts is the public entry: the demo imports it as a user would
  ['cli', 'dashboard', 'metrics', 'tracing', 'demo', 'testing', 'index.ts'],
];

/** unitOf names the unit of a path relative to lib/: its first folder, or the file itself. */
function unitOf(path) {
  return path.split(sep)[0];
}

function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The relative module specifiers a source imports or re-exports, statically or with import(). */
function specifiers(text) {
  const found = [];
  for (const match of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.[^'"]+)['"]/g)) {
    found.push(match[1]);
  }
  return found;
}

/** violations lists the upward imports of the lib/ under root, and units no layer names. */
export function violations(root) {
  const lib = join(root, 'lib');
  const layerOf = new Map(layers.flatMap((units, index) => units.map((unit) => [unit, index])));
  const found = [];
  for (const file of sources(lib)) {
    const from = unitOf(relative(lib, file));
    const fromLayer = layerOf.get(from);
    if (fromLayer === undefined) {
      found.push(`${relative(root, file)}: ${from} is in no layer (scripts/check-layers.js)`);
      continue;
    }
    for (const specifier of specifiers(readFileSync(file, 'utf8'))) {
      const target = relative(lib, resolve(dirname(file), specifier));
      if (target.startsWith('..')) continue; // outside lib/
      const to = unitOf(target).replace(/\.js$/, '.ts');
      const toLayer = layerOf.get(to);
      if (toLayer !== undefined && toLayer > fromLayer) {
        found.push(`${relative(root, file)} imports ${specifier}: ${from} may not import ${to}`);
      }
    }
  }
  return found;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = resolve(process.argv[2] ?? join(dirname(new URL(import.meta.url).pathname), '..'));
  const found = violations(root);
  for (const line of found) console.error(line);
  if (found.length > 0) {
    console.error(`layers: ${found.length} upward import(s)`);
    process.exit(1);
  }
  console.log('layers: every import of lib/ goes downward');
}
