import * as api from '../lib/index.js';
import * as testing from '../lib/testing/index.js';
import type {
  OwnerCount,
  QueueEvent,
  QueueStats,
  TaskPage,
  TaskPageOptions,
  TaskState,
  WorkerPresence,
} from '../lib/index.js';

describe('the public entry', () => {
  it('exports exactly the names of spec/api.md that exist so far', () => {
    expect(Object.keys(api).sort()).toEqual(
      [
        'Engine',
        'Gate',
        'Label',
        'LabelReservedError',
        'LabelValueError',
        'Method',
        'QueueLayoutError',
        'AcceptTimeoutError',
        'TaskCancelledError',
        'TaskResultError',
        'TaskTimeoutError',
        'WaitTimeoutError',
        'RescueError',
        'TaskCoreError',
        'TaskCronError',
        'TaskEmptyError',
        'TaskGateError',
        'TaskLimitError',
        'TaskMetaEmptyError',
        'TaskNodeError',
        'TaskNotFoundError',
        'TaskOutdatedError',
        'Worker',
        'all',
        'any',
        'formatTime',
        'has',
        'matches',
        'parseTime',
        'schedule',
      ].sort(),
    );
  });

  it('exports the types of stats(), tasks(), workers() and events() (checked by the compiler)', () => {
    const owner: OwnerCount = { worker: 'w', tasks: 1 };
    const state: TaskState = 'claimable';
    const options: TaskPageOptions = { state, limit: 1 };
    const page: TaskPage = { tasks: [], cursor: undefined };
    const counts: Pick<QueueStats, 'owners' | 'oldestClaimable'> = {
      owners: [owner],
      oldestClaimable: undefined,
    };
    const event: Pick<QueueEvent, 'kind'> = { kind: 'claimed' };
    expect(event.kind).toBe('claimed');
    const presence: Pick<WorkerPresence, 'worker' | 'handlers'> = { worker: 'w', handlers: [null] };
    expect([options.state, page.tasks, counts.owners, presence.handlers]).toEqual([
      'claimable',
      [],
      [owner],
      [null],
    ]);
  });

  it('exports the embedded Redis and Redis Cluster launchers from rescue-engine/testing', () => {
    expect(Object.keys(testing).sort()).toEqual(['startRedisCluster', 'startRedisServer']);
  });
});
