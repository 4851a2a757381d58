import { jest } from '@jest/globals';

// The parse cache of lib/schedule/parse.ts, measured: every uncached parse
// splits the expression into tokens exactly once, so counting the calls of
// grammar's tokenize counts the parses. The spy has to be in place before
// parse.ts is linked, hence the dynamic imports.
const grammar = await import('../../lib/schedule/grammar.js');
const tokenize = jest.fn(grammar.tokenize);
jest.unstable_mockModule('../../lib/schedule/grammar.js', () => ({ ...grammar, tokenize }));
const { TaskCronError } = await import('../../lib/errors.js');
const { SCHEDULE_CACHE_LIMIT } = await import('../../lib/schedule/parse.js');
const { parseSchedule, schedule } = await import('../../lib/schedule/index.js');
const { validateCreate } = await import('../../lib/task/validate.js');
const { Label } = await import('../../lib/task/label.js');

const now = new Date('2023-09-28T14:23:24.161Z');

beforeEach(() => {
  tokenize.mockClear();
});

describe('the parse cache', () => {
  it('parses an expression once, however often parseSchedule, schedule and create ask', () => {
    parseSchedule('11 minutes in Asia/Kolkata');
    expect(tokenize).toHaveBeenCalledTimes(1);
    parseSchedule('11 minutes in Asia/Kolkata');
    schedule('11 minutes in Asia/Kolkata', now);
    schedule('11 minutes in Asia/Kolkata', new Date('2024-01-01T00:00:00Z'));
    validateCreate(
      { cron: { [Label.Every]: '11 minutes in Asia/Kolkata' }, meta: { k: 'v' } },
      now,
    );
    expect(tokenize).toHaveBeenCalledTimes(1);
  });

  it('parses a rejected expression once and throws the same message every time', () => {
    const parses: number[] = [];
    const outcomes = [1, 2, 3].map(() => {
      try {
        schedule('11 hour', now);
        return 'accepted';
      } catch (error) {
        return error instanceof TaskCronError ? error.message : String(error);
      } finally {
        parses.push(tokenize.mock.calls.length);
      }
    });
    expect(outcomes).toEqual(
      Array(3).fill('"11 hour": a quantity of 2 or more needs the plural "hours"'),
    );
    // the first rejection also tries the repaired expression (lib/schedule/suggest.ts)
    expect(tokenize.mock.calls[0]).toEqual(['11 hour']);
    expect(parses[1]).toBe(parses[0]);
    expect(parses[2]).toBe(parses[0]);
  });

  it('keys on the exact text: another spelling of the same grid is parsed on its own', () => {
    parseSchedule('0 9 * * 1-5');
    parseSchedule(' 0 9 * * 1-5');
    expect(tokenize).toHaveBeenCalledTimes(2);
  });

  it('parses again an expression dropped as the oldest once the cache is full', () => {
    parseSchedule('23 minutes');
    for (let quantity = 2; quantity < SCHEDULE_CACHE_LIMIT + 10; quantity += 1) {
      parseSchedule(`${quantity} days`);
    }
    tokenize.mockClear();
    parseSchedule('23 minutes');
    parseSchedule('23 minutes');
    expect(tokenize).toHaveBeenCalledTimes(1);
  });
});
