// The worker processes of a chaos run: forked, killed with SIGKILL, stopped
// with SIGSTOP and resumed, and stopped gracefully at the end. The fleet logs
// what it did to which process and when, for the analysis.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { now } from './log.js';

const workerScript = fileURLToPath(new URL('../worker.js', import.meta.url));

/**
 * sameClockWorkers: settingsFor of startFleet for workers that share Redis's
 * clock (no offset, no skew) and run in the background; `extra` is added to
 * each worker's settings.
 */
export function sameClockWorkers(settings, { url, chaos, dir }, extra = {}) {
  return (slot, id) => ({
    ...settings,
    id,
    url,
    queue: chaos,
    chaos,
    logDir: dir,
    offsetMs: 0,
    clockSkew: 0,
    background: true,
    ...extra,
  });
}

/** startFleet forks `count` workers; settingsFor(index, id) gives each its settings. */
export async function startFleet(count, settingsFor, log) {
  const live = new Map(); // id -> child
  let generation = 0;

  async function spawnWorker(slot) {
    const id = `w${slot}.${generation++}`;
    const child = fork(workerScript, [JSON.stringify(settingsFor(slot, id))], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const entry = {
      id,
      slot,
      child,
      exited: new Promise((resolve) => child.once('exit', resolve)),
    };
    live.set(id, entry);
    log.write({ t: 'spawn', worker: id, pid: child.pid, at: now() });
    await new Promise((resolve, reject) => {
      child.once('message', resolve);
      void entry.exited.then((code) =>
        reject(new Error(`worker ${id} exited (${code}) before it was ready`)),
      );
    });
    return entry;
  }

  const entries = [];
  for (let slot = 0; slot < count; slot++) entries.push(spawnWorker(slot));
  await Promise.all(entries);

  const pick = () => {
    const all = [...live.values()].filter((entry) => !entry.paused);
    return all[Math.floor(Math.random() * all.length)];
  };

  return {
    /** killOne kills a random worker with SIGKILL and forks a replacement on a new worker id. */
    async killOne() {
      const victim = pick();
      if (victim === undefined) return;
      live.delete(victim.id);
      victim.child.kill('SIGKILL');
      log.write({ t: 'kill', worker: victim.id, at: now() });
      await victim.exited;
      // the replacement starts in the background: the next kill comes on time
      void spawnWorker(victim.slot).catch((error) =>
        log.write({ t: 'spawn-failed', at: now(), error: String(error.message) }),
      );
    },
    /** pauseOne stops a random worker with SIGSTOP for ms, then resumes it with SIGCONT. */
    async pauseOne(ms) {
      const victim = pick();
      if (victim === undefined) return;
      victim.paused = true;
      victim.child.kill('SIGSTOP');
      log.write({ t: 'sigstop', worker: victim.id, at: now() });
      await new Promise((resolve) => setTimeout(resolve, ms));
      log.write({ t: 'sigcont', worker: victim.id, at: now() });
      victim.child.kill('SIGCONT');
      victim.paused = false;
    },
    /** stop asks every worker to stop (they finish their runs, then exit) and waits; kills one that hangs. */
    async stop(timeoutMs = 30_000) {
      await Promise.all(
        [...live.values()].map(async ({ id, child, exited }) => {
          if (child.exitCode === null && child.connected) child.send('stop');
          const timer = setTimeout(() => {
            log.write({ t: 'kill', worker: id, at: now(), hung: true });
            child.kill('SIGKILL');
          }, timeoutMs);
          await exited;
          clearTimeout(timer);
        }),
      );
      live.clear();
    },
  };
}
