import fc from 'fast-check';
import {
  civilFromDays,
  daysFromCivil,
  daysInMonth,
  floorDiv,
  floorMod,
  monthIndex,
  monthOfIndex,
} from '../../lib/schedule/calendar.js';

const DAY_MS = 86_400_000;

describe('calendar arithmetic', () => {
  it('counts days from 1970-01-01 (dn of docs/semantics.md §4.3)', () => {
    expect(daysFromCivil(1970, 1, 1)).toBe(0);
    expect(daysFromCivil(1970, 1, 5)).toBe(4); // the week grid's Monday
    expect(daysFromCivil(2023, 9, 28)).toBe(19628); // C09
    expect(daysFromCivil(2023, 3, 24)).toBe(19440); // Z18
    expect(daysFromCivil(1969, 12, 31)).toBe(-1);
    expect(daysFromCivil(0, 3, 1)).toBe(-719468);
  });

  it('agrees with Date.UTC and inverts, for any day in years 1 to 20000', () => {
    fc.assert(
      fc.property(fc.integer({ min: -719_162, max: 6_584_000 }), (days) => {
        const date = new Date(days * DAY_MS);
        const civil = civilFromDays(days);
        expect(civil).toEqual({
          year: date.getUTCFullYear(),
          month: date.getUTCMonth() + 1,
          day: date.getUTCDate(),
        });
        expect(daysFromCivil(civil.year, civil.month, civil.day)).toBe(days);
      }),
      { numRuns: 500 },
    );
  });

  it('knows the length of every month', () => {
    expect(
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((month) => daysInMonth(2023, month)),
    ).toEqual([31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]);
    expect(daysInMonth(2024, 2)).toBe(29);
    expect(daysInMonth(2100, 2)).toBe(28);
    expect(daysInMonth(2000, 2)).toBe(29);
  });

  it('counts months from January 1970 (mi of §4.3)', () => {
    expect(monthIndex(2023, 10)).toBe(645); // I06
    expect(monthIndex(2026, 9)).toBe(680); // C24
    expect(monthOfIndex(685)).toEqual({ year: 2027, month: 2 });
    expect(monthOfIndex(-1)).toEqual({ year: 1969, month: 12 });
  });

  it('divides towards minus infinity', () => {
    expect(floorDiv(-1, 7)).toBe(-1);
    expect(floorMod(-1, 7)).toBe(6);
    expect(floorDiv(28265220, 7)).toBe(4037888); // I01: mn(2023-09-28 15:00)
    expect(floorMod(28265220, 7)).toBe(4);
  });
});
