import { Label, Method } from '../../lib/task/label.js';
import { taskFacts } from '../../lib/task/facts.js';
import { taskPageStates, type TaskPageState, type TaskState } from '../../lib/task/state.js';
import { useQueue } from '../harness/queue.js';
import { idOf } from '../harness/queue.js';

// One vocabulary (docs/states.md): each list engine.tasks() reads holds tasks
// of the one TaskState engine.status() tells of them, and the kind
// taskFacts() reads from a task's labels is the list it is on.

describe('task states', () => {
  const queue = useQueue('2023-10-20T00:00:00Z');

  it('lists in each state of tasks() the tasks status() tells that state of', async () => {
    const q = queue();
    const one = q.engine('one', { expiry: 1_000 });
    const halting = await one.create({ core: { [Label.Cancel]: '1' }, meta: { k: 'halted' } });
    await one.search({ meta: { k: 'halted' } });
    q.clock.advance(2_000);
    await one.expire();
    const owned = await one.create({ meta: { k: 'owned' } });
    await one.search({ meta: { k: 'owned' } });
    await one.create({ meta: { k: 'claimable' } });
    await one.create({ cron: { [Label.Exact]: '2023-10-20T01:00:00Z' }, meta: { k: 'waiting' } });
    await one.create({ cron: { [Label.Every]: 'minute' }, meta: { k: 'cron' } });
    await one.create({ gate: { g: 'waiting' }, meta: { k: 'gate' } });
    await one.create({ meta: { k: 'broadcast' }, node: { [Label.Method]: Method.All } });
    await one.create({ meta: { k: 'held' } }, { after: idOf(owned) });

    const told: Partial<Record<TaskPageState, (TaskState | undefined)[]>> = {};
    const kinds: Partial<Record<TaskPageState, string[]>> = {};
    for (const state of Object.keys(taskPageStates) as TaskPageState[]) {
      if (state === 'all') continue;
      const { tasks } = await one.tasks({ state });
      told[state] = await Promise.all(
        tasks.map(async (task) => (await one.status(idOf(task)))?.state),
      );
      if (state !== 'held') kinds[state] = tasks.map((task) => taskFacts(task, q.clock()).kind);
    }
    expect(told).toEqual({
      claimable: [taskPageStates.claimable],
      owned: [taskPageStates.owned],
      waiting: [taskPageStates.waiting],
      halted: [taskPageStates.halted],
      cron: [taskPageStates.cron],
      gate: [taskPageStates.gate],
      broadcast: [taskPageStates.broadcast],
      held: [taskPageStates.held],
    });
    expect(kinds).toEqual({
      claimable: ['claimable'],
      owned: ['owned'],
      waiting: ['waiting'],
      halted: ['halted'],
      cron: ['cron'],
      gate: ['gate'],
      broadcast: ['broadcast'],
    });
    expect((await one.status(idOf(halting)))?.state).toBe('halted');
    // `all` lists every record: each task above but the held one
    expect((await one.tasks({ state: 'all' })).tasks).toHaveLength(7);
  });
});
