import * as api from '../lib/index.js';
import * as testing from '../lib/testing/index.js';

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

  it('exports the embedded Redis launcher from rescue-engine/testing', () => {
    expect(Object.keys(testing)).toEqual(['startRedisServer']);
  });
});
