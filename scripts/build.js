#!/usr/bin/env node
// Builds lib/ into dist/: tsc for the TypeScript, then dist/embedded.js
// written anew with the text of every file the code reads at run time (the
// .lua files and the dashboard's browser files, lib/dashboard/assets/), so
// they travel with the code when an app is bundled; the `rescue` bin made
// executable. The files under lib/ stay the only source: lib/embedded.ts
// reads them where they are when the code runs from the source tree (tests).
// The build goes to a staging folder that replaces dist/ at the end, so a
// concurrent test run never sees half a build.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const lib = join(root, 'lib');
const dist = join(root, 'dist');
const staging = join(root, `.dist-${process.pid}`);

rmSync(staging, { recursive: true, force: true });
execFileSync(
  process.execPath,
  [
    join(root, 'node_modules/typescript/bin/tsc'),
    '-p',
    join(root, 'tsconfig.build.json'),
    '--outDir',
    staging,
  ],
  { stdio: 'inherit' },
);

/** embeddedFiles: the paths under lib/ (with `/`) of the files lib/embedded.ts gives out. */
function embeddedFiles(dir) {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return embeddedFiles(path);
      const embedded = name.endsWith('.lua') || relative(lib, dir) === join('dashboard', 'assets');
      return embedded ? [relative(lib, path).split(sep).join('/')] : [];
    });
}
const files = Object.fromEntries(
  embeddedFiles(lib).map((path) => [path, readFileSync(join(lib, path), 'utf8')]),
);
writeFileSync(
  join(staging, 'embedded.js'),
  [
    '// Written by scripts/build.js from the files under lib/ it names: edit those.',
    `const files = new Map(Object.entries(${JSON.stringify(files, null, 1)}));`,
    '/** embeddedText returns the text of a file by its path under lib/, e.g. `engine/lua/create.lua`. */',
    'export function embeddedText(path) {',
    '  const text = files.get(path);',
    '  if (text === undefined) {',
    "    throw Object.assign(new Error(`ENOENT: no file ${path} in the build`), { code: 'ENOENT' });",
    '  }',
    '  return text;',
    '}',
    '',
  ].join('\n'),
);
// the `rescue` bin (package.json "bin"): tsc keeps its #! line; make it executable
chmodSync(join(staging, 'cli', 'main.js'), 0o755);
rmSync(dist, { recursive: true, force: true });
renameSync(staging, dist);
