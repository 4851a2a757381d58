import fc from 'fast-check';
import { localOf, resolve, timeZone, isKnownZone } from '../../lib/schedule/zone.js';
import { text } from './helpers.js';

/** local writes a wall-clock reading as a LocalDateTime. */
function local(iso: string): number {
  return Date.parse(`${iso}Z`);
}

function resolved(zone: string, wallClock: string): string {
  return text(resolve(local(wallClock), timeZone(zone)));
}

describe('resolve: local date-time to instant (docs/semantics.md §4.4)', () => {
  it.each([
    // occurs once
    ['UTC', '2023-09-28T14:23:00', '2023-09-28T14:23:00Z'],
    ['Asia/Kolkata', '2023-09-28T00:00:00', '2023-09-27T18:30:00Z'],
    ['Europe/Berlin', '2023-03-25T08:00:00', '2023-03-25T07:00:00Z'],
    ['Europe/Berlin', '2023-03-26T03:00:00', '2023-03-26T01:00:00Z'],
    ['Europe/Berlin', '2023-03-26T01:59:00', '2023-03-26T00:59:00Z'],
    // gap: the transition instant, not luxon's "shift forward by the gap"
    ['Europe/Berlin', '2023-03-26T02:30:00', '2023-03-26T01:00:00Z'],
    ['Europe/Berlin', '2023-03-26T02:00:00', '2023-03-26T01:00:00Z'],
    ['Europe/Berlin', '2023-03-26T02:59:00', '2023-03-26T01:00:00Z'],
    ['America/New_York', '2023-03-12T02:30:00', '2023-03-12T07:00:00Z'],
    ['Australia/Lord_Howe', '2023-10-01T02:15:00', '2023-09-30T15:30:00Z'], // 30-minute gap
    ['Pacific/Chatham', '2023-09-24T03:00:00', '2023-09-23T14:00:00Z'], // +12:45 to +13:45
    ['America/Sao_Paulo', '2018-11-04T00:00:00', '2018-11-04T03:00:00Z'], // midnight skipped
    ['Pacific/Apia', '2011-12-30T12:00:00', '2011-12-30T10:00:00Z'], // a whole day skipped
    // repeated: the earlier instant
    ['Europe/Berlin', '2023-10-29T02:30:00', '2023-10-29T00:30:00Z'],
    ['Europe/Berlin', '2023-10-29T02:00:00', '2023-10-29T00:00:00Z'],
    ['Europe/Berlin', '2023-10-29T03:00:00', '2023-10-29T02:00:00Z'],
    ['America/New_York', '2023-11-05T01:30:00', '2023-11-05T05:30:00Z'],
    ['Australia/Lord_Howe', '2023-04-02T01:45:00', '2023-04-01T14:45:00Z'],
    ['Pacific/Chatham', '2023-04-02T03:00:00', '2023-04-01T13:15:00Z'],
    ['America/Sao_Paulo', '2018-02-17T23:30:00', '2018-02-18T01:30:00Z'],
  ])('in %s, %s resolves to %s', (zone, wallClock, instant) => {
    expect(resolved(zone, wallClock)).toBe(instant);
  });

  const zones = [
    'UTC',
    'Europe/Berlin',
    'America/New_York',
    'Asia/Kolkata',
    'Australia/Lord_Howe',
    'Pacific/Chatham',
    'America/Sao_Paulo',
    'Pacific/Apia',
  ];
  const instants = fc.integer({ min: Date.UTC(1971, 0, 1), max: Date.UTC(2100, 0, 1) });

  it('never decreases, and reads back the local time it was given unless that was skipped', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        instants,
        fc.integer({ min: 0, max: 4 * 3_600_000 }),
        (name, instant, delta) => {
          const zone = timeZone(name);
          const wallClock = localOf(instant, zone);
          const at = resolve(wallClock, zone);
          // The earliest occurrence: never after the instant we started from.
          expect(at).toBeLessThanOrEqual(instant);
          expect(localOf(at, zone)).toBe(wallClock);
          expect(resolve(wallClock + delta, zone)).toBeGreaterThanOrEqual(at);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('maps a skipped local time to an instant whose local time ends the gap', () => {
    const zone = timeZone('Europe/Berlin');
    const instant = resolve(local('2023-03-26T02:30:00'), zone);
    expect(text(localOf(instant, zone))).toBe('2023-03-26T03:00:00Z');
    expect(localOf(instant - 1, zone)).toBeLessThan(local('2023-03-26T02:00:00'));
  });
});

describe('zones', () => {
  it('accepts what luxon accepts', () => {
    expect(isKnownZone('Europe/Berlin')).toBe(true);
    expect(isKnownZone('UTC')).toBe(true);
    expect(isKnownZone('Mars/Phobos')).toBe(false);
    expect(isKnownZone('')).toBe(false);
  });

  it('reads local date-times', () => {
    expect(text(localOf(Date.parse('2023-09-28T18:30:00Z'), timeZone('Asia/Kolkata')))).toBe(
      '2023-09-29T00:00:00Z',
    );
    expect(text(localOf(Date.parse('2023-10-29T01:30:00Z'), timeZone('Europe/Berlin')))).toBe(
      '2023-10-29T02:30:00Z',
    );
    expect(localOf(1234, timeZone('utc'))).toBe(1234);
  });
});
