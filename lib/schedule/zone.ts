/**
 * Time zones: turning instants into local date-times and back
 * (docs/semantics.md §4.4). Offsets come from luxon's IANAZone (Intl);
 * everything else is done here, because luxon's own local-to-instant
 * conversion moves a time inside a gap forward by the gap's length
 * (02:30 becomes 03:30), where resolve() must give the transition instant.
 */

import { IANAZone } from 'luxon';
import { DAY_MS, MINUTE_MS } from './calendar.js';
import type { LocalDateTime } from './types.js';

/** TimeZone gives the UTC offset of a zone at any instant. */
export interface TimeZone {
  /** The zone's name as written. */
  readonly name: string;
  /** offsetMs is local minus UTC, in milliseconds, at the instant (ms since the epoch). */
  offsetMs(instantMs: number): number;
}

// Names Intl reads as plain UTC: skip the Intl round trip for the common case.
const utcNames = new Set([
  'utc',
  'etc/utc',
  'gmt',
  'etc/gmt',
  'etc/universal',
  'universal',
  'zulu',
]);

/** isKnownZone tells whether luxon accepts the name as an IANA zone (`Europe/Berlin`, `UTC`). */
export function isKnownZone(name: string): boolean {
  return IANAZone.isValidZone(name);
}

/** timeZone wraps a zone name that isKnownZone accepted. */
export function timeZone(name: string): TimeZone {
  if (utcNames.has(name.toLowerCase())) return { name, offsetMs: () => 0 };
  const zone = IANAZone.create(name);
  // One search asks for the same instants more than once (resolve checks its
  // candidates, the walk reads them back), and each answer costs an Intl
  // formatting; a small memo per TimeZone saves most of them.
  const memo = new Map<number, number>();
  return {
    name,
    offsetMs: (instantMs) => {
      let offset = memo.get(instantMs);
      if (offset === undefined) {
        if (memo.size >= 256) memo.clear();
        // luxon reports minutes, fractional for the odd historical offset with seconds.
        offset = Math.round(zone.offset(instantMs) * MINUTE_MS);
        memo.set(instantMs, offset);
      }
      return offset;
    },
  };
}

/** localOf is the local date-time of an instant in the zone. */
export function localOf(instantMs: number, zone: TimeZone): LocalDateTime {
  return instantMs + zone.offsetMs(instantMs);
}

/**
 * resolve maps a local date-time to an instant (§4.4): the instant itself when
 * the local time occurs once; the earlier instant when it occurs twice (clocks
 * set back); the instant of the transition, which ends the gap, when it does
 * not occur at all (clocks set forward). resolve never decreases as the local
 * date-time increases.
 */
export function resolve(local: LocalDateTime, zone: TimeZone): number {
  // A local time can only belong to the offsets in force around it; a day on
  // either side reaches past any offset, and zones hardly ever change twice in
  // two days (Temporal's GetPossibleInstantsFor makes the same bet). When they
  // do, resolveCarefully below takes over.
  const offsetBefore = zone.offsetMs(local - DAY_MS);
  const offsetAfter = zone.offsetMs(local + DAY_MS);
  const earlier = local - Math.max(offsetBefore, offsetAfter);
  const later = local - Math.min(offsetBefore, offsetAfter);
  if (localOf(earlier, zone) === local) return earlier;
  if (localOf(later, zone) === local) return later;
  if (localOf(earlier, zone) < local && localOf(later, zone) > local) {
    return firstInstantPast(local, earlier, later, zone);
  }
  return resolveCarefully(local, zone);
}

/**
 * firstInstantPast finds, by bisection, the first instant after `before` whose
 * local time is past `local`; the zone's local time must read earlier than
 * `local` at `before`, later at `after`, and only jump forward in between.
 * Inside a gap, that instant is the transition.
 */
function firstInstantPast(
  local: LocalDateTime,
  before: number,
  after: number,
  zone: TimeZone,
): number {
  let low = before;
  let high = after;
  while (high - low > 1) {
    const middle = low + Math.floor((high - low) / 2);
    if (localOf(middle, zone) > local) high = middle;
    else low = middle;
  }
  return high;
}

/**
 * resolveCarefully is resolve for the rare local time near two transitions:
 * it collects every offset in force within two days, tries each, and for a
 * gap walks minute by minute to the first instant whose local time is past
 * `local`.
 */
function resolveCarefully(local: LocalDateTime, zone: TimeZone): number {
  const offsets = new Set<number>();
  for (let hour = -48; hour <= 48; hour += 1) offsets.add(zone.offsetMs(local + hour * 3_600_000));
  const candidates = [...offsets].map((offset) => local - offset).sort((a, b) => a - b);
  const occurrence = candidates.find((instant) => localOf(instant, zone) === local);
  if (occurrence !== undefined) return occurrence;
  const first = candidates[0] ?? local;
  const last = candidates[candidates.length - 1] ?? local;
  for (let instant = first; instant <= last + MINUTE_MS; instant += MINUTE_MS) {
    if (localOf(instant, zone) > local) {
      return firstInstantPast(local, instant - MINUTE_MS, instant, zone);
    }
  }
  throw new Error(`resolve: no instant reads ${local} in ${zone.name}`);
}
