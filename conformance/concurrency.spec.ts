import { spawn } from 'node:child_process';
import { Engine } from '../lib/engine/engine.js';
import { Label } from '../lib/task/label.js';
import { redisUrl, useQueue } from './harness/queue.js';

interface WorkerReport {
  worker: string;
  claimed: string[];
  failures: string[];
}

const initialTasks = 20_000;
const addedTasks = 2_000;

function childWorker(queue: string, worker: string, doneKey: string): Promise<WorkerReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        new URL('harness/claim-worker.js', import.meta.url).pathname,
        redisUrl(),
        queue,
        worker,
        doneKey,
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    let errors = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`worker ${worker} exited with ${code}: ${errors}`));
      else resolve(JSON.parse(output) as WorkerReport);
    });
  });
}

async function inProcessWorker(engine: Engine, isDone: () => boolean): Promise<WorkerReport> {
  const report: WorkerReport = { worker: engine.worker, claimed: [], failures: [] };
  for (;;) {
    const task = await engine.search();
    if (task === undefined) {
      if (isDone() && !(await engine.exists({ meta: { '*': '*' } }))) return report;
      continue;
    }
    report.claimed.push(task.core?.[Label.Object] ?? '');
    if (task.core?.[Label.Worker] !== engine.worker)
      report.failures.push(`handed out with owner ${task.core?.[Label.Worker]}`);
    try {
      await engine.delete(task);
    } catch (error) {
      report.failures.push(`${task.core?.[Label.Object]}: ${(error as Error).message}`);
    }
  }
}

describe('many engines on one queue', () => {
  const queue = useQueue();

  it('hand every task to exactly one worker, lose none, and delete all', async () => {
    const q = queue();
    // Real time for every engine, in this process and in the children.
    const system = { clock: () => new Date() };
    const producer = q.engine('producer', system);
    const created: string[] = [];
    for (let start = 0; start < initialTasks; start += 1_000) {
      const batch = await Promise.all(
        Array.from({ length: 1_000 }, (_, index) =>
          producer.create({ meta: { n: String(start + index) } }),
        ),
      );
      created.push(...batch.map((task) => task.core?.[Label.Object] ?? ''));
    }

    const doneKey = `${q.prefix}:test-producer-done`;
    let producing = true;
    const inProcess = Array.from({ length: 8 }, (_, index) =>
      inProcessWorker(q.engine(`local-${index}`, system), () => !producing),
    );
    const children = Array.from({ length: 4 }, (_, index) =>
      childWorker(q.name, `child-${index}`, doneKey),
    );

    for (let index = 0; index < addedTasks; index++) {
      const task = await producer.create({ meta: { n: `late-${index}` } });
      created.push(task.core?.[Label.Object] ?? '');
    }
    producing = false;
    await q.redis.set(doneKey, '1');

    const reports = await Promise.all([...inProcess, ...children]);
    const claims = reports.flatMap((report) => report.claimed);
    const failures = reports.flatMap((report) => report.failures);

    expect(failures).toEqual([]);
    expect(claims).toHaveLength(created.length);
    expect(new Set(claims).size).toBe(created.length);
    expect(new Set(claims)).toEqual(new Set(created));
    expect(await producer.exists({ meta: { '*': '*' } })).toBe(false);
    // every worker took part, the children included
    expect(reports.every((report) => report.claimed.length > 0)).toBe(true);
  }, 120_000);
});
