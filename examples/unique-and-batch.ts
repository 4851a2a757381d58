// Unique and batch creates. `create(task, { unique })` lets one task at a
// time hold a key: a second create is skipped (`skip`), or takes the queued
// holder's place (`replace`), or pushes it back as well (`debounce`: a burst
// of creates runs once, `delay` ms after the last). `createMany` stores a list
// of tasks in order, one script call per 100, and takes a unique option a task.
// Run: npm run examples (or, after npm run build, compile it and set REDIS_URL).
import { Engine, Worker, has, type Handler } from 'rescue-engine';

const engine = new Engine({
  redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  queue: `example-unique-${process.pid}`, // a queue of its own
});

// unique: three creates for the same account store one task (no worker runs yet)
// (a fresh object each time: create writes the stored labels into the task it is given)
const sync = () => ({ meta: { action: 'sync-account' }, payload: { account: 42 } });
const first = await engine.create(sync(), { unique: { key: 'sync-account:42' } });
const again = await engine.create(sync(), { unique: { key: 'sync-account:42' } });
console.log(first.action, again.action, again.id === first.id); // created skipped true

// debounce: each create in the burst replaces the queued task and makes it due 300 ms later
const edits: string[] = [];
let indexing = '';
for (const text of ['a', 'ab', 'abc']) {
  const { action, id } = await engine.create(
    { meta: { action: 'index-document' }, payload: { text } },
    { unique: { key: 'index-document:7', mode: 'debounce', delay: 300 } },
  );
  edits.push(action);
  indexing = id; // replaced keeps the holder's id
}
console.log(edits.join(' ')); // created replaced replaced

// createMany: 250 orders in three script calls, ids ascending in the list's order
const orders = await engine.createMany(
  Array.from({ length: 250 }, (_, index) => ({
    meta: { action: 'ship', order: String(index) },
  })),
);
console.log(`stored ${orders.length} orders`);

// createMany with unique, one option a task: account 42 is queued already, so it is skipped
const accounts = [41, 42, 43];
const synced = await engine.createMany(
  accounts.map((account) => ({ meta: { action: 'sync-account' }, payload: { account } })),
  { unique: accounts.map((account) => ({ key: `sync-account:${account}` })) },
);
console.log(synced.map(({ action }) => action).join(' ')); // created skipped created

const ran: string[] = [];
let shipped = 0;
let allShipped = () => {};
const done = new Promise<void>((resolve) => (allShipped = resolve));
const handlers: Handler[] = [
  {
    labels: { meta: { action: 'sync-account' } },
    filter: (task) => has(task.meta, { action: 'sync-account' }),
    ensure: (task) => Promise.resolve(void ran.push(`sync ${JSON.stringify(task.payload)}`)),
  },
  {
    labels: { meta: { action: 'index-document' } },
    filter: (task) => has(task.meta, { action: 'index-document' }),
    ensure: (task) => Promise.resolve(void ran.push(`index ${JSON.stringify(task.payload)}`)),
  },
  {
    labels: { meta: { action: 'ship' } },
    filter: (task) => has(task.meta, { action: 'ship', order: '*' }),
    ensure: () => {
      if (++shipped === orders.length) allShipped();
      return Promise.resolve();
    },
  },
];
const worker = new Worker(engine, handlers, { concurrency: 8, batch: 8 });
await worker.start();

await done;
const indexed = await engine.wait(indexing, { timeout: 10_000 });
await engine.wait(first.id, { timeout: 10_000 });
for (const { id } of synced) await engine.wait(id, { timeout: 10_000 });
console.log(ran.sort().join('; ')); // index {"text":"abc"}; sync {"account":41}; sync {"account":42}; sync {"account":43}
console.log(`shipped ${shipped} orders; the document was indexed once: ${indexed.state}`);
if (ran.length !== 4 || shipped !== orders.length) throw new Error('unexpected runs');

await worker.stop();
await engine.close();
