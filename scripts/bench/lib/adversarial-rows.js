// The rows of the adversarial depth table: each path that once read or walked
// a large part of the queue, measured on a queue that already holds `depth`
// plain tasks of another kind ({ meta: { kind: 'a', n } }). A row's `prepare`
// (optional) adds what the row needs to a queue once per depth, and its
// answer is handed to `run`; `run` works on a copy of that queue and returns
// its throughput (`ops` per second of `unit`) and what else it measured.
import { Label, Worker } from '../../../dist/index.js';
import { number } from './report.js';
import { inParallel, rate, timed } from './setup.js';

const until = async (check, what, timeoutMs = 120_000) => {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

/** hscanAlone reads `ARGV[2]` records from HSCAN cursor `ARGV[1]` and returns the next cursor. */
const hscanAlone = `local cursor, read = ARGV[1], 0
repeat
  local reply = redis.call('HSCAN', KEYS[1], cursor, 'COUNT', 32)
  cursor, read = reply[1], read + #reply[2] / 2
until cursor == '0' or read >= tonumber(ARGV[2])
return cursor`;

/**
 * indexAlone reads up to `ARGV[2]` ids of the lex zset KEYS[1] after `ARGV[1]`
 * ('-' to start, else '(<id>') and their records in the hash KEYS[2], 100 at a
 * time, and returns where to go on ('' at the end).
 */
const indexAlone = `local from, read = ARGV[1], 0
local ids
repeat
  ids = redis.call('ZRANGEBYLEX', KEYS[1], from, '+', 'LIMIT', 0, 100)
  if #ids > 0 then
    redis.call('HMGET', KEYS[2], unpack(ids))
    from = '(' .. ids[#ids]
  end
  read = read + #ids
until #ids < 100 or read >= tonumber(ARGV[2])
if #ids < 100 then return '' end
return from`;

/**
 * passesFor: how many times a listing of `size` items is read so that a
 * figure rests on at least 100,000 items (a listing of 1k takes a few ms).
 */
const passesFor = (size) => Math.max(1, Math.ceil(100_000 / Math.max(size, 1)));

/**
 * listKindB adds 100 tasks of kind b to a queue and lists the queue by kind
 * (metaIndexes) with a first listing; returns how long that took and in how
 * many calls.
 */
async function listKindB(queue) {
  const producer = queue.engine({ worker: 'producer' });
  await inParallel(100, 100, (n) => producer.create({ meta: { kind: 'b', n: String(n) } }));
  const counting = queue.counting();
  const engine = queue.engine({ worker: 'lister', redis: counting.client, metaIndexes: ['kind'] });
  const ms = await timed(() => engine.exists({ meta: { kind: 'none' } }));
  return { ms, calls: counting.counts.get('metaIndex') };
}

/** How many listings the listed-key rows time. */
const kindBListings = 2_000;

/**
 * listingsOfKindB runs `list(engine)` kindBListings times, 10 at a time, with an
 * engine that declares `kind` (metaIndexes); returns the rate of the 100
 * tasks each listing lists, and the engine's counting client.
 */
async function listingsOfKindB(queue, list) {
  const counting = queue.counting();
  const engine = queue.engine({ worker: 'reader', redis: counting.client, metaIndexes: ['kind'] });
  const ops = await rate(kindBListings * 100, () =>
    inParallel(10, kindBListings, () => list(engine)),
  );
  return { ops, counting };
}

/** claimAndDelete claims `count` tasks (with `filter`) and deletes them, `lanes` at a time. */
async function claimAndDelete(engine, count, lanes, filter) {
  await inParallel(lanes, count, async () => {
    const task = await engine.search(filter);
    if (task === undefined) throw new Error('the queue ran dry during the benchmark');
    await engine.delete(task);
  });
}

/** firstSearch times the first search of a fresh engine and counts its steps (search scripts). */
async function firstSearch(queue, filter) {
  const counting = queue.counting();
  const engine = queue.engine({ worker: 'first', redis: counting.client });
  let task;
  const ms = await timed(async () => (task = await engine.search(filter)));
  if (task === undefined) throw new Error('the first search found nothing');
  await engine.delete(task);
  return { ms, steps: counting.counts.get('search') ?? 0 };
}

/** otherValues adds 10,000 tasks of 10,000 values of `kind` besides the depth's `kind: a`. */
async function otherValues(queue) {
  const producer = queue.engine({ worker: 'producer' });
  await inParallel(200, 10_000, (n) => producer.create({ meta: { kind: `t${n}` } }));
}

export const rows = [
  {
    name: 'filtered search',
    setup:
      '5,000 tasks of kind B among the others; one search filtered for kind B, then 500 claims with 10 in flight (a warm-up), then 4,000 more (the throughput)',
    unit: 'claim+delete/s',
    async prepare(queue) {
      const producer = queue.engine({ worker: 'producer' });
      await inParallel(200, 5_000, (n) => producer.create({ meta: { kind: 'b', n: String(n) } }));
    },
    async run(queue) {
      const filter = { meta: { kind: 'b' } };
      // the first search walks, then the filter gets a pool filled 256 tasks a step at most (or for the stepTime)
      const first = await firstSearch(queue, filter);
      const engine = queue.engine({ worker: 'b' });
      // a warm-up at both depths: the first claims after the fill are not timed
      await claimAndDelete(engine, 500, 10, filter);
      const ops = await rate(4_000, () => claimAndDelete(engine, 4_000, 10, filter));
      return {
        ops,
        also: `first search (pool made and filled): ${first.steps} steps, ${Math.round(first.ms)} ms`,
      };
    },
  },
  {
    name: 'wake-up',
    setup:
      '10 workers × 10 idle slots (handlers for kind B); 100 kind-B tasks created one at a time, each when every slot is parked (the scripts counted), 100 more each as soon as the previous was ensured, then 1,000 with 10 in flight (the throughput)',
    unit: 'created+ensured/s',
    async run(queue) {
      let ensured = 0;
      const clients = [];
      const workers = [];
      for (let index = 0; index < 10; index++) {
        const counting = queue.counting();
        clients.push(counting);
        const engine = queue.engine({ worker: `w${index}`, redis: counting.client });
        workers.push(
          new Worker(
            engine,
            [
              {
                labels: { meta: { kind: 'b' } },
                filter: (task) => task.meta?.kind === 'b',
                ensure: async () => void ensured++,
              },
            ],
            { concurrency: 10, pollInterval: 60_000, background: false },
          ),
        );
      }
      for (const worker of workers) worker.on('error', (error) => console.error(error));
      await Promise.all(workers.map((worker) => worker.start()));
      await until(
        async () => Number(await queue.redis.hlen(`${queue.prefix}:parked-slots`)) === 100,
        'every slot parked',
      );
      const producer = queue.counting();
      clients.push(producer);
      const engine = queue.engine({ worker: 'producer', redis: producer.client });
      const parked = async () =>
        Number(await queue.redis.hlen(`${queue.prefix}:parked-slots`)) === 100;
      // scripts per create from `creates`, counted on every client
      const countScripts = async (creates) => {
        for (const { reset } of clients) reset();
        await creates();
        // let the last completion's search park its slot
        await until(parked, 'every slot parked again');
        const counts = new Map();
        for (const client of clients) {
          for (const [name, count] of client.counts)
            counts.set(name, (counts.get(name) ?? 0) + count);
        }
        const per = (name) => (counts.get(name) ?? 0) / 100;
        const all = [...counts.values()].reduce((sum, count) => sum + count, 0) / 100;
        return {
          create: per('create'),
          search: per('search'),
          deleteSearch: per('deleteSearch'),
          all,
        };
      };
      const described = (per) =>
        `${per.all.toFixed(2)} (create ${per.create.toFixed(2)}, search ${per.search.toFixed(2)}, ` +
        `delete-search ${per.deleteSearch.toFixed(2)})`;
      // the target's case: each create finds all 100 slots parked
      const idle = await countScripts(async () => {
        for (let n = 0; n < 100; n++) {
          await until(parked, 'every slot parked');
          await engine.create({ meta: { kind: 'b', n: String(n) } });
          await until(() => ensured === n + 1, 'the task ensured', 10_000);
        }
      });
      // back to back: the slot that just ran a task is still completing it,
      // and its folded search may take the new task before the slot woken for it
      const from0 = ensured;
      const backToBack = await countScripts(async () => {
        for (let n = 0; n < 100; n++) {
          await engine.create({ meta: { kind: 'b', n: `b${n}` } });
          await until(() => ensured === from0 + n + 1, 'the task ensured', 10_000);
        }
      });
      // throughput: 1,000 creates, 10 in flight, until all are ensured
      const from = ensured;
      const ops = await rate(1_000, async () => {
        await inParallel(10, 1_000, (n) => engine.create({ meta: { kind: 'b', n: `x${n}` } }));
        await until(() => ensured === from + 1_000, 'every task ensured');
      });
      await Promise.all(workers.map((worker) => worker.stop()));
      return {
        ops,
        perCreate: idle,
        also:
          `scripts per create made with every slot parked: ${described(idle)}; made as soon as ` +
          `the previous task was ensured: ${described(backToBack)}`,
      };
    },
  },
  {
    name: 'folded completions',
    setup:
      'one `Worker` of 100 slots with a no-op handler claims and completes 20,000 tasks (the throughput): its `delete-search` calls carry the completions of the slots that finish together, up to 16 a call',
    unit: 'claim+delete/s',
    async prepare(queue) {
      // at 1k the queue alone would run dry
      const producer = queue.engine({ worker: 'producer' });
      await inParallel(1_000, 20_000, (n) =>
        producer.create({ meta: { kind: 'c', n: String(n) } }),
      );
    },
    async run(queue) {
      const counting = queue.counting();
      const engine = queue.engine({ worker: 'slots', redis: counting.client });
      let ensured = 0;
      const worker = new Worker(
        engine,
        [{ filter: () => true, ensure: async () => void ensured++ }],
        {
          concurrency: 100,
          pollInterval: 60_000,
          background: false,
        },
      );
      worker.on('error', (error) => console.error(error));
      const ops = await rate(20_000, async () => {
        await worker.start();
        await until(() => ensured >= 20_000, '20,000 tasks ensured');
      });
      await worker.stop();
      const calls = counting.counts.get('deleteSearch') ?? 0;
      return {
        ops,
        also: `${number(calls)} delete-search calls, ${(ensured / Math.max(1, calls)).toFixed(1)} completions a call`,
      };
    },
  },
  {
    name: '100k due at once',
    setup:
      '100,000 `@exact` tasks due at the same instant; 5,000 claims without a filter, 10 in flight',
    unit: 'claim+delete/s',
    async prepare(queue) {
      const producer = queue.engine({ worker: 'producer' });
      const due = new Date(Date.now() + 3_600_000);
      const exact = due.toISOString().replace('.000Z', 'Z');
      await inParallel(1_000, 100_000, (n) =>
        producer.create({ meta: { kind: 'd', n: String(n) }, cron: { [Label.Exact]: exact } }),
      );
      return due.getTime();
    },
    async run(queue, dueMs) {
      // the claimer's clock is a second past the due instant of all 100,000
      const offsetMs = dueMs + 1_000 - Date.now();
      const clock = () => new Date(Date.now() + offsetMs);
      const engine = queue.engine({ worker: 'claimer', clock });
      const ops = await rate(5_000, () => claimAndDelete(engine, 5_000, 10));
      const left = Number(await queue.redis.zcard(`${queue.prefix}:waiting`));
      return { ops, also: `due tasks still waiting for promotion after 5,000 claims: ${left}` };
    },
  },
  {
    name: '20k leaves, one root',
    setup:
      '20,000 leaves with root `{ tenant: t1, stage: done }`; tasks with `tenant: t1` created (the throughput), then the root',
    unit: 'creates/s',
    async prepare(queue) {
      const producer = queue.engine({ worker: 'producer' });
      await inParallel(200, 20_000, (n) =>
        producer.create({
          meta: { kind: 'leaf', n: String(n) },
          root: { tenant: 't1', stage: 'done' },
        }),
      );
    },
    async run(queue) {
      const producer = queue.engine({ worker: 'producer' });
      const root = { tenant: 't1', stage: 'done' };
      // until the job that indexes the root's keys over the tasks stored before
      // is done, every search reads 256 records of it
      const claimer = queue.engine({ worker: 'claimer' });
      const claims = await rate(500, () => claimAndDelete(claimer, 500, 1));
      const jobs = Number(await queue.redis.exists(`${queue.prefix}:root-jobs`)) === 1;
      // tasks that share a pair with the root but do not have it: no leaf is obsolete
      const ops = await rate(2_000, () =>
        inParallel(10, 2_000, (n) =>
          producer.create({ meta: { kind: 'c', tenant: 't1', stage: 'busy', n: String(n) } }),
        ),
      );
      // the root itself: searches delete the 20,000 leaves, 64 a step at most (or for the stepTime)
      await producer.create({ meta: { kind: 'c', ...root } });
      const counting = queue.counting();
      const engine = queue.engine({ worker: 'sweeper', redis: counting.client });
      const sweepMs = await timed(async () => {
        const task = await engine.search();
        if (task !== undefined) await engine.delete(task);
      });
      const leaves = Number(await queue.redis.zcard(`${queue.prefix}:root-leaves`));
      if (leaves !== 0) throw new Error(`${leaves} leaves left after the sweep`);
      return {
        ops,
        also:
          `500 claims one at a time right after the leaves: ${number(claims)}/s, the root job ` +
          `${jobs ? 'still runs after them' : 'done by then'}; ` +
          `the root's first search deletes the 20,000 leaves: ${counting.counts.get('search')} steps, ${Math.round(sweepMs)} ms`,
      };
    },
  },
  {
    name: '5,000 broadcasts',
    setup: '5,000 broadcast tasks (`node: all`); one engine receives them, one never matches them',
    unit: 'deliveries/s',
    async run(queue) {
      const taker = queue.engine({ worker: 'taker' });
      const counting = queue.counting();
      const other = queue.engine({ worker: 'other', redis: counting.client });
      await new Promise((resolve) => setTimeout(resolve, 2)); // broadcasts newer than both engines
      const producer = queue.engine({ worker: 'producer' });
      await inParallel(200, 5_000, (n) =>
        producer.create({ meta: { kind: 'bc', n: String(n) }, node: { [Label.Method]: 'all' } }),
      );
      const ops = await rate(5_000, async () => {
        for (let n = 0; n < 5_000; n++) {
          const task = await taker.search();
          if (task?.node?.[Label.Method] !== 'all') throw new Error('expected a broadcast task');
          await taker.delete(task);
        }
      });
      // a worker whose filter matches none of them: they cost its first search only
      const filter = { meta: { kind: 'a' } };
      const firstMs = await timed(async () => await other.delete(await other.search(filter)));
      const firstSteps = counting.counts.get('search');
      counting.reset();
      const laterMs = await timed(() => claimAndDelete(other, 100, 1, filter));
      const laterSteps = counting.counts.get('search') / 100;
      return {
        ops,
        also:
          `an engine that never matches them: first search ${firstSteps} steps, ${Math.round(firstMs)} ms; ` +
          `then ${laterSteps.toFixed(2)} steps, ${(laterMs / 100).toFixed(2)} ms per claim+delete`,
      };
    },
  },
  {
    name: 'exists by id',
    setup: '`exists({ core: { object: id } })` for random ids',
    unit: 'calls/s',
    async run(queue) {
      const engine = queue.engine({ worker: 'reader' });
      const ids = await queue.redis.hrandfield(`${queue.prefix}:tasks`, 1_000);
      const ops = await rate(5_000, () =>
        inParallel(10, 5_000, async (n) => {
          if (!(await engine.exists({ core: { [Label.Object]: ids[n % ids.length] } }))) {
            throw new Error('a task that exists was not found');
          }
        }),
      );
      return { ops, also: '' };
    },
  },
  {
    name: 'lister page',
    setup:
      '`lister` with a query no task matches: every record read (none decoded: none holds the value asked for), 500 a step at most (or for the 2 ms stepTime), the whole listing again until 100,000 records are read; then the same by a script that only runs HSCAN, for what reading the records alone costs at each depth',
    unit: 'records read/s',
    async run(queue) {
      const counting = queue.counting();
      const engine = queue.engine({ worker: 'reader', redis: counting.client });
      const records = Number(await queue.redis.hlen(`${queue.prefix}:tasks`));
      const passes = passesFor(records);
      const ops = await rate(records * passes, async () => {
        for (let pass = 0; pass < passes; pass++) {
          const found = await engine.lister({ meta: { kind: 'none' } });
          if (found.length !== 0) throw new Error('lister found a task that does not match');
        }
      });
      // the floor: the same records read by HSCAN alone, 500 a script, nothing
      // decoded or matched (what reading a record costs Redis at this depth)
      const bare = await rate(records * passes, async () => {
        for (let pass = 0; pass < passes; pass++) {
          let cursor = '0';
          do {
            cursor = await queue.redis.eval(hscanAlone, 1, `${queue.prefix}:tasks`, cursor, 500);
          } while (cursor !== '0');
        }
      });
      return {
        ops,
        floor: bare,
        also:
          `${number(counting.counts.get('scan') / passes)} steps a listing; ` +
          `the same records by HSCAN alone (500 a script, nothing decoded): ${number(bare)}/s`,
      };
    },
  },
  {
    name: 'lister, listed key',
    setup:
      "`lister({ meta: { kind: 'b' } })` by an engine with `metaIndexes: ['kind']`, where 100 tasks of kind b were added to the others: the tasks listed under the value read, nothing else; 2,000 listings, 10 at a time. The queue was listed first by the engine's first listing (its calls and time below)",
    unit: 'tasks listed/s',
    prepare: listKindB,
    async run(queue, built) {
      const { ops, counting } = await listingsOfKindB(queue, async (engine) => {
        const found = await engine.lister({ meta: { kind: 'b' } });
        if (found.length !== 100)
          throw new Error(`lister found ${found.length} tasks of kind b, not 100`);
      });
      return {
        ops,
        also:
          `${number(counting.counts.get('scan') / kindBListings)} scan script a listing; ` +
          `the queue listed by kind first in ${number(built.calls)} calls, ${(built.ms / 1000).toFixed(1)} s`,
      };
    },
  },
  {
    name: 'tasks page, listed key',
    setup:
      "`engine.tasks({ state: claimable, query: { meta: { kind: 'b' } }, limit: 1000 })` by an engine with `metaIndexes: ['kind']`, where 100 tasks of kind b were added to the others (listed as in the row above): the tasks listed under the value read, each one's state looked up; 2,000 pages, 10 at a time",
    unit: 'tasks listed/s',
    prepare: listKindB,
    async run(queue) {
      const { ops, counting } = await listingsOfKindB(queue, async (engine) => {
        const page = await engine.tasks({
          state: 'claimable',
          query: { meta: { kind: 'b' } },
          limit: 1_000,
        });
        if (page.tasks.length !== 100 || page.cursor !== undefined) {
          throw new Error(
            `tasks() listed ${page.tasks.length} tasks of kind b, not 100 in one page`,
          );
        }
      });
      return {
        ops,
        also: `${number(counting.counts.get('page') / kindBListings)} page script a page`,
      };
    },
  },
  {
    name: 'tasks page',
    setup:
      '`engine.tasks({ state: claimable, query })` with a query no task matches, page after page: every index entry read, 1,000 a page (500 a script at most, or for the 2 ms stepTime), the whole listing again until 100,000 entries are read; then the same entries and their records by a script that only reads them',
    unit: 'entries read/s',
    async run(queue) {
      const counting = queue.counting();
      const engine = queue.engine({ worker: 'reader', redis: counting.client });
      const entries = Number(await queue.redis.zcard(`${queue.prefix}:ready`));
      const passes = passesFor(entries);
      let pages = 0;
      const ops = await rate(entries * passes, async () => {
        for (let pass = 0; pass < passes; pass++) {
          let cursor;
          do {
            pages++;
            const page = await engine.tasks({
              state: 'claimable',
              query: { meta: { kind: 'none' } },
              cursor,
            });
            if (page.tasks.length !== 0)
              throw new Error('tasks() listed a task that does not match');
            cursor = page.cursor;
          } while (cursor !== undefined);
        }
      });
      // the floor: the same index entries and records read by a script that
      // only reads them, 500 a script, nothing decoded or matched
      const bare = await rate(entries * passes, async () => {
        for (let pass = 0; pass < passes; pass++) {
          let from = '-';
          do {
            from = await queue.redis.eval(
              indexAlone,
              2,
              `${queue.prefix}:ready`,
              `${queue.prefix}:tasks`,
              from,
              500,
            );
          } while (from !== '');
        }
      });
      return {
        ops,
        floor: bare,
        also:
          `${number(pages / passes)} pages, ${number(counting.counts.get('page') / passes)} scripts a listing; ` +
          `the same entries and records read alone (ZRANGEBYLEX and HMGET, 500 a script): ${number(bare)}/s`,
      };
    },
  },
  {
    name: 'tasks page, all match',
    setup:
      '`engine.tasks({ state: claimable, query, limit: 1000 })` with a query every task matches, page after page from the first: 1,000 tasks a page (500 a script at most, 256 KiB of records, or the 2 ms stepTime), until 100,000 tasks are listed (at 1k the whole listing again and again, at 1M its first 100 pages): what paging through a state costs per task listed',
    unit: 'tasks listed/s',
    async run(queue) {
      const counting = queue.counting();
      const engine = queue.engine({ worker: 'reader', redis: counting.client });
      const wanted = 100_000;
      let listed = 0;
      let pages = 0;
      const ms = await timed(async () => {
        let cursor;
        let pass = 0; // listed since the listing last began
        while (listed < wanted) {
          pages++;
          const page = await engine.tasks({
            state: 'claimable',
            query: { meta: { kind: 'a' } },
            limit: 1_000,
            cursor,
          });
          listed += page.tasks.length;
          pass += page.tasks.length;
          cursor = page.cursor;
          if (cursor === undefined) {
            if (pass === 0) throw new Error('tasks() listed no task where all match');
            pass = 0;
          }
        }
      });
      return {
        ops: listed / (ms / 1000),
        also: `${number(pages)} pages, ${number(counting.counts.get('page') / pages, 2)} scripts a page`,
      };
    },
  },
  {
    name: 'capped hot tenant',
    setup:
      'every task of the depth is of one hot value (`kind: a`), capped at 1 (`setCap({ key: "kind", concurrency: 1 })`) with one of them owned; 10,000 tasks of 10,000 other values; 5,000 claims without a filter, 10 in flight (docs/semantics.md §3.15: a capped value never blocks the others)',
    unit: 'claim+delete/s',
    prepare: otherValues,
    async run(queue) {
      const engine = queue.engine({ worker: 'claimer' });
      const holder = queue.engine({ worker: 'holder' });
      // the hot value's one slot is taken before the cap is declared
      const held = await holder.search({ meta: { kind: 'a' } });
      if (held === undefined) throw new Error('no task of the hot value');
      await engine.setCap({ key: 'kind', concurrency: 1 });
      const ops = await rate(5_000, () => claimAndDelete(engine, 5_000, 10));
      return { ops };
    },
  },
  {
    name: 'mixed priorities',
    setup:
      '10,000 tasks of priorities 1 to 10 among the depth (priority 0); 5,000 claims without a filter, 10 in flight, each the highest priority left (docs/semantics.md §3.13)',
    unit: 'claim+delete/s',
    async prepare(queue) {
      const producer = queue.engine({ worker: 'producer' });
      await inParallel(200, 10_000, (n) =>
        producer.create({
          core: { [Label.Priority]: String(1 + (n % 10)) },
          meta: { kind: 'p', n: String(n) },
        }),
      );
    },
    async run(queue) {
      const engine = queue.engine({ worker: 'claimer' });
      const ops = await rate(5_000, () => claimAndDelete(engine, 5_000, 10));
      return { ops };
    },
  },
  {
    name: 'paused kind',
    setup:
      'the depth paused by a query (`pause({ meta: { kind: "a" } })`); 10,000 tasks of kind b; 5,000 claims without a filter, 10 in flight (docs/semantics.md §3.14)',
    unit: 'claim+delete/s',
    async prepare(queue) {
      const producer = queue.engine({ worker: 'producer' });
      await inParallel(200, 10_000, (n) => producer.create({ meta: { kind: 'b', n: String(n) } }));
    },
    async run(queue) {
      const engine = queue.engine({ worker: 'claimer' });
      const pausing = await timed(() => engine.pause({ meta: { kind: 'a' } }));
      const ops = await rate(5_000, () => claimAndDelete(engine, 5_000, 10));
      return { ops, also: `pause of the depth by query: ${Math.round(pausing)} ms` };
    },
  },
  {
    name: 'rate-limited value',
    setup:
      'every task of the depth is of one value (`kind: a`) limited to 1 claim an hour (`setRateLimit({ key: "kind", limit: "1 per hour" })`), its one claim made; 10,000 tasks of 10,000 other values; 5,000 claims without a filter, 10 in flight (docs/semantics.md §3.16)',
    unit: 'claim+delete/s',
    prepare: otherValues,
    async run(queue) {
      const engine = queue.engine({ worker: 'claimer' });
      await engine.setRateLimit({ key: 'kind', limit: '1 per hour' });
      const first = await engine.search({ meta: { kind: 'a' } });
      if (first === undefined) throw new Error('no task of the limited value');
      await engine.delete(first);
      const ops = await rate(5_000, () => claimAndDelete(engine, 5_000, 10));
      return { ops };
    },
  },
];
