// The README's first command: a reconciliation story on an embedded Redis.
// Three worker processes (lib/demo/worker.ts) with handlers for image work and
// message work; this process plays the producers and the operator, prints a
// live log and a summary, and exits 0. `--forever` keeps producing work until
// SIGINT / SIGTERM.
//
// Time: the engines share a clock that runs 60 times faster than the wall
// clock (lib/demo/clock.ts), so the story's `2 minutes` template fires every 2
// real seconds and a lease of 3 minutes lasts 3 real seconds. Everything else
// (work, wake-ups, the demo's length) is real time.
import { fork, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { systemClock } from '../clock.js';
import { Engine, Label, Method, type Task } from '../index.js';
import { startRedisServer } from '../testing/index.js';
import { demoClock, demoExpiry } from './clock.js';
import { demoLabel, type DriverMessage, type WorkerMessage } from './messages.js';

type Event = Extract<WorkerMessage, { type: 'event' }>;

const forever = process.argv.includes('--forever');
const workerNames = ['worker-a', 'worker-b', 'worker-c'];
const startedAt = performance.now();
const events: Event[] = [];
const board = new EventEmitter();

function log(line: string): void {
  const seconds = ((performance.now() - startedAt) / 1000).toFixed(1).padStart(5);
  console.log(`[${seconds}s] ${line}`);
}

/** until resolves with the first event (past or future) that satisfies the test. */
function until(what: string, test: (event: Event) => boolean, timeoutMs = 30_000): Promise<Event> {
  const seen = events.find(test);
  if (seen !== undefined) return Promise.resolve(seen);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      board.off('event', listener);
      reject(new Error(`the demo waited ${timeoutMs / 1000} s for ${what}`));
    }, timeoutMs);
    function listener(event: Event): void {
      if (!test(event)) return;
      clearTimeout(timer);
      board.off('event', listener);
      resolve(event);
    }
    board.on('event', listener);
  });
}

const idOf = (task: Task): string => task.core?.[Label.Object] ?? '';
/** A breath between the steps of the story, so that a person can follow the log. */
const pause = () => new Promise((resolve) => setTimeout(resolve, 1_200));
const ensured = (id: string) => (event: Event) => event.event === 'ensured' && event.id === id;

function meta(
  kind: 'image' | 'message',
  name: string,
  more: Record<string, string> = {},
): Record<string, string> {
  return { [demoLabel.kind]: kind, [demoLabel.name]: name, ...more };
}

async function main(): Promise<void> {
  const server = await startRedisServer();
  const epoch = systemClock().getTime();
  const queue = `demo-${process.pid}`;
  const clock = demoClock(epoch);
  const operator = new Engine({
    redis: server.url,
    queue,
    worker: 'operator',
    clock,
    expiry: demoExpiry,
  });
  console.log(
    `rescue-engine demo: queue "${queue}" on ${server.external ? 'REDIS_URL' : 'an embedded redis-server'} (${server.url})`,
  );
  console.log(
    'The engines run on a clock 60x faster than the wall clock: a demo minute is a real second.\n',
  );

  const children = new Map<string, ChildProcess>();
  const ready = workerNames.map(
    (name) =>
      new Promise<void>((resolve, reject) => {
        const child = fork(
          new URL('./worker.js', import.meta.url),
          [server.url, queue, name, String(epoch)],
          {
            stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
          },
        );
        children.set(name, child);
        child.once('error', reject);
        child.on('message', (message: WorkerMessage) => {
          if (message.type === 'ready') resolve();
          if (message.type !== 'event') return;
          events.push(message);
          board.emit('event', message);
          if (message.event !== 'started') {
            const detail = message.detail === undefined ? '' : `: ${message.detail}`;
            log(
              `${message.worker}  ${message.event.padEnd(8)} ${message.name} (cycles ${message.cycles})${detail}`,
            );
          }
        });
      }),
  );
  const tell = (message: DriverMessage) => {
    for (const child of children.values()) child.send(message);
  };

  let stopping: Promise<void> | undefined;
  const shutdown = (): Promise<void> => {
    stopping ??= (async () => {
      const exits = [...children.values()].map(
        (child) => new Promise<void>((resolve) => child.once('exit', () => resolve())),
      );
      tell({ type: 'stop' });
      await Promise.all(exits);
      await operator.close();
      await server.stop();
    })();
    return stopping;
  };
  const onSignal = (signal: string) => {
    log(`${signal}: stopping the workers (running tasks finish first)`);
    void shutdown().then(() => {
      log('the workers stopped and the embedded Redis with them');
      process.exit(0);
    });
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));

  try {
    await Promise.all(ready);
    log(
      `three workers ready: ${workerNames.join(', ')} (handlers: image, message; 2 tasks at once each)`,
    );
    const [told, retried, held] = await Promise.all([
      story(operator),
      flaky(operator),
      breaker(operator, tell),
    ]);
    summary([...told, ...retried, ...held]);
    if (forever) await produceForever(operator);
  } finally {
    await shutdown();
  }
}

