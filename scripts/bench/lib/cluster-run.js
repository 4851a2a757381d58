// One run of the cluster benchmark on one setup: fill each queue with `tasks`
// tasks (batched), then one worker process per queue with `concurrency` slots
// and a no-op handler works them all off; measured from the first worker's
// start to the last completion, with each Redis server's CPU and the
// machine's around the work.
import { dropKeys } from './cluster-queues.js';
import { busyCores, machineTicks, redisCpuSeconds } from './cpu.js';
import { ours } from './compare-ours.js';
import { processInChildren } from './compare-processes.js';

/**
 * clusterRun returns tasks/s over all queues, each server's CPU as a share of
 * one core (busiest first), CPU µs per task of Redis (all servers), of the
 * worker processes and of the whole machine, and how many of the machine's
 * cores were busy, and how much of the machine's CPU time was Redis's and the
 * workers' (`ownShare`).
 */
export async function clusterRun(setup, { run, tasks, concurrency }) {
  const names = await setup.names(run);
  const side = ours({ url: setup.target, dropQueue: (prefix) => dropKeys(setup.admin, prefix) });
  const handles = await Promise.all(names.map((name) => side.open(name)));
  const count = tasks * names.length;
  const around = {};
  try {
    await Promise.all(handles.map((handle) => handle.fill(tasks)));
    const ms = await processInChildren('ours', {
      url: setup.target,
      queues: names,
      concurrency,
      count,
      async beforeStart() {
        around.cpu = await Promise.all(setup.cpuClients.map(redisCpuSeconds));
        around.ticks = machineTicks();
        around.at = performance.now();
      },
      async afterDone(children) {
        const seconds = (performance.now() - around.at) / 1000;
        const ticks = machineTicks();
        const cpu = await Promise.all(setup.cpuClients.map(redisCpuSeconds));
        const used = cpu.map((value, index) => value - around.cpu[index]);
        around.shares = used.map((value) => value / seconds).sort((a, b) => b - a);
        around.redisUsPerTask = (used.reduce((sum, value) => sum + value, 0) / count) * 1e6;
        around.cores = busyCores(around.ticks, ticks);
        const workerCpu = children.reduce((sum, child) => sum + child.cpu - child.startedCpu, 0);
        around.workerUsPerTask = workerCpu / count;
        around.machineUsPerTask = (around.cores * seconds * 1e6) / count;
      },
    });
    return {
      rate: count / (ms / 1000),
      shares: around.shares,
      redisUsPerTask: around.redisUsPerTask,
      workerUsPerTask: around.workerUsPerTask,
      machineUsPerTask: around.machineUsPerTask,
      ownShare: (around.redisUsPerTask + around.workerUsPerTask) / around.machineUsPerTask,
      cores: around.cores,
    };
  } finally {
    await Promise.all(handles.map((handle) => handle.drop()));
  }
}
