import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The types of defineTask refuse a wrong payload: a program that passes one
// does not compile (tsc --noEmit, strict, NodeNext), and the same program
// with the right payload does, against the built declarations in dist/.
// spec/types/typed-task.ts holds the other cases,
// checked by `npm run typecheck`.

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');

function compile(payload: string): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'rescue-types-'));
  try {
    // the built types, as a user's program sees them (npm test builds dist/ first)
    const entry = JSON.stringify(join(root, 'dist', 'index.js'));
    writeFileSync(
      join(dir, 'main.ts'),
      [
        `import { defineTask, Engine } from ${entry};`,
        `const sendMail = defineTask<{ to: string }, { messageId: string }>({ meta: { kind: 'send-mail' } });`,
        `export const created = sendMail.create(new Engine(), ${payload});`,
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2023', 'ES2024.String'],
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
          typeRoots: [join(root, 'node_modules', '@types')],
        },
        files: ['main.ts'],
      }),
    );
    const run = spawnSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    return { status: run.status, output: `${run.stdout}${run.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('defineTask types (tsc --noEmit, strict, NodeNext)', () => {
  it('refuse a wrong payload and take the right one', () => {
    const wrong = compile('{ to: 42 }');
    expect(wrong.status).not.toBe(0);
    expect(wrong.output).toMatch(
      /main\.ts\(3,\d+\): error TS2322: Type 'number' is not assignable to type 'string'/,
    );
    const right = compile("{ to: 'ann@example.com' }");
    expect(right.output).toBe('');
    expect(right.status).toBe(0);
  }, 120_000);
});
