// The packaging test's program (scripts/test-package.js): a user's app that
// installed the packed tarball. It runs a task through a Worker, so the Lua
// scripts must load, and asks the dashboard for its stylesheet, so its
// browser files must be there too, whether this file runs as compiled by tsc
// next to node_modules or bundled by esbuild with nothing beside it.
import { Engine, Worker, createDashboard, has, type Handler } from 'rescue-engine';

const url = process.argv[2];
if (url === undefined) throw new Error('usage: main.js <redis url>');

const engine = new Engine({ redis: url, queue: `package-test-${process.pid}` });
const add: Handler = {
  labels: { meta: { 'x.api.io/action': 'add' } },
  filter: (task) => has(task.meta, { 'x.api.io/action': 'add' }),
  ensure: async (task) => {
    const a = Number(task.meta?.['x.api.io/a']);
    const b = Number(task.meta?.['x.api.io/b']);
    return Promise.resolve({ sum: a + b });
  },
};
const worker = new Worker(engine, [add]);
const dashboard = createDashboard(engine);
try {
  await worker.start();
  const outcome = await engine.run(
    { meta: { 'x.api.io/action': 'add', 'x.api.io/a': '2', 'x.api.io/b': '3' } },
    { timeout: 20_000 },
  );
  const result = outcome.result as { sum?: unknown } | undefined;
  if (outcome.state !== 'completed' || result?.sum !== 5) {
    throw new Error(`expected a completed outcome with sum 5, got ${JSON.stringify(outcome)}`);
  }
  const css = await dashboard.fetch(new Request('http://127.0.0.1/assets/dashboard.css'));
  const body = await css.text();
  if (css.status !== 200 || !body.includes(':root')) {
    throw new Error(`expected the dashboard's stylesheet, got ${css.status}: ${body.slice(0, 80)}`);
  }
  console.log(`package-test program: sum ${result.sum}, stylesheet ${body.length} characters`);
} finally {
  await dashboard.close();
  await worker.stop();
  await engine.close();
}
