// What a benchmark row costs Redis: the slowest single command (SLOWLOG) and
// how many scripts ran (INFO commandstats), and a client that counts the
// engine's scripts by name (the approach of conformance/harness/counting.ts).
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { watchHost } from './host-stalls.js';
import { scripts } from '../../../dist/engine/lua/scripts.js';

const nameBySha = new Map(Object.entries(scripts).map(([name, script]) => [script.sha, name]));
const nameBySource = new Map(
  Object.entries(scripts).map(([name, script]) => [script.source, name]),
);
const nameByFunction = new Map(
  Object.entries(scripts).map(([name, script]) => [script.library.name, name]),
);
/** The commands that run a script, and how each names it. */
const scriptCommands = new Map([
  ['fcall', nameByFunction],
  ['evalsha', nameBySha],
  ['eval', nameBySource],
]);
/**
 * scriptName names an FCALL by its function, an EVALSHA by its SHA, an EVAL
 * (a script's first run on a server without functions, which compiles it) by
 * its source; SLOWLOG keeps only the first 128 characters of that, the same
 * for every script: 'eval' then.
 */
const scriptName = (command, head) => scriptCommands.get(command)?.get(head) ?? command;

/**
 * Commands that take constant time on the small records and members of these
 * benchmarks. Redis logs the commands a script calls too: when one of these
 * took milliseconds, Redis was not running (the machine gave its core to
 * another process), and a script that took as long says nothing of its work.
 */
const constantTime = new Set([
  'hget',
  'hset',
  'hexists',
  'hdel',
  'zadd',
  'zrem',
  'zscore',
  'incr',
  'exists',
  'get',
  'set',
  'publish',
]);

/**
 * The SLOWLOG records every command slower than this (µs). Below it a command
 * cannot be the slowest of a row that matters (an engine script takes 50 µs
 * or more). A threshold of 0 would record every command, the ones scripts
 * call included: the log would overflow between two reads, and the logging
 * would add to the very scripts it times.
 */
const THRESHOLD_US = 100;
/** How many entries the log keeps, and how many one read takes. */
const LOG_LENGTH = 2_000;
/** How often the log is read while a row runs (ms). */
const READ_EVERY = 100;

/**
 * The probe: a script of fixed work (a loop, no keys), run every PROBE_EVERY_MS
 * beside a row on a connection of its own, timed inside Redis (TIME before
 * and after the loop). Its work never changes, so what it took beyond its
 * median is time Redis did not run while it ran. About 0.2 ms a run: 1 % of
 * Redis's time. It sees only the stalls that fall in its own run (Redis runs
 * one script at a time): those during other scripts the host meter sees
 * (host-stalls.js).
 */
const PROBE = `local before = redis.call('TIME')
local sum = 0
for index = 1, 5000 do sum = sum + index % 7 end
local after = redis.call('TIME')
return (after[1] - before[1]) * 1000000 + (after[2] - before[2])`;
const PROBE_EVERY_MS = 20;
const PROBE_SHA = createHash('sha1').update(PROBE).digest('hex');

/** probeWhile runs the probe until `done` resolves and returns its times (µs), sorted. */
async function probeWhile(redis, done) {
  const client = redis.duplicate();
  await client.script('LOAD', PROBE);
  const times = [];
  let finished = false;
  void done.finally(() => {
    finished = true;
  });
  try {
    while (!finished) {
      times.push(Number(await client.evalsha(PROBE_SHA, 0)));
      await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
    }
  } finally {
    await client.quit();
  }
  return times.sort((a, b) => a - b);
}

/** BENCH_SHOW_OVER=<µs>: print each script of a row that took that long or longer, with its arguments. */
const SHOW_OVER_US = Number(process.env.BENCH_SHOW_OVER ?? 0);

/**
 * slowest watches the SLOWLOG while `action` runs and returns its result with
 * `worst`, what the scripts Redis ran meanwhile cost:
 * - `us` and `name`: the slowest single script (`name` is the engine script's
 *   name; `us` 0 when none took THRESHOLD_US or more);
 * - `p999`: the 99.9th percentile of the scripts' times: on a shared machine
 *   a script now and then waits for the CPU in the middle of its run, and
 *   that shows in the maximum but not here, while a script whose work grows
 *   with the queue shows in both;
 * - `stall`: the slowest constant-time command (a script called it): how
 *   long Redis stood still now and then, whatever it ran;
 * - `byName`: the slowest of each script, `scripts`: how many ran (INFO
 *   commandstats), `lost` when the log overflowed between two reads (the
 *   figures may then miss some);
 * - `probe`: the median and slowest run of the probe (PROBE) meanwhile;
 * - `host`: the stalls of the host meanwhile (host-stalls.js): `stalls`,
 *   `longest` (ms).
 * Redis logs the commands a script calls too; only scripts count here, and
 * not the probe.
 */
