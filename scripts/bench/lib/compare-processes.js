// Processing with several worker processes: fork compare-child.js per process,
// start them together and time until they completed `count` between them.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const childScript = fileURLToPath(new URL('./compare-child.js', import.meta.url));
const exitTimeoutMs = 30_000;

/**
 * processInChildren returns ms from the first child's worker start to the
 * last of `count` completions across the children, then stops them: one child
 * per name in `queues`, or `processes` children on `queue`. `url` is a Redis
 * URL or a cluster target (cluster-target.js). The optional `beforeStart` and
 * `afterDone` run right before the children are told to start and right after
 * the last completion (to read counters around the work alone); `afterDone`
 * gets each child's last report: `{ done, startedCpu, cpu }` (CPU in µs).
 */
export async function processInChildren(kind, options) {
  const { url, concurrency, count, beforeStart, afterDone } = options;
  const queues = options.queues ?? Array.from({ length: options.processes }, () => options.queue);
  const children = queues.map((queue) => spawnChild([kind, url, queue, String(concurrency)]));
  try {
    await Promise.all(children.map((child) => child.ready));
    await beforeStart?.();
    for (const child of children) child.process.send('start');
    await allCompleted(children, count);
    await afterDone?.(children.map((child) => child.state));
    const start = Math.min(...children.map((child) => child.state.startedAt));
    const end = Math.max(...children.map((child) => child.state.lastAt));
    return end - start;
  } finally {
    await Promise.all(children.map(stopChild));
  }
}

/** spawnChild forks one worker process and tracks what it reports. */
function spawnChild(args) {
  const child = fork(childScript, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const state = { done: 0, lastAt: 0, startedAt: Infinity, listeners: new Set() };
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.on('message', (message) => {
    if (message.type === 'started') Object.assign(state, message);
    if (message.type === 'progress') Object.assign(state, message);
    for (const listener of state.listeners) listener();
  });
  const ready = new Promise((resolve, reject) => {
    child.on('message', (message) => message.type === 'ready' && resolve());
    void exited.then((code) => reject(new Error(`worker process exited (${code}) early`)));
  });
  return { process: child, state, ready, exited };
}

/** allCompleted resolves once the children's completions add up to count. */
function allCompleted(children, count) {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (children.reduce((sum, child) => sum + child.state.done, 0) >= count) resolve();
    };
    for (const child of children) {
      child.state.listeners.add(check);
      void child.exited.then((code) =>
        reject(new Error(`worker process exited (${code}) before the work was done`)),
      );
    }
  });
}

/** stopChild asks a child to stop and waits for its exit; kills it if it hangs. */
async function stopChild(child) {
  if (child.process.exitCode !== null || child.process.signalCode !== null) return;
  if (child.process.connected) child.process.send('stop');
  const timer = setTimeout(() => child.process.kill(), exitTimeoutMs);
  const code = await child.exited;
  clearTimeout(timer);
  if (code !== 0) console.error(`a worker process exited with ${code}`);
}
