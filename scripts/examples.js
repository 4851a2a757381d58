#!/usr/bin/env node
// npm run examples (and .ci/run): compiles examples/*.ts with their own
// tsconfig (strict, NodeNext; they import the package by its name, which
// resolves to this checkout's dist/ through package.json "exports") and runs
// each on a redis-server of its own (or REDIS_URL / REDIS_PORT), failing when
// one exits non-zero or runs longer than its time. A .js example (the
// README's, examples/readme.js) runs as it is.
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRedisServer } from '../dist/testing/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const examples = join(root, 'examples');
const timeoutMs = 30_000;

execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', examples], {
  stdio: 'inherit',
});
// a .ts example runs compiled; a .js one (the README's) as it is
const programs = new Map(
  readdirSync(examples)
    .filter((name) => name.endsWith('.ts') || name.endsWith('.js'))
    .map((name) => [
      name.replace(/\.[jt]s$/, ''),
      name.endsWith('.ts')
        ? join(examples, '.out', name.replace(/\.ts$/, '.js'))
        : join(examples, name),
    ]),
);
const names = [...programs.keys()].sort();

/** runExample runs one compiled example; resolves with what went wrong, or undefined. */
function runExample(name, url) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [programs.get(name)], {
      cwd: root,
      env: { ...process.env, REDIS_URL: url },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve(`did not end within ${timeoutMs} ms`);
    }, timeoutMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(code === 0 ? undefined : `exited with ${code ?? signal}`);
    });
  });
}

const server = await startRedisServer();
let passed = 0;
let failed = 0;
try {
  for (const name of names) {
    console.log(`examples: ${name}`);
    const started = Date.now();
    const problem = await runExample(name, server.url);
    if (problem === undefined) passed++;
    else failed++;
    console.log(
      `examples: ${problem === undefined ? 'ok  ' : 'FAIL'} ${name} (${Date.now() - started} ms)${problem === undefined ? '' : `: ${problem}`}`,
    );
  }
} finally {
  await server.stop();
}
console.log(`examples: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
