import * as api from '../lib/index.js';
import * as testing from '../lib/testing/index.js';
import type {
  BasicAuth,
  Dashboard,
  DashboardListenOptions,
  DashboardOptions,
  DashboardServer,
  OwnerCount,
  QueueEvent,
  QueueStats,
  TaskPage,
  TaskPageOptions,
  TaskPageState,
  TaskState,
  TaskStatusState,
  WorkerPresence,
} from '../lib/index.js';

describe('the public entry', () => {
  it('exports exactly the public names, each listed by name', () => {
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
        'UnrecoverableError',
        'ReplicaTimeoutError',
        'RedisUnavailableError',
        'TaskCancelledError',
        'TaskResultError',
        'TaskTimeoutError',
        'WaitTimeoutError',
        'RescueError',
        'TaskCoreError',
        'TaskCronError',
        'TaskEmptyError',
        'TaskKeyError',
        'TaskGateError',
        'TaskLimitError',
        'TaskPayloadError',
        'TaskMetaEmptyError',
        'TaskNodeError',
        'TaskNotFoundError',
        'TaskOutdatedError',
        'Worker',
        'all',
        'any',
        'createDashboard',
        'defineTask',
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
    const state: TaskPageState = 'claimable';
    // status() tells a TaskState; TaskStatusState is its deprecated old name
    const told: TaskState = 'queued';
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the alias must stay usable
    const toldAsBefore: TaskStatusState = told;
    expect(toldAsBefore).toBe('queued');
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

  it('exports createDashboard and the types of its options and results (checked by the compiler)', () => {
    const basicAuth: BasicAuth = { username: 'u', password: 'p' };
    const options: DashboardOptions = { write: false, basicAuth, basePath: '/rescue' };
    const listen: DashboardListenOptions = { host: '127.0.0.1', port: 0 };
    const members: (keyof Dashboard)[] = ['fetch', 'handler', 'listen', 'close'];
    const served: (keyof DashboardServer)[] = ['url', 'host', 'port', 'close'];
    expect([options.basePath, listen.port, members.length, served.length]).toEqual([
      '/rescue',
      0,
      4,
      4,
    ]);
    expect(typeof api.createDashboard).toBe('function');
  });

  it('exports the embedded Redis and Redis Cluster launchers and replicate from rescue-engine/testing', () => {
    expect(Object.keys(testing).sort()).toEqual([
      'replicate',
      'startRedisCluster',
      'startRedisServer',
    ]);
  });
});
