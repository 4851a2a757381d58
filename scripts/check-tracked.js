#!/usr/bin/env node
// Fails when git tracks a file that does not belong in the repository: a
// Redis dump or append-only file (a redis-server started in the checkout
// writes them; a 97 MB dump.rdb got committed that way once) or any file
// larger than 1 MiB (data sets, binaries). A script rather than a test: it
// checks the repository, not the library, and CI runs it before the long suite.
// Usage: node scripts/check-tracked.js [--max-bytes N]
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const flag = process.argv.indexOf('--max-bytes');
const maxBytes = flag < 0 ? 1024 * 1024 : Number(process.argv[flag + 1]);
const redisFile = /\.rdb$|^appendonly.*\.aof$|\.aof\.\d+\.(base|incr)\.(rdb|aof)$/;

const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' })
  .split('\0')
  .filter((path) => path !== '');
const problems = [];
for (const path of tracked) {
  if (redisFile.test(basename(path)) || path.split('/').includes('appendonlydir')) {
    problems.push(`${path}: a Redis persistence file`);
    continue;
  }
  let size;
  try {
    size = statSync(join(root, path)).size;
  } catch {
    continue; // deleted in the work tree, not yet committed
  }
  if (size > maxBytes) problems.push(`${path}: ${size} bytes (more than ${maxBytes})`);
}
if (problems.length > 0) {
  console.error('check-tracked: these tracked files do not belong in the repository:');
  for (const problem of problems) console.error(`  ${problem}`);
  console.error('check-tracked: git rm --cached them (and ignore them in .gitignore).');
  process.exit(1);
}
console.log(
  `check-tracked: ${tracked.length} tracked files, none over ${maxBytes} bytes, no Redis dump`,
);
