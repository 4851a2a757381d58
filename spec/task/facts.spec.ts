import { idOf, taskFacts, type TaskKind } from '../../lib/task/facts.js';
import { Gate, Label, Method } from '../../lib/task/label.js';
import type { Task } from '../../lib/task/task.js';

const now = new Date('2023-10-20T12:00:00Z');
const id = '1697760000000-000000000001';
const meta = { kind: 'mail' };

describe('task facts', () => {
  it.each<[TaskKind, Task]>([
    ['cron', { cron: { [Label.Every]: '1m', [Label.TickP1]: '2023-10-20T12:01:00Z' }, meta }],
    ['gate', { gate: { a: Gate.Waiting, b: Gate.Deleted }, meta }],
    ['gate', { gate: {}, meta }],
    ['broadcast', { node: { [Label.Method]: Method.All }, meta }],
    ['owned', { core: { [Label.Worker]: 'eon', [Label.Cancel]: '1', [Label.Cycles]: '1' }, meta }],
    ['halted', { core: { [Label.Cancel]: '3', [Label.Cycles]: '3' }, meta }],
    ['waiting', { cron: { [Label.Exact]: '2023-10-20T12:00:01Z' }, meta }],
    ['claimable', { cron: { [Label.Exact]: '2023-10-20T12:00:00Z' }, meta }],
    ['claimable', { cron: { [Label.Exact]: 'not a time' }, meta }],
    ['claimable', { core: { [Label.Cancel]: '3', [Label.Cycles]: '2' }, meta }],
    ['claimable', { gate: { a: Gate.Trigger }, meta }],
    ['claimable', { meta }],
  ])('judge a %s task from its labels', (kind, task) => {
    expect(taskFacts(task, now).kind).toBe(kind);
  });

  it('read every fact of a stored task', () => {
    const task: Task = {
      core: {
        [Label.Object]: id,
        [Label.Worker]: 'eon',
        [Label.Expiry]: '2023-10-20T12:00:30Z',
        [Label.Cycles]: '2',
        [Label.Cancel]: '5',
      },
      cron: { [Label.TickP1]: '2023-10-20T12:05:00Z' },
      gate: { a: Gate.Trigger, b: Gate.Trigger },
      meta,
      root: { [Label.Object]: '1697759999000-000000000007' },
    };
    expect(taskFacts(task, now)).toEqual({
      id,
      kind: 'owned',
      created: '2023-10-20T00:00:00.000Z',
      owner: 'eon',
      leaseEnd: '2023-10-20T12:00:30Z',
      cycles: 2,
      cancel: 5,
      due: '2023-10-20T12:05:00Z',
      template: '1697759999000-000000000007',
      gateKeys: [
        { key: 'a', value: Gate.Trigger },
        { key: 'b', value: Gate.Trigger },
      ],
      triggers: true,
    });
  });

  it('leave out what the labels do not tell', () => {
    const facts = taskFacts({ core: { [Label.Cycles]: 'x', [Label.Cancel]: '-1' }, meta }, now);
    expect(facts).toEqual({
      id: '',
      kind: 'claimable',
      created: undefined,
      owner: undefined,
      leaseEnd: undefined,
      cycles: 0,
      cancel: undefined,
      due: undefined,
      template: undefined,
      gateKeys: [],
      triggers: false,
    });
    expect(idOf({ meta })).toBe('');
    expect(idOf({ core: { [Label.Object]: id }, meta })).toBe(id);
  });
});
