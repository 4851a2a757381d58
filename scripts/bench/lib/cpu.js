// CPU time around a piece of work: each Redis server's (INFO cpu) and the
// whole machine's (/proc/stat), so a benchmark can say where the load went
// and whether the machine had any left.
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';

/** redisCpuSeconds is a server's used_cpu_user + used_cpu_sys so far, in seconds. */
export async function redisCpuSeconds(client) {
  const info = await client.info('cpu');
  const field = (name) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? NaN);
  return field('used_cpu_user') + field('used_cpu_sys');
}

/**
 * machineTicks reads the machine's busy and total CPU ticks from /proc/stat
 * (Linux); undefined elsewhere. Busy is everything but idle and iowait: this
 * benchmark's processes and anybody else's.
 */
export function machineTicks() {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
    const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number);
    const total = ticks.reduce((sum, value) => sum + value, 0);
    return { busy: total - ticks[3] - ticks[4], total };
  } catch {
    return undefined;
  }
}

/** busyCores is how many of the machine's cores were busy on average between two readings. */
export function busyCores(before, after) {
  if (before === undefined || after === undefined || after.total === before.total) return NaN;
  return ((after.busy - before.busy) / (after.total - before.total)) * cpus().length;
}
