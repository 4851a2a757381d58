#!/usr/bin/env node
// Builds lib/ into dist/: tsc for the TypeScript, then a copy of every .lua
// file next to the compiled JavaScript that loads it, and of the dashboard's
// browser files (lib/dashboard/assets/), and the `rescue` bin made
// executable. The build goes to a
// staging folder that replaces dist/ at the end, so a concurrent test run
// never sees half a build.
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
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

function copyAssets(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) copyAssets(path);
    else if (name.endsWith('.lua') || relative(lib, dir) === join('dashboard', 'assets'))
      cpSync(path, join(staging, relative(lib, path)));
  }
}
copyAssets(lib);
// the `rescue` bin (package.json "bin"): tsc keeps its #! line; make it executable
chmodSync(join(staging, 'cli', 'main.js'), 0o755);
rmSync(dist, { recursive: true, force: true });
renameSync(staging, dist);
