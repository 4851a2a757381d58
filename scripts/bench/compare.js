#!/usr/bin/env node
// rescue-engine side by side with BullMQ (npm run bench:compare): lifecycle
// throughput and where its time goes, add throughput, wake-up latency, depth
// scaling, Redis memory per waiting task, and the Go original's access
// pattern. Both run on the same embedded Redis, alternating runs; each table
// is printed as it completes and all are written to the `compare` section of
// docs/benchmarks.md.
//
// Usage: node scripts/bench/compare.js [--runs N] [--quick] [--only SECTION]
//   --runs N        runs per side and scenario (default 3; the 1M depth runs once)
//   --quick         stop at 100k tasks, smaller counts everywhere (a smoke test)
//   --only SECTION  lifecycle, cost, add, wakeup, depth or original alone:
//                   printed, docs/benchmarks.md left as it is
import { readFileSync } from 'node:fs';
import { startBench } from './lib/setup.js';
import { writeSection } from './lib/report.js';
import { config } from './lib/compare-config.js';
import { ours } from './lib/compare-ours.js';
import { theirs } from './lib/compare-theirs.js';
import { progress } from './lib/compare-progress.js';
import { lifecycle } from './lib/compare-lifecycle.js';
import { cost } from './lib/compare-cost.js';
import { addThroughput } from './lib/compare-add.js';
import { wakeupLatency } from './lib/compare-wakeup.js';
import { depthScaling } from './lib/compare-depth.js';
import { indexing } from './lib/compare-indexing.js';
import { targets } from './lib/compare-targets.js';

const settings = config();
const bench = await startBench();
const url = bench.server.url;
const adapterOptions = { url, dropQueue: (prefix) => bench.dropQueue(prefix) };
const oursSide = ours(adapterOptions);
const sides = [oursSide, theirs(adapterOptions)]; // ours first: A B A B ...
const { runs } = settings;
const sections = [];

/** done prints a finished table and keeps it for the document. */
function done(section) {
  console.log(`\n${section}\n`);
  sections.push(section);
}

progress(`${settings.command}: ${runs} run(s) per side`);
if (settings.only !== undefined) {
  done(await onlySection(settings.only));
  await bench.stop();
  process.exit(0);
}
const life = await lifecycle({ sides, runs, url, ...settings.lifecycle });
done(life.body);
done(await cost({ sides, bench, ...settings.lifecycle }));
done(await addThroughput({ sides, runs, ...settings.add }));
const wakeup = await wakeupLatency({ sides, runs, ...settings.wakeup });
done(wakeup.body);
const depth = await depthScaling({ sides, runs, bench, ...settings.depth });
done(depth.depthBody);
done(depth.memoryBody);
done(await indexing({ bench, oursSide, runs, ...settings.original }));
done(
  targets({
    lifecycle: life.ratios,
    scaling: depth.oursScaling,
    wakeup: wakeup.p50,
    memory: depth.memory,
  }),
);

/** onlySection runs the one section `--only` names and returns its text. */
async function onlySection(name) {
  switch (name) {
    case 'lifecycle':
      return (await lifecycle({ sides, runs, url, ...settings.lifecycle })).body;
    case 'cost':
      return cost({ sides, bench, ...settings.lifecycle });
    case 'add':
      return addThroughput({ sides, runs, ...settings.add });
    case 'wakeup':
      return (await wakeupLatency({ sides, runs, ...settings.wakeup })).body;
    case 'depth': {
      const depth = await depthScaling({ sides, runs, bench, ...settings.depth });
      return `${depth.depthBody}\n\n${depth.memoryBody}`;
    }
    default:
      return indexing({ bench, oursSide, runs, ...settings.original });
  }
}

const bullmq = JSON.parse(
  readFileSync(new URL('../../node_modules/bullmq/package.json', import.meta.url), 'utf8'),
).version;
const { facts } = bench;
const body = [
  '## rescue-engine vs BullMQ',
  '',
  `Measured ${facts.date} with \`${settings.command}\` (\`npm run bench:compare\`) on ${facts.machine}; ` +
    `Node ${facts.node}, Redis ${facts.redis} (embedded, no persistence, shared by both` +
    `${facts.nice === undefined ? '' : `, at nice ${facts.nice}`}), BullMQ ${bullmq}; ` +
    'client and server on one machine.',
  '',
  ...sections.flatMap((section) => [section, '']),
].join('\n');
writeSection(new URL('../../docs/benchmarks.md', import.meta.url).pathname, 'compare', body);
progress('done: docs/benchmarks.md, section compare');
await bench.stop();
