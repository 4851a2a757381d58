// The README's first command: starts an embedded Redis (unless REDIS_URL is
// set) and walks one queue through the engine's main operations, printing
// what happens. The worker issue grows this into a multi-process demo.
import { Engine, Label, Method, type Task } from '../index.js';
import { systemClock } from '../clock.js';
import { startRedisServer } from '../testing/index.js';

function show(what: string, task?: Task): void {
  const labels = task === undefined ? '' : ` ${JSON.stringify(task)}`;
  console.log(`  ${what}${labels}`);
}

async function main(): Promise<void> {
  const server = await startRedisServer();
  console.log(
    `rescue-engine demo on ${server.external ? 'REDIS_URL' : 'an embedded redis-server'} at ${server.url}\n`,
  );
  // One shared clock the demo moves by hand, so an hour passes in a moment.
  let now = systemClock();
  const clock = () => now;
  const queue = `demo-${process.pid}`;
  const eon = new Engine({ redis: server.url, queue, worker: 'eon', clock });
  const etw = new Engine({ redis: server.url, queue, worker: 'etw', clock });
  try {
    console.log('1. A producer creates plain tasks; two workers share them.');
    for (const object of ['1234', '2345', '3456']) {
      show(
        'created',
        await eon.create({ meta: { 'x.api.io/action': 'delete', 'x.api.io/object': object } }),
      );
    }
    const first = await eon.search();
    const second = await etw.search();
    show('eon claimed', first);
    show('etw claimed', second);
    if (first !== undefined) await eon.delete(first);
    if (second !== undefined) await etw.delete(second);

    console.log('\n2. A cron template emits a child at every tick; ticker runs in the background.');
    const template = await eon.create({
      cron: { [Label.Every]: 'hour' },
      meta: { 'x.api.io/action': 'report' },
    });
    show('template', template);
    now = new Date(Date.parse(template.cron?.[Label.TickP1] ?? '') + 1);
    await eon.ticker();
    const child = await etw.search({ meta: { 'x.api.io/action': 'report' } });
    show('one hour later, etw claimed the child', child);

    console.log('\n3. A gate fires a follow-up once its triggers are done.');
    await eon.create({
      gate: { 'x.api.io/step-1': 'waiting' },
      meta: { 'x.api.io/action': 'notify' },
    });
    await eon.create({
      gate: { 'x.api.io/step-1': 'trigger' },
      meta: { 'x.api.io/action': 'step' },
    });
    const trigger = await eon.search({ meta: { 'x.api.io/action': 'step' } });
    if (trigger !== undefined) await eon.delete(trigger);
    show(
      'follow-up',
      (await eon.lister({ meta: { 'x.api.io/action': 'notify' } })).find(
        (task) => task.gate === undefined,
      ),
    );

    console.log('\n4. A broadcast task reaches every worker; nobody owns it.');
    const later = new Engine({ redis: server.url, queue, worker: 'eth', clock });
    now = new Date(now.getTime() + 1);
    await eon.create({
      meta: { 'x.api.io/action': 'reload' },
      node: { [Label.Method]: Method.All },
    });
    show('eth received', await later.search({ meta: { 'x.api.io/action': 'reload' } }));
    show('eon received', await eon.search({ meta: { 'x.api.io/action': 'reload' } }));
    await later.close();

    console.log(`\nTasks left in the queue: ${(await eon.lister({ meta: { '*': '*' } })).length}`);
  } finally {
    await eon.close();
    await etw.close();
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
