#!/usr/bin/env node
// Builds lib/ into dist/: tsc for the TypeScript, then a copy of every .lua
// file next to the compiled JavaScript that loads it.
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const lib = join(root, 'lib');
const dist = join(root, 'dist');

rmSync(dist, { recursive: true, force: true });
execFileSync(
  process.execPath,
  [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')],
  {
    stdio: 'inherit',
  },
);

function copyAssets(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) copyAssets(path);
    else if (name.endsWith('.lua')) cpSync(path, join(dist, relative(lib, path)));
  }
}
copyAssets(lib);
