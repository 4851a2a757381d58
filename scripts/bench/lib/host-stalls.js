// Host stalls: times when the machine ran neither Redis nor anything else. On
// a virtual machine the host now and then stops every virtual CPU at once
// for milliseconds; a script running then takes that much longer, whatever
// its work. The probe of redis-cost.js cannot see them: Redis runs one
// script at a time, so the probe is timed only between other scripts. This
// meter is a process that sleeps 1 ms at a time (host-stall-meter.js) and
// notes each wake-up that came late: a stall of the host, or of its own
// process on a crowded machine. BENCH_RENICE raises its priority as Redis's;
// BENCH_REALTIME runs it at the real-time priority one above Redis's
// (setup.js), so that only the host's stalls remain.
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';

/** The meter notes wake-ups this late or later (ms). */
const STALL_MS = 4;

/**
 * watchHost starts the meter; `stop()` ends it and returns the stalls seen
 * meanwhile: `{ end, ms }` each (the epoch ms of the late wake-up, how late),
 * in time order, with `longest` (ms, 0 for none).
 */
export function watchHost() {
  const command = [
    process.execPath,
    new URL('./host-stall-meter.js', import.meta.url).pathname,
    String(STALL_MS),
  ];
  const realtime = process.env.BENCH_REALTIME;
  if (realtime !== undefined && realtime !== '')
    command.unshift('chrt', '-f', String(Number(realtime) + 1));
  const meter = spawn(command[0], command.slice(1), { stdio: ['ignore', 'pipe', 'ignore'] });
  const nice = process.env.BENCH_RENICE;
  if (nice !== undefined && nice !== '' && meter.pid !== undefined) {
    try {
      setPriority(meter.pid, Number(nice));
    } catch {
      // as reniceRedis: without the right to, the meter runs at the usual priority
    }
  }
  let text = '';
  meter.stdout.on('data', (chunk) => (text += chunk.toString()));
  // (a meter that could not start, `chrt` missing say, sees no stall)
  const exited = new Promise((resolve) => {
    meter.once('exit', resolve);
    meter.once('error', resolve);
  });
  return {
    async stop() {
      meter.kill('SIGKILL');
      await exited;
      const stalls = text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => {
          const [end, ms] = line.split(' ').map(Number);
          return { end, ms };
        });
      return { stalls, longest: Math.max(0, ...stalls.map((stall) => stall.ms)) };
    },
  };
}
