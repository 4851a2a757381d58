import {
  createRejects,
  cyclesRejects,
  deleteRejects,
  existsRejects,
  extendRejects,
  listerRejects,
  searchRejects,
  validationNow,
  type RejectCase,
} from '../spec/fixtures/validation-cases.js';
import type { Engine } from '../lib/engine/engine.js';
import type { Task } from '../lib/task/task.js';
import { expectUnchanged } from './harness/queue-state.js';
import { useQueue } from './harness/queue.js';

// Every rule that needs only the argument: the call throws its error class and
// the queue's keys are byte-identical before and after. A few tasks are
// stored first so that "writes nothing" is checked against a real queue.
describe('rejected calls write nothing', () => {
  const queue = useQueue(validationNow.toISOString());

  async function seeded(): Promise<Engine> {
    const eon = queue().engine('eon');
    await eon.create({ meta: { k: 'v' } });
    await eon.create({ cron: { 'time.rescue.io/@every': 'hour' }, meta: { k: 'template' } });
    await eon.create({ gate: { g: 'waiting' }, meta: { k: 'gate' } });
    await eon.search();
    return eon;
  }

  const operations: [
    string,
    RejectCase[],
    (engine: Engine, argument: unknown) => Promise<unknown>,
  ][] = [
    ['create', createRejects, (engine, argument) => engine.create(argument as Task)],
    ['delete', deleteRejects, (engine, argument) => engine.delete(argument as Task)],
    ['extend', extendRejects, (engine, argument) => engine.extend(argument as Task)],
    ['cycles', cyclesRejects, (engine, argument) => engine.cycles(argument as Task)],
    ['exists', existsRejects, (engine, argument) => engine.exists(argument as Task)],
    ['lister', listerRejects, (engine, argument) => engine.lister(argument as Task)],
    ['search', searchRejects, (engine, argument) => engine.search(argument as Task)],
  ];

  for (const [operation, cases, call] of operations) {
    it.each(cases.map((c) => [`${operation} ${c.rule}: ${c.name}`, c] as const))(
      '%s',
      async (_name, c) => {
        const engine = await seeded();
        await expectUnchanged(queue().redis, queue().prefix, async () => {
          await expect(call(engine, c.argument)).rejects.toBeInstanceOf(c.error);
        });
      },
    );
  }
});