/** The main line of the story, step by step. */
async function story(operator: Engine): Promise<string[]> {
  const notes: string[] = [];

  log('-- plain tasks: nine images to resize, balanced across the workers');
  const images = await Promise.all(
    Array.from({ length: 9 }, (_, index) =>
      operator.create({ meta: meta('image', `resize image-${index + 1}`) }),
    ),
  );
  const done = await Promise.all(
    images.map((task) => until('the resized images', ensured(idOf(task)))),
  );
  const spread = workerNames.map(
    (name) => `${name} ${done.filter((event) => event.worker === name).length}`,
  );
  notes.push(`plain tasks: 9 images resized, ${spread.join(', ')}`);

  await pause();
  log('-- a broadcast task: every worker reloads its configuration');
  const reload = await operator.create({
    meta: meta('message', 'reload configuration'),
    node: { [Label.Method]: Method.All },
  });
  const reloads = await Promise.all(
    workerNames.map((name) =>
      until(`${name} to reload`, (event) => ensured(idOf(reload))(event) && event.worker === name),
    ),
  );
  notes.push(
    `broadcast: "reload configuration" ran on ${reloads.map((event) => event.worker).join(', ')}`,
  );

  await pause();
  log('-- a unicast task for worker-b only');
  const unicast = await operator.create({
    meta: meta('message', 'rotate worker-b logs'),
    node: { [Label.Method]: Method.Uni, [Label.Worker]: 'worker-b' },
  });
  const rotated = await until('the unicast task', ensured(idOf(unicast)));
  notes.push(`unicast: "rotate worker-b logs" ran on ${rotated.worker}`);

  await pause();
  log('-- a cron template: a report every 2 (demo) minutes');
  const template = await operator.create({
    cron: { [Label.Every]: '2 minutes' },
    meta: meta('message', 'report'),
  });
  const reports: Event[] = [];
  for (let tick = 0; tick < 3; tick++) {
    reports.push(
      await until(
        'a report',
        (event) => event.event === 'ensured' && event.name === 'report' && !reports.includes(event),
        15_000,
      ),
    );
  }
  await operator.delete({ core: { [Label.Object]: idOf(template), [Label.Bypass]: 'true' } });
  notes.push(
    `cron template: 3 reports emitted and run (${reports.map((event) => event.worker).join(', ')}), then the template was deleted`,
  );

  await pause();
  log('-- a gate: "merge shards" waits for three shard tasks');
  const gate = await operator.create({
    gate: {
      'x.demo.io/shard-1': 'waiting',
      'x.demo.io/shard-2': 'waiting',
      'x.demo.io/shard-3': 'waiting',
    },
    meta: meta('message', 'merge shards'),
  });
  await Promise.all(
    [1, 2, 3].map((shard) =>
      operator.create({
        gate: { [`x.demo.io/shard-${shard}`]: 'trigger' },
        meta: meta('image', `render shard-${shard}`),
      }),
    ),
  );
  const merged = await until(
    'the merge',
    (event) => event.event === 'ensured' && event.name === 'merge shards',
  );
  const [rearmed] = await operator.lister({ gate: { '*': 'waiting' } });
  const waiting = Object.values(rearmed?.gate ?? {}).filter((value) => value === 'waiting').length;
  notes.push(
    `gate: after three shards, "merge shards" ran on ${merged.worker}; the gate template ${idOf(gate)} is re-armed (${waiting} keys waiting)`,
  );

  await pause();
  log('-- a root: "update object 42" is obsolete once "delete object 42" exists');
  await operator.create({
    meta: meta('message', 'delete object 42', {
      [demoLabel.action]: 'delete',
      [demoLabel.object]: '42',
      [demoLabel.slow]: '1500',
    }),
  });
  const update = await operator.create({
    meta: meta('image', 'update object 42'),
    root: { [demoLabel.action]: 'delete', [demoLabel.object]: '42' },
  });
  await until(
    'the delete of object 42',
    (event) => event.event === 'ensured' && event.name === 'delete object 42',
  );
  const updated = events.some((event) => event.id === idOf(update));
  const stillThere = await operator.exists({ meta: { [demoLabel.name]: 'update object 42' } });
  log(
    `"update object 42" ${updated ? 'ran (unexpected)' : 'never ran'}; still queued: ${String(stillThere)}`,
  );
  notes.push(
    `root: "update object 42" was ${updated || stillThere ? 'NOT' : ''} made obsolete and deleted by a search, never run`.replace(
      '  ',
      ' ',
    ),
  );

  await pause();
  log('-- run: create a task and await its result (engine.run)');
  const outcome = await operator.run(
    { meta: meta('image', 'measure image-7', { [demoLabel.measure]: 'image-7.png' }) },
    { timeout: 15_000, acceptTimeout: 10_000 },
  );
  log(
    `operator: "measure image-7" ${outcome.state} on ${outcome.worker ?? '?'} with result ${JSON.stringify(outcome.result)}; its log: ${outcome.log.join(' | ')}`,
  );
  notes.push(
    `run: "measure image-7" ${outcome.state} on ${outcome.worker ?? '?'}, result ${JSON.stringify(outcome.result)}`,
  );

  await pause();
  log('-- cancel: a long task is stopped while it runs (engine.cancel)');
  const long = await operator.create({
    meta: meta('image', 'render video (long)', { [demoLabel.slow]: '600000' }),
  });
  const started = await until(
    'the long task to start',
    (event) => event.event === 'started' && event.id === idOf(long),
  );
  const cancelAt = performance.now();
  await operator.cancel(idOf(long));
  const stopped = await until(
    'the long task to stop',
    (event) => event.event === 'lost' && event.id === idOf(long),
  );
  const stoppedMs = Math.round(performance.now() - cancelAt);
  const status = await operator.status(idOf(long));
  log(`operator: "render video (long)" is ${status?.state ?? 'gone'}`);
  notes.push(
    `cancel: "render video (long)" was stopped on ${stopped.worker} within ${stoppedMs} ms of the cancel (started on ${started.worker}); its outcome: ${status?.state ?? '?'}`,
  );

  await pause();
  notes.push(...(await overtaking(operator)));

  await pause();
  notes.push(await capped(operator));
  return notes;
}

