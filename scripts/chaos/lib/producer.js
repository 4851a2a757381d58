// The producer of a chaos run: creates `count` tasks at a steady rate with a
// bounded number in flight, each with a unique meta label `n`, and logs every
// acknowledgement (the id create returned) and every failed create. It never
// retries: a failed create stays one, so a stored task nobody was told of
// shows up as an unacknowledged create.
import { setTimeout as sleep } from 'node:timers/promises';
import { Label } from '../../../dist/index.js';
import { now } from './log.js';

/** How long the producer waits for the last creates to settle before it calls them pending. */
const settleMs = 60_000;

/** produce creates the tasks and resolves once every create settled (or was given up as pending). */
export async function produce(engine, { chaos, count, rate, inFlight, sizes }, log) {
  const started = performance.now();
  const flying = new Map(); // n -> the create's promise
  let sent = 0;
  while (sent < count) {
    const due = Math.min(count, Math.floor(((performance.now() - started) / 1000) * rate) + 1);
    while (sent < due && flying.size < inFlight) {
      const n = String(sent++);
      // a few tasks run longer than the rest (see run.js): the first size whose period divides n
      const size = sizes.find(({ every }) => Number(n) % every === 0)?.name;
      const call = engine.create({ meta: { chaos, n, ...(size ? { size } : {}) } }).then(
        (task) => log.write({ t: 'ack', n, id: task.core[Label.Object], at: now() }),
        (error) =>
          log.write({ t: 'create-error', n, at: now(), error: String(error?.message ?? error) }),
      );
      flying.set(n, call);
      void call.finally(() => flying.delete(n));
    }
    await sleep(5);
  }
  await Promise.race([Promise.all(flying.values()), sleep(settleMs, undefined, { ref: false })]);
  for (const n of flying.keys()) log.write({ t: 'create-pending', n, at: now() });
  return performance.now() - started;
}
