// The adversarial depth table: every path of lib/engine that once read or
// walked a large part of the queue (adversarial-rows.js), on a queue holding
// few and on one holding many other tasks. A queue of each depth is filled
// once; each row prepares its own copy of it once per depth and runs on a
// fresh copy of that, alternating the depths round by round (the machine's
// speed drifts), and keeps the best round per depth. For each row: its
// throughput at both depths and what its scripts cost Redis (SLOWLOG).
import { Engine } from '../../../dist/index.js';
import { rows as allRows } from './adversarial-rows.js';
import { countingClient, slowest } from './redis-cost.js';
import { number, table } from './report.js';
import { inParallel } from './setup.js';

/** The flatness targets: every script under 5 ms, throughput at 1M at least 0.8 × at 1k. */
const SCRIPT_MOST_MS = 5;
const RATIO_LEAST = 0.8;
const PER_CREATE_MOST = 2;

const short = (depth) =>
  depth >= 1_000_000 ? `${depth / 1_000_000}M` : `${Math.round(depth / 1_000)}k`;
const ms = (us) => (us === 0 ? '< 0.1 ms' : `${number(us / 1000, 2)} ms`);

/**
 * adversarialSection measures the rows at each depth, `rounds` times, and
 * returns the section's Markdown ('' when only some rows ran).
 */
export async function adversarialSection(bench, { depths, rounds, rows = allRows }) {
  const url = bench.server.url;
  let queues = 0;
  const name = () => `bench-adv-${process.pid}-${queues++}`;

  /** a queue for a row: engines and counting clients on it, closed by `close` */
  function queueOn(queue) {
    const engines = [];
    const clients = [];
    return {
      url,
      redis: bench.redis,
      prefix: `rescue.io:{${queue}}`,
      engine(options) {
        const engine = new Engine({ redis: url, queue, ...options });
        engines.push(engine);
        return engine;
      },
      counting() {
        const counting = countingClient(url);
        clients.push(counting);
        return counting;
      },
      async close() {
        await Promise.all(engines.map((engine) => engine.close()));
        await Promise.all(clients.map(({ client }) => client.quit()));
      },
    };
  }

  const bases = new Map();
  for (const depth of depths) {
    const base = queueOn(name());
    const engine = base.engine({ worker: 'fill' });
    await inParallel(1_000, depth, (n) => engine.create({ meta: { kind: 'a', n: String(n) } }));
    await base.close();
    bases.set(depth, base);
    console.log(`adversarial: ${number(depth)} tasks filled`);
  }

  const results = new Map();
  for (const row of rows) {
    const prepared = new Map();
    const best = new Map();
    for (const depth of depths) {
      const queue = queueOn(name());
      await bench.cloneQueue(bases.get(depth).prefix, queue.prefix);
      const { result: state, worst } = await slowest(bench.redis, async () => row.prepare?.(queue));
      await queue.close();
      prepared.set(depth, { prefix: queue.prefix, state });
      // what the row's set-up cost counts with its rounds
      best.set(depth, {
        ops: 0,
        worst,
        p999: worst.p999,
        stall: worst.stall,
        probe: worst.probe,
        host: worst.host.longest,
      });
    }
    for (let round = 0; round < rounds; round++) {
      for (const depth of depths) {
        const queue = queueOn(name());
        await bench.cloneQueue(prepared.get(depth).prefix, queue.prefix);
        const { result, worst } = await slowest(bench.redis, () =>
          row.run(queue, prepared.get(depth).state),
        );
        await queue.close();
        await bench.dropQueue(queue.prefix);
        console.log(
          `adversarial ${row.name} at ${number(depth)}: ${number(result.ops)} ${row.unit}; ${result.also ?? ''}\n` +
            `  slowest script ${worst.name} ${ms(worst.us)}, 99.9th percentile ${ms(worst.p999)} ` +
            `of ${number(worst.scripts)} scripts, slowest constant-time command ${ms(worst.stall)}, ` +
            `probe ${ms(worst.probe.median)} (slowest ${ms(worst.probe.max)}), ` +
            `host stalls of 4 ms or more ${worst.host.stalls.length} (longest ${number(worst.host.longest, 2)} ms)` +
            `${worst.lost ? ' (the log overflowed)' : ''}; slowest of each: ` +
            [...worst.byName].map(([script, us]) => `${script} ${ms(us)}`).join(', '),
        );
        const kept = best.get(depth);
        // the best round's throughput; the worst cost seen in the set-up or any round
        best.set(depth, {
          ...(result.ops > kept.ops ? result : kept),
          worst: worst.us > kept.worst.us ? worst : kept.worst,
          p999: Math.max(worst.p999, kept.p999),
          stall: Math.max(worst.stall, kept.stall),
          probe: {
            median: Math.max(worst.probe.median, kept.probe.median),
            max: Math.max(worst.probe.max, kept.probe.max),
          },
          host: Math.max(worst.host.longest, kept.host),
        });
      }
    }
    for (const { prefix } of prepared.values()) await bench.dropQueue(prefix);
    results.set(row.name, best);
  }
  for (const base of bases.values()) await bench.dropQueue(base.prefix);
  return rows === allRows ? render(results, depths, rounds) : '';
}