/**
 * Pause and priority: while the queue is paused, a backlog of eight resizes
 * queues up and an urgent one at priority 10 is created last; on resume the
 * parked slots wake at once and the urgent task is claimed first. The order
 * of the claims is read from their fencing tokens, which grow with every
 * claim in the queue, so it does not depend on which worker reports first.
 */
async function overtaking(operator: Engine): Promise<string[]> {
  const backlogSize = 8;
  log(
    `-- pause and priority: ${backlogSize} resizes queue up in a paused queue, then an urgent one at priority 10`,
  );
  await operator.pause();
  log('operator: queue paused: nothing is handed out');
  const backlog: Task[] = [];
  for (let index = 1; index <= backlogSize; index++) {
    backlog.push(await operator.create({ meta: meta('image', `resize photo-${index}`) }));
  }
  const urgent = await operator.create({
    core: { [Label.Priority]: '10' },
    meta: meta('image', 'resize banner (urgent)'),
  });
  const ids = [...backlog, urgent].map(idOf);
  const startedOf = (event: Event) => event.event === 'started' && ids.includes(event.id);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const queued = await operator.stats();
  const early = events.filter(startedOf).length;
  log(
    `operator: paused for 1 s: ${queued.claimable} tasks claimable, ${early} handed out; resuming`,
  );

  const firstClaim = until('the first claim after the resume', startedOf).then(() =>
    performance.now(),
  );
  const resumedAt = performance.now();
  await operator.resume();
  const wokenMs = Math.round((await firstClaim) - resumedAt);
  // the workers poll every 2 s (lib/demo/worker.ts): a claim well before that is the resume's wake-up
  const woke = wokenMs < 1_000 ? 'woke at once' : 'were slow to wake (unexpected)';
  log(`operator: resumed: the parked workers ${woke}, the first claim ${wokenMs} ms later`);
  await Promise.all(ids.map((id) => until('the resizes', ensured(id))));

  const claims = events.filter(startedOf).sort((a, b) => (a.token ?? 0) - (b.token ?? 0));
  const place = claims.findIndex((event) => event.id === idOf(urgent)) + 1;
  log(
    `operator: claim order by fencing token: ${claims.map((event) => event.name.replace('resize ', '')).join(', ')}`,
  );
  const first = claims[0];
  return [
    `pause: ${early === 0 ? 'nothing was' : `${early} tasks were (unexpected)`} handed out while the queue was paused for 1 s; on resume the parked workers ${woke} (first claim after ${wokenMs} ms; they poll every 2 s)`,
    place === 1 && first !== undefined
      ? `priority: "resize banner (urgent)", priority 10, created after ${backlogSize} others, was claimed first (by ${first.worker}), ahead of the whole backlog`
      : `priority: "resize banner (urgent)", priority 10, created after ${backlogSize} others, was claimed ${place === 0 ? 'never' : `in place ${place}`} (unexpected: it should be first)`,
  ];
}

