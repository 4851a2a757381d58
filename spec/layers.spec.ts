import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// scripts/check-layers.js (run by `npm run lint`): folders of lib/ import only downward.

function checkLayers(root?: string) {
  const args = ['scripts/check-layers.js', ...(root === undefined ? [] : [root])];
  const { status, stdout, stderr } = spawnSync(process.execPath, args, { encoding: 'utf8' });
  return { status, output: `${stdout}${stderr}` };
}

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'layers-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('folder layering', () => {
  it('holds for lib/', () => {
    const { status, output } = checkLayers();
    expect([status, output]).toEqual([0, 'layers: every import of lib/ goes downward\n']);
  });

  it.each([
    ['task imports matcher', 'lib/task/limits.ts', "import { x } from '../matcher/pattern.js';"],
    ['engine imports worker', 'lib/engine/a.ts', "export { x } from '../worker/b.js';"],
    ['errors imports task', 'lib/errors.ts', "const m = await import('./task/a.js');"],
  ])('reports an upward import: %s', (_name, path, text) => {
    const root = tree({ [path]: text, 'lib/index.ts': '' });
    try {
      const { status, output } = checkLayers(root);
      expect([status, output]).toEqual([1, expect.stringContaining(`${path} imports`)]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('allows imports within a layer and downward, and names a folder no layer lists', () => {
    const root = tree({
      'lib/cli/a.ts': "import { d } from '../dashboard/d.js';\nimport { e } from '../engine/e.js';",
      'lib/plugins/p.ts': '',
    });
    try {
      const { status, output } = checkLayers(root);
      expect([status, output]).toEqual([1, expect.stringContaining('plugins is in no layer')]);
      expect(output).not.toContain('lib/cli/a.ts');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
