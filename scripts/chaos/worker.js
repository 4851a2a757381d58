// One worker process of a chaos run (forked by lib/fleet.js): a Worker with
// concurrency > 1 on an engine of its own, whose handler works in small steps
// and checks its signal before each, so what a run did is what it logged.
// Every run is logged (start, told it lost the task, abort, end), and so is
// every delete and extend the runtime sends for it; the fleet logs kills and
// stops of this process.
//
// Usage (forked with IPC): worker.js '<settings JSON>'
import { setTimeout as sleep } from 'node:timers/promises';
import { Engine, Label, Worker, parseTime } from '../../dist/index.js';
import { now, openLog } from './lib/log.js';

const settings = JSON.parse(process.argv[2]);
const { id, offsetMs, expiry, steps, stepMs } = settings;
const log = openLog(settings.logDir, id);
const engine = new Engine({
  redis: settings.url,
  queue: settings.queue,
  worker: id,
  expiry,
  // clock skew between engines: this engine's clock runs offsetMs ahead (or behind)
  clock: () => new Date(Date.now() + offsetMs),
  // how far apart the engines were told their clocks may be (expire waits that long)
  clockSkew: settings.clockSkew,
  // the failover scenario: a write is acknowledged once a replica took it
  durability: settings.durability ?? 'primary',
});
/** real converts an instant of this engine's clock to wall-clock ms. */
const real = (engineMs) => engineMs - offsetMs;

let runs = 0;
/** The run under way for each task id. */
const current = new Map();

// The runtime renews leases through engine.extend: log each renewal and the lease it grants.
const extend = engine.extend.bind(engine);
engine.extend = async (task) => {
  const taskId = task.core?.[Label.Object];
  const record = { t: 'extend', id: taskId, run: current.get(taskId), sent: now() };
  try {
    await extend(task);
    log.write({ ...record, at: now(), ok: true, lease: record.sent + expiry });
  } catch (error) {
    log.write({ ...record, at: now(), ok: false, error: error.code ?? error.message });
    throw error;
  }
};

const worker = new Worker(
  engine,
  [
    {
      filter: (task) => task.meta?.chaos === settings.chaos,
      ensure: async (task, context) => {
        const { signal } = context;
        const taskId = task.core[Label.Object];
        const run = `${id}#${++runs}`;
        current.set(taskId, run);
        const lease = real(parseTime(task.core[Label.Expiry]).getTime());
        const cycles = Number(task.core[Label.Cycles] ?? '0');
        log.write({
          t: 'start',
          run,
          id: taskId,
          n: task.meta.n,
          at: now(),
          lease,
          cycles,
          // the caps scenario: the capped value of the run's task
          ...(task.meta.tenant === undefined ? {} : { tenant: task.meta.tenant }),
        });
        signal.addEventListener('abort', () =>
          log.write({
            t: 'told',
            run,
            id: taskId,
            at: now(),
            reason: signal.reason?.code ?? String(signal.reason?.message),
          }),
        );
        const count = settings.stepsOf[task.meta.size] ?? steps;
        // when each step began: the run's effects, written with its last record
        const effects = [];
        for (let step = 0; step < count; step++) {
          if (signal.aborted) {
            log.write({ t: 'abort', run, id: taskId, at: now(), steps: effects });
            throw signal.reason;
          }
          effects.push(Math.round(now() * 10) / 10);
          await sleep(stepMs);
        }
        // the features scenario: a parent spawns one child as it completes
        if (task.meta.spawn === '1') {
          context.spawn({
            meta: { chaos: settings.chaos, n: `${task.meta.n}.child`, parent: task.meta.n },
          });
        }
        log.write({ t: 'end', run, id: taskId, at: now(), steps: effects });
      },
    },
  ],
  {
    concurrency: settings.concurrency,
    expireInterval: settings.expireInterval,
    background: settings.background,
    pollInterval: settings.pollInterval,
  },
);
worker.on('task:ensured', (task) => {
  const taskId = task.core[Label.Object];
  log.write({ t: 'done', id: taskId, run: current.get(taskId), at: now() });
});
worker.on('task:lost', (task, error) =>
  log.write({
    t: 'lost',
    id: task.core[Label.Object],
    run: current.get(task.core[Label.Object]),
    at: now(),
    error: error.code ?? error.message,
  }),
);
worker.on('task:failed', (task, error) =>
  log.write({
    t: 'failed',
    id: task.core[Label.Object],
    at: now(),
    error: error?.code ?? String(error?.message),
  }),
);
worker.on('error', (error) =>
  log.write({ t: 'error', at: now(), error: String(error?.message ?? error) }),
);

let stopping = false;
process.on('message', (message) => {
  if (message === 'stop') void stop();
});
// the coordinator went away without asking us to stop: do not linger
process.on('disconnect', () => stopping || process.exit(1));

// Redis may be down right now (a restart): a failed start can be tried again
for (;;) {
  try {
    await worker.start();
    break;
  } catch (error) {
    log.write({ t: 'start-failed', at: now(), error: String(error?.message ?? error) });
    await sleep(200);
  }
}
log.write({ t: 'ready', at: now(), pid: process.pid, offsetMs });
process.send?.('ready');

async function stop() {
  stopping = true;
  await worker.stop();
  await engine.close();
  log.write({ t: 'exit', at: now() });
  log.close();
  process.disconnect();
}
