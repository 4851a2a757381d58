import { TaskCronError } from '../../lib/errors.js';
import { deferDuration, parseSchedule } from '../../lib/schedule/index.js';
import { editDistance, nearest } from '../../lib/spelling.js';

function messageOf(read: () => unknown): string {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(TaskCronError);
    return (error as TaskCronError).message;
  }
  return 'accepted';
}

describe('interval suggestions', () => {
  // Each repair, and every suggestion the parser itself accepts.
  it.each([
    ['every 2 minutes', '2 minutes'],
    ['Every Day At 08:00', 'day at 08:00'],
    ['each 5 minutes', '5 minutes'],
    ['@every 2 hours', '2 hours'],
    ['every minute', 'minute'],
    ['2 minuts', '2 minutes'],
    ['2 mins', '2 minutes'],
    ['3 hrs', '3 hours'],
    ['5m', '5 minutes'],
    ['1h', '1 hour'],
    ['2weeks', '2 weeks'],
    ['two minutes', '2 minutes'],
    ['an hour', '1 hour'],
    ['daily', 'day'],
    ['monthly on the 1st', 'month on the 1st'],
    ['day at 9:30', 'day at 09:30'],
    ['day at 9am', 'day at 09:00'],
    ['day at 6:15pm', 'day at 18:15'],
    ['week on fri', 'week on friday'],
    ['2 weeks on Thu at 06:00', '2 weeks on Thursday at 06:00'],
    ['week on Fryday', 'week on Friday'],
    ['month on 15', 'month on the 15th'],
    ['month on the 22', 'month on the 22nd'],
    ['every 2 hours in Europe/Berlin', '2 hours in Europe/Berlin'],
  ])('suggests for %j: %j', (expression, suggestion) => {
    const message = messageOf(() => parseSchedule(expression));
    expect(message).toMatch(/^".*": /);
    expect(message.endsWith(`; did you mean ${JSON.stringify(suggestion)}?`)).toBe(true);
    expect(() => parseSchedule(suggestion)).not.toThrow();
  });

  it.each([
    'hello',
    '2 minutes at 10:00', // a repair would change the meaning
    'hour at 14:30',
    '2 minutes in Europe/Pari',
    '5 hour', // the message says how already
    'Hour',
    '0 0 8 * * *',
  ])('offers nothing for %j', (expression) => {
    expect(messageOf(() => parseSchedule(expression))).not.toContain('did you mean');
  });

  it('suggests for @defer durations with the @defer rules (no clause survives)', () => {
    expect(messageOf(() => deferDuration('every 2 hours'))).toMatch(/; did you mean "2 hours"\?$/);
    expect(messageOf(() => deferDuration('5 minuts'))).toMatch(/; did you mean "5 minutes"\?$/);
    expect(messageOf(() => deferDuration('day at 9:00'))).not.toContain('did you mean');
  });
});

describe('spelling', () => {
  it('counts insertions, deletions, substitutions and swaps', () => {
    expect(editDistance('minutes', 'minutes')).toBe(0);
    expect(editDistance('minuts', 'minutes')).toBe(1);
    expect(editDistance('mniutes', 'minutes')).toBe(1);
    expect(editDistance('', 'day')).toBe(3);
    expect(editDistance('hour', 'week')).toBe(4);
  });

  it('takes the nearest candidate within one edit for short words, two for longer ones', () => {
    expect(nearest('mata', ['core', 'meta'])).toBe('meta');
    expect(nearest('mt', ['meta'])).toBeUndefined();
    expect(nearest('evrey', ['every', 'exact'])).toBe('every');
    expect(nearest('hello', ['every'])).toBeUndefined();
  });
});
