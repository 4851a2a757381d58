import { spawn } from 'node:child_process';
import { Engine } from '../../lib/engine/engine.js';
import { Label } from '../../lib/task/label.js';
import { useQueue } from '../harness/queue.js';
import type { RedisClient } from '../../lib/engine/connection.js';
import { adminClient, childTarget } from '../harness/redis.js';

interface WorkerReport {
  worker: string;
  claimed: string[];
  failures: string[];
}

const initialTasks = 20_000;
const addedTasks = 2_000;

function childWorker(
  queue: string,
  worker: string,
  doneKey: string,
  holdersKey: string,
): Promise<WorkerReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        new URL('../harness/claim-worker.js', import.meta.url).pathname,
        childTarget(),
        queue,
        worker,
        doneKey,
        holdersKey,
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

/**
 * inProcessWorker claims and deletes until the producer is done and the queue
 * is empty. Like the child workers, it registers every task it holds in a hash
 * of holders (HSETNX on claim, HDEL once it deleted the task): a claim that finds the
 * task registered to another worker saw two owners at once.
 */
async function inProcessWorker(
  engine: Engine,
  holders: RedisClient,
  holdersKey: string,
  isDone: () => boolean,
): Promise<WorkerReport> {
  const report: WorkerReport = { worker: engine.worker, claimed: [], failures: [] };
  for (;;) {
    const task = await engine.search();
    if (task === undefined) {
      if (isDone() && !(await engine.exists({ meta: { '*': '*' } }))) return report;
      continue;
    }
    const id = task.core?.[Label.Object] ?? '';
    report.claimed.push(id);
    if (task.core?.[Label.Worker] !== engine.worker)
      report.failures.push(`${id}: handed out with owner ${task.core?.[Label.Worker]}`);
    if ((await holders.hsetnx(holdersKey, id, engine.worker)) !== 1)
      report.failures.push(`${id}: two owners at once (${await holders.hget(holdersKey, id)})`);
    try {
      await engine.delete(task);
    } catch (error) {
      report.failures.push(`${id}: ${(error as Error).message}`);
    }
    await holders.hdel(holdersKey, id);
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
    const holdersKey = `${q.prefix}:test-holders`;
    const holders = adminClient();
    let producing = true;
    const inProcess = Array.from({ length: 8 }, (_, index) =>
      inProcessWorker(q.engine(`local-${index}`, system), holders, holdersKey, () => !producing),
    );
    const children = Array.from({ length: 4 }, (_, index) =>
      childWorker(q.name, `child-${index}`, doneKey, holdersKey),
    );

    for (let index = 0; index < addedTasks; index++) {
      const task = await producer.create({ meta: { n: `late-${index}` } });
      created.push(task.core?.[Label.Object] ?? '');
    }
    // the workers were claiming while the late tasks were created
    const claimedWhileProducing =
      created.length - (await producer.lister({ meta: { '*': '*' } })).length;
    producing = false;
    await q.redis.set(doneKey, '1');

    const reports = await Promise.all([...inProcess, ...children]);
    await holders.quit();
    const claims = reports.flatMap((report) => report.claimed);
    const failures = reports.flatMap((report) => report.failures);

    expect(claimedWhileProducing).toBeGreaterThan(0);
    // no claim found the task held by another worker, every claimed copy named
    // its claimer, and every delete passed the ownership check
    expect(failures).toEqual([]);
    // every task handed out exactly once (no lease ends during the run, so a
    // second hand-out could only be a second owner), none lost, all deleted
    const handedTwice = claims.filter((id, index) => claims.indexOf(id) !== index);
    expect(handedTwice).toEqual([]);
    expect(claims).toHaveLength(created.length);
    expect(new Set(claims)).toEqual(new Set(created));
    expect(await producer.exists({ meta: { '*': '*' } })).toBe(false);
    expect(await q.redis.hlen(holdersKey)).toBe(0);
    // every worker took part, the children included
    expect(reports.map((report) => [report.worker, report.claimed.length > 0])).toEqual(
      reports.map((report) => [report.worker, true]),
    );
  }, 120_000);
});
