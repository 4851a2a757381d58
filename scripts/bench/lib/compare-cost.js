// Where the time goes in the lifecycle: CPU per task in Redis and in the
// worker process, and the scripts Redis ran (INFO commandstats), for each side
// at the concurrencies of the lifecycle table. The evidence behind its ratios.
import { number, table } from './report.js';
import { processCount } from './compare-count.js';
import { progress } from './compare-progress.js';
import { withQueue } from './compare-queue.js';

const concurrencies = [1, 10, 50];

/** cost returns the section: one measured run per side and concurrency. */
export async function cost({ sides, bench, count }) {
  const rows = [];
  for (const concurrency of concurrencies) {
    for (const side of sides) {
      const figures = await costRun(side, bench, { concurrency, count });
      progress(
        `cost, concurrency ${concurrency}, ${side.name}: Redis ${number(figures.redisUs, 1)} µs/task, ` +
          `worker ${number(figures.workerUs, 1)} µs/task`,
      );
      rows.push([
        String(concurrency),
        side.name,
        number(figures.redisUs, 1),
        number(figures.scriptCalls, 2),
        number(figures.scriptUs, 1),
        number(figures.workerUs, 1),
        number(figures.redisUs + figures.workerUs, 1),
      ]);
    }
  }
  return (
    '### Where the time goes\n\n' +
    `One more lifecycle run per side and concurrency (${number(count)} tasks, one worker process), with ` +
    "Redis's statistics reset before it: Redis CPU (`INFO cpu`, user + system) and the worker process's CPU " +
    '(`process.cpuUsage`) per completed task, and the scripts Redis ran (`INFO commandstats`: `fcall` and `evalsha` ' +
    "calls per task and µs per call). Both processes share the machine's 2 cores, so where their sum per " +
    'task is larger, fewer tasks fit in a second.\n\n' +
    table(
      [
        'concurrency',
        'side',
        'Redis µs/task',
        'scripts/task',
        'µs/script',
        'worker µs/task',
        'sum µs/task',
      ],
      rows,
    )
  );
}

async function costRun(side, bench, { concurrency, count }) {
  return withQueue(side, 'cost', async (handle) => {
    await handle.fill(count);
    const { redis } = bench;
    await redis.config('RESETSTAT');
    const redisBefore = cpuSeconds(await redis.info('cpu'));
    const workerBefore = process.cpuUsage();
    await processCount(handle, { concurrency, count });
    const worker = process.cpuUsage(workerBefore);
    const redisAfter = cpuSeconds(await redis.info('cpu'));
    const stats = await redis.info('commandstats');
    // rescue-engine calls functions (FCALL), BullMQ scripts (EVALSHA)
    let calls = 0;
    let usec = 0;
    for (const match of stats.matchAll(/^cmdstat_(fcall|evalsha|eval):calls=(\d+),usec=(\d+)/gm)) {
      calls += Number(match[2]);
      usec += Number(match[3]);
    }
    return {
      redisUs: ((redisAfter - redisBefore) * 1e6) / count,
      workerUs: (worker.user + worker.system) / count,
      scriptCalls: calls / count,
      scriptUs: calls === 0 ? 0 : usec / calls,
    };
  });
}

function cpuSeconds(info) {
  const user = Number(/used_cpu_user:([\d.]+)/.exec(info)?.[1] ?? 0);
  const system = Number(/used_cpu_sys:([\d.]+)/.exec(info)?.[1] ?? 0);
  return user + system;
}
