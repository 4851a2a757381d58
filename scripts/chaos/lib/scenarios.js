// The scenarios of the chaos suite: what each does to the fleet, Redis or the
// network while the producer creates its tasks. `what` is the text of the
// table in docs/reliability.md.
import { setTimeout as sleep } from 'node:timers/promises';
import { now } from './log.js';

/** every runs action every ms while the run injects faults; the first comes after half a second. */
async function every(ms, run, action) {
  let wait = Math.min(ms, 500);
  while (run.faulting) {
    await sleep(wait);
    wait = ms;
    if (!run.faulting) break;
    await action();
  }
}

/** crashRedis kills Redis every 3 s and starts it again on its data. */
async function crashRedis(run) {
  await every(3_000, run, async () => {
    await run.redis.crash();
    run.count('crashes');
  });
}

// Engines' clocks apart: shared by skew and skew-allowed.
const skewApart = {
  what: "the engines' clocks are set apart, evenly from −skew to +skew (the producer's is right), and the worker furthest ahead alone runs expire, so its clock decides revocations; the engines are not told (clockSkew 0); no other fault",
  offsets: (count, skew) =>
    Array.from({ length: count }, (_, index) =>
      count === 1 ? 0 : Math.round(-skew + (2 * skew * index) / (count - 1)),
    ),
  // only the last worker, the one furthest ahead, runs the background chores
  background: (slot, count) => slot === count - 1,
  async faults() {},
};

export const scenarios = {
  kill: {
    what: 'a random worker process is killed with SIGKILL every second and replaced by a new one (new worker id)',
    async faults(run) {
      await every(1_000, run, async () => {
        await run.fleet.killOne();
        run.count('kills');
      });
    },
  },
  stop: {
    what: 'a random worker process is stopped with SIGSTOP for 1.5 × the lease, then resumed with SIGCONT; then the next, a second later',
    async faults(run) {
      await every(1_000, run, async () => {
        await run.fleet.pauseOne(1.5 * run.settings.expiry);
        run.count('stops');
      });
    },
  },
  'redis-always': {
    what: 'Redis (AOF, appendfsync always) is killed with SIGKILL every 3 s and started again on its data',
    redis: { appendonly: 'yes', appendfsync: 'always' },
    faults: crashRedis,
  },
  'redis-everysec': {
    what: 'as redis-always, with appendfsync everysec',
    redis: { appendonly: 'yes', appendfsync: 'everysec' },
    faults: crashRedis,
  },
  'drop-replies': {
    what: 'through the proxy: every 250 ms a busy connection swallows a reply and is cut (ioredis resends what it had sent); every second another busy connection is cut',
    proxy: true,
    async faults(run) {
      await Promise.all([
        every(250, run, () => {
          if (run.proxy.dropReply()) run.count('dropped replies');
        }),
        every(1_000, run, () => {
          if (run.proxy.cutConnection()) run.count('cut connections');
        }),
      ]);
    },
  },
  pause: {
    what: 'every 3 s Redis is paused for 0.6 leases, `CLIENT PAUSE <ms> WRITE` and `CLIENT PAUSE <ms> ALL` in turn',
    async faults(run) {
      let write = true;
      await every(3_000, run, async () => {
        const ms = 0.6 * run.settings.expiry;
        const mode = write ? 'WRITE' : 'ALL';
        write = !write;
        run.log.write({ t: 'pause', mode, ms, at: now() });
        await run.admin.call('CLIENT', 'PAUSE', String(ms), mode);
        run.count(`pauses ${mode}`);
      });
    },
  },
  delay: {
    what: 'through the proxy: every 3 s every reply is held back for 0.6 leases, then delivered',
    proxy: true,
    async faults(run) {
      await every(3_000, run, () => {
        run.log.write({ t: 'hold', ms: 0.6 * run.settings.expiry, at: now() });
        run.proxy.hold(0.6 * run.settings.expiry);
        run.count('holds');
      });
    },
  },
  skew: skewApart,
  'skew-allowed': {
    ...skewApart,
    what: 'as skew, with every engine told how far apart the clocks may be (the `clockSkew` option: 2 × skew)',
    clockSkew: (skew) => 2 * skew,
  },
};
