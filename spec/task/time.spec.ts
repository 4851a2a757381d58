import fc from 'fast-check';
import { formatTime, parseTime } from '../../lib/task/time.js';

describe('formatTime', () => {
  it.each([
    ['2023-01-02T00:00:00.000Z', '2023-01-02T00:00:00Z'],
    ['2023-09-28T14:00:00.000Z', '2023-09-28T14:00:00Z'],
    ['2022-12-31T14:23:24.161Z', '2022-12-31T14:23:24.161Z'],
    ['2022-12-31T14:23:24.100Z', '2022-12-31T14:23:24.1Z'],
    ['2023-10-20T00:00:03.500Z', '2023-10-20T00:00:03.5Z'],
    ['2023-10-20T00:00:03.050Z', '2023-10-20T00:00:03.05Z'],
    ['1970-01-01T00:00:00.000Z', '1970-01-01T00:00:00Z'],
  ])('writes %s as %s', (iso, expected) => {
    expect(formatTime(new Date(iso))).toBe(expected);
  });

  it('rejects an invalid Date', () => {
    expect(() => formatTime(new Date(Number.NaN))).toThrow(RangeError);
  });

  it('writes what toISOString writes, its zeros of the fraction trimmed, also within one second', () => {
    const reference = (ms: number) =>
      new Date(ms)
        .toISOString()
        .replace(/\.?0*Z$/, (tail) => `${tail.slice(0, -1).replace(/\.?0*$/, '')}Z`);
    fc.assert(
      fc.property(
        fc.integer({ min: -62_198_755_200_000, max: 8_639_999_999_999_000 }),
        fc.integer({ min: 0, max: 999 }),
        (ms, step) => {
          // an instant, then another of the same second (its whole part kept from the first)
          expect(formatTime(new Date(ms))).toBe(reference(ms));
          const second = ms - (((ms % 1_000) + 1_000) % 1_000);
          expect(formatTime(new Date(second + step))).toBe(reference(second + step));
        },
      ),
    );
  });

  it('round-trips through parseTime for every millisecond instant of 1970-9999', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253_402_300_799_999 }), (ms) => {
        expect(parseTime(formatTime(new Date(ms))).getTime()).toBe(ms);
      }),
    );
  });
});

describe('parseTime', () => {
  it.each([
    ['2023-10-20T00:00:01Z', '2023-10-20T00:00:01.000Z'],
    ['2023-10-20T00:00:01z', '2023-10-20T00:00:01.000Z'],
    ['2023-10-20t00:00:01Z', '2023-10-20T00:00:01.000Z'],
    ['2023-10-20T02:00:01+02:00', '2023-10-20T00:00:01.000Z'],
    ['2023-10-19T19:30:01-04:30', '2023-10-20T00:00:01.000Z'],
    ['2023-10-20T00:00:01.5Z', '2023-10-20T00:00:01.500Z'],
    ['2023-09-28T14:23:24.161982Z', '2023-09-28T14:23:24.161Z'],
    ['2023-09-28T14:23:24.999999999Z', '2023-09-28T14:23:24.999Z'],
    ['2023-10-20T00:00:01', '2023-10-20T00:00:01.000Z'],
    ['2023-10-20T00:00:01.25', '2023-10-20T00:00:01.250Z'],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
    ['2000-02-29T00:00:00Z', '2000-02-29T00:00:00.000Z'],
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
  ])('reads %s as %s', (text, iso) => {
    expect(parseTime(text).toISOString()).toBe(iso);
  });

  it.each([
    '',
    'now',
    '2023-10-20',
    '2023-10-20 00:00:01Z',
    '2023-10-20t00:00:01',
    '2023-13-01T00:00:00Z',
    '2023-02-29T00:00:00Z',
    '1900-02-29T00:00:00Z',
    '2023-04-31T00:00:00Z',
    '2023-10-20T24:00:00Z',
    '2023-10-20T00:60:00Z',
    '2023-10-20T00:00:60Z',
    '2023-10-20T00:00:01.Z',
    '2023-10-20T00:00:01.1234567890Z',
    '2023-10-20T00:00:01+0200',
    '2023-10-20T00:00:01+24:00',
    '2023-10-20T00:00:01+02:60',
    '23-10-20T00:00:01Z',
    ' 2023-10-20T00:00:01Z',
    '2023-10-20T00:00:01ZZ',
  ])('rejects %j', (text) => {
    expect(() => parseTime(text)).toThrow(RangeError);
  });
});