export async function slowest(redis, action) {
  const previous = await redis.config('GET', 'slowlog-*');
  await redis.config('SET', 'slowlog-log-slower-than', THRESHOLD_US, 'slowlog-max-len', LOG_LENGTH);
  await redis.slowlog('RESET');
  const durations = [];
  const worst = {
    us: 0,
    name: '',
    p999: 0,
    stall: 0,
    byName: new Map(),
    lost: false,
    scripts: 0,
    probe: { median: 0, max: 0 },
    host: { stalls: [], longest: 0 },
  };
  let lastId = -1;
  // never RESET while the row runs: what arrived between a read and a reset would be lost
  const read = async () => {
    const entries = (await redis.slowlog('GET', LOG_LENGTH)).filter(
      (entry) => Number(entry[0]) > lastId,
    );
    if (entries.length === 0) return;
    const ids = entries.map((entry) => Number(entry[0]));
    if (Math.min(...ids) > lastId + 1 && entries.length >= LOG_LENGTH) worst.lost = true;
    lastId = Math.max(...ids);
    for (const [, , duration, args] of entries) {
      const command = String(args[0]).toLowerCase();
      const us = Number(duration);
      if (constantTime.has(command)) worst.stall = Math.max(worst.stall, us);
      if (!scriptCommands.has(command) || String(args[1]) === PROBE_SHA) continue;
      const name = scriptName(command, String(args[1]));
      durations.push(us);
      if (SHOW_OVER_US > 0 && us >= SHOW_OVER_US)
        console.log(
          // the script's arguments: after the command, its name, the key count and the key
          `slow: ${us} µs ${name} ${args
            .slice(4)
            .map((arg) => String(arg).slice(0, 40))
            .join(' | ')}`,
        );
      worst.byName.set(name, Math.max(us, worst.byName.get(name) ?? 0));
      if (us > worst.us) Object.assign(worst, { us, name });
    }
  };
  let reading = Promise.resolve();
  const timer = setInterval(() => {
    reading = reading.then(read);
  }, READ_EVERY);
  const before = await scriptCalls(redis);
  const host = watchHost();
  let stopProbe = () => {};
  const probing = probeWhile(redis, new Promise((resolve) => (stopProbe = resolve)));
  try {
    const result = await action();
    return { result, worst };
  } finally {
    stopProbe();
    const times = await probing;
    worst.probe = { median: times[Math.floor(times.length / 2)] ?? 0, max: times.at(-1) ?? 0 };
    worst.host = await host.stop();
    clearInterval(timer);
    await reading;
    await read();
    // the host's stalls as long, by their end (epoch ms: most scripts' first argument is the engine's clock)
    if (SHOW_OVER_US > 0)
      for (const { end, ms } of worst.host.stalls)
        if (ms * 1000 >= SHOW_OVER_US) console.log(`host stall: ${ms} ms, ended ${end}`);
    worst.scripts = (await scriptCalls(redis)) - before - times.length;
    // the k-th slowest of all scripts, where k is a thousandth of them
    const rank = Math.max(1, Math.ceil(worst.scripts / 1000));
    worst.p999 = durations.sort((a, b) => b - a)[rank - 1] ?? 0;
    await redis.config(
      'SET',
      'slowlog-log-slower-than',
      previous[previous.indexOf('slowlog-log-slower-than') + 1],
      'slowlog-max-len',
      previous[previous.indexOf('slowlog-max-len') + 1],
    );
  }
}

/** scriptCalls is how many scripts (FCALL, EVALSHA and EVAL) Redis ran so far, by INFO commandstats. */
export async function scriptCalls(redis) {
  const stats = await redis.info('commandstats');
  let calls = 0;
  for (const match of stats.matchAll(/^cmdstat_(fcall|evalsha|eval):calls=(\d+)/gm)) {
    calls += Number(match[2]);
  }
  return calls;
}

/**
 * countingClient is an ioredis client (give it to an Engine as `redis`) that
 * counts the engine's scripts Redis ran for it, by script name: a call that
 * found no function or script is not counted (the call after the load, or the
 * EVAL, is). Scripts of another version than dist/ holds count under 'fcall',
 * 'evalsha' or 'eval'. `reset` starts the counts anew from the scripts sent
 * after it.
 */
export function countingClient(url) {
  const client = new Redis(url);
  const counts = new Map();
  // a script sent before a reset is not counted after it, even when its
  // answer is read later: the event loop may read another connection's
  // answer first (the check that led to the reset, say)
  let since = 0;
  const send = client.sendCommand.bind(client);
  client.sendCommand = (command, stream) => {
    if (scriptCommands.has(command.name)) {
      const name = scriptName(command.name, String(command.args[0]));
      const sent = since;
      command.promise.then(
        () => sent === since && counts.set(name, (counts.get(name) ?? 0) + 1),
        () => {},
      );
    }
    return send(command, stream);
  };
  const reset = () => {
    counts.clear();
    since++;
  };
  return { client, counts, reset };
}
