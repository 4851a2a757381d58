#!/usr/bin/env node
// The packaging test (npm run test:package; .ci/run): packs the package as
// npm publish would (the prepare script builds dist/), checks what the
// tarball holds, installs it into a scratch app in the temp folder, compiles
// scripts/package-test/main.ts against its types (strict, NodeNext), runs it
// on a redis-server of its own, bundles it with esbuild into one file and runs
// that from a folder with no node_modules, and requires the package from
// CommonJS. The dependencies come from the npm cache (--prefer-offline).
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const program = join(root, 'scripts', 'package-test');
const work = mkdtempSync(join(tmpdir(), 'rescue-package-'));
const app = join(work, 'app');
const alone = join(work, 'bundle');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

const step = (text) => console.log(`test:package: ${text}`);
const run = (command, args, options = {}) =>
  execFileSync(command, args, { encoding: 'utf8', timeout: 300_000, ...options });

let failed = 0;
let passed = 0;
function check(name, ok, detail = '') {
  if (ok) passed++;
  else failed++;
  console.log(
    `test:package: ${ok ? 'ok  ' : 'FAIL'} ${name}${ok || detail === '' ? '' : `: ${detail}`}`,
  );
}

const { startRedisServer } = await import(join(root, 'dist', 'testing', 'index.js')).catch(() => {
  throw new Error('test:package: dist/ is missing; run `npm run build` first');
});
// a server of our own whatever REDIS_URL says: loopback, no persistence, its dir in the temp folder
const server = await startRedisServer({ env: {} });
try {
  step('npm pack (the prepare script builds dist/)');
  const packed = JSON.parse(
    run(npm, ['pack', '--json', '--pack-destination', work], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  )[0];
  const files = packed.files.map((file) => file.path);
  const tarball = join(work, packed.filename);
  step(`${packed.filename}: ${files.length} files, ${packed.size} bytes`);
  const unwanted = (test) => files.filter(test);
  check('no demo in the tarball', unwanted((path) => /(^|\/)demo(\/|$)/.test(path)).length === 0);
  check(
    'no tests in the tarball',
    unwanted((path) => /\.(spec|test)\.[cm]?[jt]s$/.test(path)).length === 0,
  );
  check('no Redis dumps or AOFs', unwanted((path) => /\.(rdb|aof)$/.test(path)).length === 0);
  check('no benchmark or chaos scripts', unwanted((path) => /^scripts\//.test(path)).length === 0);
  check('no source maps', unwanted((path) => path.endsWith('.map')).length === 0);
  for (const path of [
    'LICENSE',
    'README.md',
    'package.json',
    'dist/index.js',
    'dist/index.d.ts',
    'dist/embedded.js',
    'dist/cli/main.js',
  ])
    check(`the tarball holds ${path}`, files.includes(path));

  step('a scratch app installs the tarball');
  mkdirSync(app);
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'scratch-app', private: true, type: 'module' }, null, 2),
  );
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
  const typesNode = lock.packages['node_modules/@types/node'].version;
  run(
    npm,
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      tarball,
      `@types/node@${typesNode}`,
    ],
    { cwd: app, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  cpSync(join(program, 'main.ts'), join(app, 'main.ts'));
  cpSync(join(program, 'tsconfig.json'), join(app, 'tsconfig.json'));

  step('tsc (strict, NodeNext) against the installed types');
  try {
    run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', app], {
      cwd: app,
    });
    check('the program compiles', true);
  } catch (error) {
    check('the program compiles', false, `${error.stdout ?? ''}${error.stderr ?? ''}`);
  }

  const runProgram = (name, file, cwd) => {
    try {
      const output = run(process.execPath, [file, server.url], { cwd, timeout: 60_000 });
      check(name, output.includes('package-test program: sum 5'), output);
    } catch (error) {
      check(name, false, `${error.stdout ?? ''}${error.stderr ?? ''}`);
    }
  };
  runProgram(
    'the compiled program runs a task and serves the stylesheet',
    join(app, 'out', 'main.js'),
    app,
  );

  step('esbuild bundles the program, the package and its dependencies into one file');
  const { build } = await import('esbuild');
  mkdirSync(alone);
  const bundle = join(alone, 'main.mjs');
  await build({
    entryPoints: [join(app, 'out', 'main.js')],
    absWorkingDir: app,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: bundle,
    logLevel: 'warning',
    // CommonJS dependencies (ioredis) call require(): give the ES module bundle one
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
  });
  const bundled = readFileSync(bundle, 'utf8');
  check('the bundle holds the Lua scripts', bundled.includes('engine/lua/create.lua'));
  check(
    'no node_modules beside the bundle',
    !existsSync(join(alone, 'node_modules')) && !existsSync(join(work, 'node_modules')),
  );
  runProgram('the bundle runs a task and serves the stylesheet', bundle, alone);

  step('CommonJS: require() of the package (Node >= 20.19)');
  try {
    const output = run(
      process.execPath,
      [
        '-e',
        "const r = require('rescue-engine'); console.log(typeof r.Engine, typeof r.Worker, require('rescue-engine/package.json').name)",
      ],
      { cwd: app },
    );
    check(
      'require("rescue-engine") gives Engine and Worker',
      output.trim() === 'function function rescue-engine',
      output,
    );
  } catch (error) {
    check(
      'require("rescue-engine") gives Engine and Worker',
      false,
      `${error.stdout ?? ''}${error.stderr ?? ''}`,
    );
  }
} finally {
  await server.stop();
  rmSync(work, { recursive: true, force: true });
}
console.log(`test:package: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