/**
 * A concurrency cap: at most one running task per tenant. The hot tenant
 * queues six exports before two other tenants queue two each; the hot one
 * runs them one at a time while the others run beside it and are done long
 * before. What ran at once is read from the workers' own times (a run
 * starts after its claim and its work ends before its delete gives the task
 * up, so runs of a tenant that overlapped would be owned at once), and the
 * operator samples stats() while they run.
 */
async function capped(operator: Engine): Promise<string> {
  const tenants = { hot: 6, acme: 2, globex: 2 } as const;
  log(
    `-- a concurrency cap: at most 1 running task per ${demoLabel.tenant}; tenant "hot" queues ${tenants.hot} exports, then acme and globex ${tenants.acme} each`,
  );
  await operator.setCap({ key: demoLabel.tenant, concurrency: 1 });
  log(`operator: setCap({ key: '${demoLabel.tenant}', concurrency: 1 })`);
  const tenantOf = new Map<string, string>();
  for (const [tenant, count] of Object.entries(tenants)) {
    for (let index = 1; index <= count; index++) {
      const task = await operator.create({
        meta: meta('image', `export ${tenant}-${index}`, { [demoLabel.tenant]: tenant }),
      });
      tenantOf.set(idOf(task), tenant);
    }
  }
  const createdAt = performance.now();
  // the operator's view while they run: owned tasks per tenant, from stats()
  let sampling = true;
  let samples = 0;
  let mostOwned = 0;
  let shown = false;
  const sampler = (async () => {
    while (sampling) {
      const cap = (await operator.stats()).caps.find((each) => each.key === demoLabel.tenant);
      samples++;
      for (const value of cap?.values ?? []) mostOwned = Math.max(mostOwned, value.owned);
      if (!shown && cap !== undefined && cap.valueCount === 3) {
        shown = true;
        log(
          `operator: stats(): ${cap.values.map((value) => `${value.value} ${value.owned}`).join(', ')} owned (${cap.full} tenants at the cap)`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const done = await Promise.all(
    [...tenantOf.keys()].map((id) => until('the exports', ensured(id), 20_000)),
  );
  sampling = false;
  await sampler;
  await operator.removeCap(demoLabel.tenant);

  // runs per tenant, [start, work ended], from the workers' clocks
  const runs = new Map<string, [number, number][]>();
  for (const event of done) {
    const start = events.find((seen) => seen.event === 'started' && seen.id === event.id);
    const tenant = tenantOf.get(event.id) ?? '?';
    runs.set(tenant, [...(runs.get(tenant) ?? []), [start?.at ?? 0, event.workEnded ?? event.at]]);
  }
  const most = (spans: [number, number][]) =>
    Math.max(...spans.map(([from]) => spans.filter(([a, b]) => a <= from && from < b).length));
  const lastEnd = (tenant: string) =>
    Math.max(...(runs.get(tenant) ?? []).map(([, end]) => end)) -
    (performance.timeOrigin + createdAt);
  const hotMost = most(runs.get('hot') ?? []);
  const othersMost = Math.max(most(runs.get('acme') ?? []), most(runs.get('globex') ?? []));
  const othersDone = Math.max(lastEnd('acme'), lastEnd('globex')) / 1000;
  const hotDone = lastEnd('hot') / 1000;
  log(
    `operator: at most ${hotMost} hot export running at once (its ${tenants.hot} done after ${hotDone.toFixed(1)} s); acme and globex, queued behind them, done after ${othersDone.toFixed(1)} s (at most ${othersMost} running each); stats() saw at most ${mostOwned} owned per tenant in ${samples} samples`,
  );
  const kept = hotMost <= 1 && othersMost <= 1 && mostOwned <= 1;
  return kept && othersDone < hotDone
    ? `cap: tenant "hot" never had more than 1 export running (${tenants.hot} in ${hotDone.toFixed(1)} s, one after another) while acme's and globex's, queued after them, ran beside it and were done in ${othersDone.toFixed(1)} s`
    : `cap: UNEXPECTED: at most ${hotMost} hot and ${othersMost} other exports ran at once, ${mostOwned} owned in stats(); the others were done after ${othersDone.toFixed(1)} s, hot after ${hotDone.toFixed(1)} s`;
}

/**
 * A handler that fails twice; its retry policy gives the task back at once,
 * due again after 30 and then 60 demo seconds (not after its 3-minute
 * lease), and it succeeds the third time.
 */
async function flaky(operator: Engine): Promise<string[]> {
  const task = await operator.create({
    meta: meta('image', 'thumbnail (flaky)', { [demoLabel.failAttempts]: '2' }),
  });
  const done = await until('the flaky task', ensured(idOf(task)));
  const attempts = events.filter((event) => event.id === idOf(task) && event.event !== 'started');
  const runs = attempts.map((event) => `${event.worker} ${event.event}`).join(', ');
  return [
    `retries: "thumbnail (flaky)" failed twice and succeeded on its third run, each retry due 30 then 60 demo seconds after the failure by the image handler's retry policy, not after its lease (${runs}; cycles ${done.cycles})`,
  ];
}

/** A task held by the circuit breaker after two failures, then reset once the cause is fixed. */
async function breaker(
  operator: Engine,
  tell: (message: DriverMessage) => void,
): Promise<string[]> {
  const task = await operator.create({
    core: { [Label.Cancel]: '2' },
    meta: meta('message', 'send invoice', { [demoLabel.needsFix]: 'mail server' }),
  });
  let held: Task | undefined;
  for (let attempt = 0; held === undefined; attempt++) {
    if (attempt > 300) throw new Error('the demo waited 30 s for the circuit breaker');
    const [stored] = await operator.lister({ meta: { [demoLabel.name]: 'send invoice' } });
    if (
      stored !== undefined &&
      Number(stored.core?.[Label.Cycles] ?? '0') >= 2 &&
      stored.core?.[Label.Worker] === undefined
    ) {
      held = stored;
    } else {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  log(
    'operator: "send invoice" is held by the circuit breaker (cycles 2 of 2); fixing the mail server, resetting it',
  );
  tell({ type: 'fixed' });
  await operator.cycles(held);
  const done = await until('the invoice', ensured(idOf(task)));
  return [
    `circuit breaker: "send invoice" halted after 2 failed cycles, was reset by the operator, and ran on ${done.worker}`,
  ];
}

function summary(notes: string[]): void {
  console.log('\nSummary');
  for (const note of notes) console.log(`  - ${note}`);
  console.log('\n  worker     ensured  failed  lost');
  for (const name of workerNames) {
    const count = (event: Event['event']) =>
      events.filter((seen) => seen.worker === name && seen.event === event).length;
    console.log(
      `  ${name}  ${String(count('ensured')).padStart(7)}  ${String(count('failed')).padStart(6)}  ${String(count('lost')).padStart(4)}`,
    );
  }
}

/** --forever: a batch of work every few seconds until SIGINT / SIGTERM. */
async function produceForever(operator: Engine): Promise<void> {
  log('--forever: producing a batch of work every 3 seconds; Ctrl-C stops the workers gracefully');
  await operator.create({ cron: { [Label.Every]: '2 minutes' }, meta: meta('message', 'report') });
  for (let batch = 1; ; batch++) {
    await Promise.all(
      Array.from({ length: 3 }, (_, index) =>
        operator.create({ meta: meta('image', `resize batch-${batch}-${index + 1}`) }),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 3_000));
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
