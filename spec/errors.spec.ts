import {
  RescueError,
  TaskOutdatedError,
  TaskNotFoundError,
  errorByCode,
  errorCodes,
  fromReply,
} from '../lib/errors.js';

describe('errors', () => {
  it('has one class per code, each a RescueError carrying that code', () => {
    expect(errorCodes).toEqual([
      'TASK_EMPTY',
      'TASK_KEY',
      'TASK_META_EMPTY',
      'TASK_CORE',
      'TASK_CRON',
      'TASK_GATE',
      'TASK_NODE',
      'LABEL_RESERVED',
      'LABEL_VALUE',
      'TASK_LIMIT',
      'TASK_PAYLOAD',
      'TASK_NOT_FOUND',
      'TASK_OUTDATED',
      'QUEUE_LAYOUT',
      'TASK_RESULT',
      'TASK_CANCELLED',
      'TASK_TIMEOUT',
      'WAIT_TIMEOUT',
      'ACCEPT_TIMEOUT',
      'UNRECOVERABLE',
      'REPLICA_TIMEOUT',
      'REDIS_UNAVAILABLE',
    ]);
    for (const code of errorCodes) {
      const error = new errorByCode[code]('detail');
      expect(error).toBeInstanceOf(RescueError);
      expect(error).toBeInstanceOf(Error);
      expect(error.code).toBe(code);
      expect(error.message).toBe('detail');
    }
  });

  it('names each class after itself', () => {
    expect(new TaskOutdatedError('x').name).toBe('TaskOutdatedError');
  });

  it('maps a script error reply to its class and keeps the detail', () => {
    const error = fromReply(
      new Error('TASK_NOT_FOUND task 1697760001000-000000000042 is not stored'),
    );
    expect(error).toBeInstanceOf(TaskNotFoundError);
    expect((error as TaskNotFoundError).message).toBe(
      'task 1697760001000-000000000042 is not stored',
    );
  });

  it('leaves other errors unchanged', () => {
    const wrongType = new Error(
      'WRONGTYPE Operation against a key holding the wrong kind of value',
    );
    expect(fromReply(wrongType)).toBe(wrongType);
    expect(fromReply('not an error')).toBe('not an error');
  });
});