function render(results, depths, rounds) {
  const low = depths[0];
  const high = depths[depths.length - 1];
  const tableRows = [];
  const notes = [];
  let worstAtHigh = { us: 0, name: '', row: '' };
  let p999AtHigh = { us: 0, row: '' };
  let stallAtHigh = 0;
  let probeAtHigh = 0;
  let hostAtHigh = 0;
  let worstRatio = { ratio: Infinity, row: '' };
  for (const row of allRows) {
    const at = results.get(row.name);
    const [a, b] = [at.get(low), at.get(high)];
    const ratio = b.ops / a.ops;
    tableRows.push([
      row.name,
      row.unit,
      number(a.ops),
      number(b.ops),
      `${number(ratio, 2)} ×`,
      `${ms(b.worst.us)} (${b.worst.name || '–'})${b.worst.lost ? ' *' : ''}`,
      ms(b.p999),
      ms(b.stall),
      `${ms(b.probe.median)} → ${ms(b.probe.max)}`,
      b.host === 0 ? '–' : `${number(b.host, 2)} ms`,
    ]);
    notes.push(
      `- **${row.name}**: ${row.setup}.` +
        depths
          .filter((depth) => at.get(depth).also)
          .map((depth) => ` At ${short(depth)}: ${at.get(depth).also}.`)
          .join(''),
    );
    if (b.worst.us > worstAtHigh.us) worstAtHigh = { ...b.worst, row: row.name };
    if (b.p999 > p999AtHigh.us) p999AtHigh = { us: b.p999, row: row.name };
    stallAtHigh = Math.max(stallAtHigh, b.stall);
    probeAtHigh = Math.max(probeAtHigh, b.probe.max);
    hostAtHigh = Math.max(hostAtHigh, b.host);
    // a row may measure what its records cost to read at all (its floor)
    const floor = a.floor && b.floor ? b.floor / a.floor : undefined;
    if (ratio < worstRatio.ratio) worstRatio = { ratio, row: row.name, floor };
  }
  const wake = results.get('wake-up');
  const perCreate = Math.max(
    ...depths.map((depth) => wake.get(depth).perCreate.create + wake.get(depth).perCreate.search),
  );
  const within = (us) => us <= SCRIPT_MOST_MS * 1000;
  const targets = table(
    ['target', 'measured', 'result'],
    [
      [
        `no script over ${SCRIPT_MOST_MS} ms at ${short(high)} in any row`,
        `slowest: ${ms(worstAtHigh.us)} (${worstAtHigh.name}, ${worstAtHigh.row}), while a ` +
          `constant-time command took up to ${ms(stallAtHigh)}, the probe up to ${ms(probeAtHigh)} and ` +
          `the host stood still up to ${number(hostAtHigh, 2)} ms; ` +
          '99.9th percentile at most ' +
          `${ms(p999AtHigh.us)} (${p999AtHigh.row})`,
        `${within(worstAtHigh.us) ? 'met' : 'missed'} by the slowest; ` +
          `${within(p999AtHigh.us) ? 'met' : 'missed'} by the 99.9th percentile`,
      ],
      [
        `throughput at ${short(high)} ≥ ${RATIO_LEAST} × at ${short(low)} in every row`,
        `lowest: ${number(worstRatio.ratio, 2)} × (${worstRatio.row})` +
          (worstRatio.floor === undefined
            ? ''
            : `; the same records read alone, nothing decoded: ${number(worstRatio.floor, 2)} ×`),
        worstRatio.ratio >= RATIO_LEAST ? 'met' : 'missed',
      ],
      [
        `scripts per create with 100 idle slots ≤ ${PER_CREATE_MOST} (the create and the searches it wakes)`,
        number(perCreate, 2),
        perCreate <= PER_CREATE_MOST ? 'met' : 'missed',
      ],
    ],
  );
  return (
    '### Adversarial depth\n\n' +
    `Each path that once read or walked a large part of the queue, on a queue that already holds ${short(low)} ` +
    `and ${short(high)} plain tasks of another kind (\`{ meta: { kind: 'a', n } }\`): the throughput of the ` +
    `operation named, the best of ${rounds} alternating round(s) per depth, and at ${short(high)} what one ` +
    'script cost Redis (`SLOWLOG`, every command of 0.1 ms or more recorded), over every script of the row ' +
    'and its rounds, its set-up after the fill included (the leaves, the due tasks, the broadcast tasks): the ' +
    'slowest, the 99.9th percentile, and the slowest constant-time command a script called (an `HGET`, a ' +
    '`ZADD`): when that took milliseconds, Redis stood still, whatever it was running. The probe is a script ' +
    'of fixed work (a loop, no keys) run every 20 ms beside the row and timed inside Redis: its median, and ' +
    'its slowest run; what that took beyond the median is time the host did not give Redis, and any script ' +
    'running then took as much longer; it sees only the stalls that fall in its own run. The host stall is ' +
    'the longest the host stood still while the row ran at that depth: a process beside Redis that sleeps 1 ms ' +
    'at a time woke that much late (4 ms or more; – for none); a script running then took as much longer, ' +
    'whatever its work (scripts/bench/lib/host-stalls.js). * marks a figure from a log that overflowed.\n\n' +
    table(
      [
        'path',
        'measured',
        `at ${short(low)}`,
        `at ${short(high)}`,
        `${short(high)} / ${short(low)}`,
        `slowest script at ${short(high)}`,
        '99.9th pct',
        'stall',
        'probe',
        'host stall',
      ],
      tableRows,
    ) +
    '\n\n' +
    notes.join('\n') +
    '\n\nAgainst the flatness targets:\n\n' +
    targets
  );
}
