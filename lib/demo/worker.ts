// One demo worker process: an Engine on the demo clock and a Worker with two
// handlers (image work and message work). It reports what it does to the
// driver over the IPC channel and stops gracefully when told to or on SIGINT.
import {
  Engine,
  Label,
  Worker,
  has,
  type EnsureContext,
  type Handler,
  type Task,
} from '../index.js';
import { systemClock } from '../clock.js';
import { demoClock, demoExpiry, demoSpeed } from './clock.js';
import { demoLabel, type DriverMessage, type WorkerMessage } from './messages.js';

const [redis = '', queue = '', name = '', epoch = '0'] = process.argv.slice(2);
const engine = new Engine({
  redis,
  queue,
  worker: name,
  clock: demoClock(Number(epoch)),
  expiry: demoExpiry,
});
let fixed = false;
/** When the handler's work on each task ended (before its delete gives the task up). */
const workEnded = new Map<string, number>();

function send(message: WorkerMessage): void {
  process.send?.(message);
}

function report(
  event: 'started' | 'ensured' | 'failed' | 'lost' | 'declined',
  task: Task,
  detail?: string,
): void {
  const id = task.core?.[Label.Object] ?? '';
  const ended = event === 'ensured' ? workEnded.get(id) : undefined;
  workEnded.delete(id);
  send({
    type: 'event',
    event,
    worker: name,
    id,
    at: systemClock().getTime(),
    ...(ended === undefined ? {} : { workEnded: ended }),
    name: task.meta?.[demoLabel.name] ?? '?',
    cycles: Number(task.core?.[Label.Cycles] ?? '0'),
    ...(event === 'started' ? { token: Number(task.core?.[Label.Token] ?? '0') } : {}),
    ...(detail === undefined ? {} : { detail }),
  });
}

function work(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    });
  });
}

function handler(
  kind: string,
  ms: number,
  check: (task: Task) => void,
  retry?: Handler['retry'],
): Handler {
  return {
    ...(retry === undefined ? {} : { retry }),
    labels: { meta: { [demoLabel.kind]: kind } },
    filter: (task) => has(task.meta, { [demoLabel.kind]: kind }),
    async ensure(task: Task, context: EnsureContext) {
      const { signal } = context;
      report('started', task);
      context.log(`${name} started ${task.meta?.[demoLabel.name] ?? '?'}`);
      await work(
        task.meta?.[demoLabel.slow] === undefined ? ms : Number(task.meta[demoLabel.slow]),
        signal,
      );
      check(task);
      workEnded.set(task.core?.[Label.Object] ?? '', systemClock().getTime());
      // a result for whoever awaits the task (engine.run / engine.wait)
      const measured = task.meta?.[demoLabel.measure];
      if (measured === undefined) return undefined;
      context.log(`${name} measured ${measured}`);
      return { image: measured, width: 640, height: 480, measuredBy: name };
    },
  };
}

const image = handler(
  'image',
  600,
  (task) => {
    // fails until the task has been retried this many times
    const failures = Number(task.meta?.[demoLabel.failAttempts] ?? '0');
    if (Number(task.core?.[Label.Cycles] ?? '0') < failures) throw new Error('upstream timed out');
  },
  // a failed image task goes back at once and runs again after 30 (demo)
  // seconds, then 60, ...; after 5 runs it halts. The message handler has no
  // policy: its failed tasks wait for their lease, as in the Go original.
  { attempts: 5, backoff: 'exponential', delay: 30_000, maxDelay: 120_000 },
);
const message = handler('message', 150, (task) => {
  if (task.meta?.[demoLabel.needsFix] !== undefined && !fixed)
    throw new Error('mail server refuses the message');
});

const worker = new Worker(engine, [image, message], {
  concurrency: 2,
  expireInterval: 500,
  tickerInterval: 500,
  pollInterval: 2_000,
  timeScale: demoSpeed,
});
worker.on('task:ensured', (task) => report('ensured', task));
worker.on('task:failed', (task, error) => report('failed', task, (error as Error).message));
worker.on('task:lost', (task, error) => report('lost', task, (error as Error).message));
worker.on('task:declined', (task) => report('declined', task));
worker.on('error', (error) => console.error(`${name}:`, error));

let stopping: Promise<void> | undefined;
function stop(): Promise<void> {
  stopping ??= (async () => {
    await worker.stop();
    await engine.close();
    send({ type: 'stopped', worker: name });
    if (process.connected) process.disconnect();
  })();
  return stopping;
}

process.on('message', (message: DriverMessage) => {
  if (message.type === 'fixed') fixed = true;
  if (message.type === 'stop') void stop();
});
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());

await worker.start();
send({ type: 'ready', worker: name });
