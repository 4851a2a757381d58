/**
 * formatTime renders an instant as UTC `YYYY-MM-DDTHH:mm:ss[.fff]Z`: the
 * fraction keeps the milliseconds with trailing zeros trimmed and is left out
 * when zero (`2023-10-20T00:00:03.5Z`, `2022-12-31T14:23:24.161Z`,
 * `2023-09-28T14:00:00Z`). Every time label the engine writes uses it.
 */
export function formatTime(date: Date): string {
  const ms = date.getTime();
  if (!Number.isFinite(ms)) throw new RangeError('formatTime: invalid Date');
  // a busy worker formats the same lease end many times within a millisecond
  if (ms === lastFormatted.ms) return lastFormatted.text;
  const text = formatIso(date);
  lastFormatted.ms = ms;
  lastFormatted.text = text;
  return text;
}

const lastFormatted = { ms: Number.NaN, text: '' };

/** The last instant of year 9999: up to it, toISOString writes `YYYY-MM-DDTHH:mm:ss.sssZ`. */
const lastFourDigitYearMs = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** The fraction each millisecond of a second is written with: '', '.001' … '.5' … '.999'. */
const fractions = Array.from({ length: 1_000 }, (_, ms) =>
  ms === 0 ? '' : `.${String(ms).padStart(3, '0').replace(/0+$/, '')}`,
);

/** The second formatIso wrote last: a busy worker writes many instants within one. */
const lastSecond = { at: Number.NaN, whole: '' };

function formatIso(date: Date): string {
  const ms = date.getTime();
  if (ms < 0 || ms > lastFourDigitYearMs) return formatAnyIso(date);
  const at = Math.floor(ms / 1_000);
  if (at !== lastSecond.at) {
    lastSecond.at = at;
    lastSecond.whole = date.toISOString().slice(0, 19); // YYYY-MM-DDTHH:mm:ss
  }
  return `${lastSecond.whole}${fractions[ms - at * 1_000] ?? ''}Z`;
}

function formatAnyIso(date: Date): string {
  const iso = date.toISOString(); // YYYY-MM-DDTHH:mm:ss.sssZ (or ±YYYYYY-... outside 0000-9999)
  const dot = iso.lastIndexOf('.');
  const whole = iso.slice(0, dot);
  const fraction = iso.slice(dot + 1, -1).replace(/0+$/, '');
  return fraction === '' ? `${whole}Z` : `${whole}.${fraction}Z`;
}

// YYYY-MM-DD T HH:mm:ss [.fraction] [zone]; the zone part is checked separately.
const timePattern =
  /^(\d{4})-(\d{2})-(\d{2})([Tt])(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|z|[+-]\d{2}:\d{2})?$/;

/**
 * parseTime reads the formatTime form, any RFC 3339 date-time (fraction of 1
 * to 9 digits, `Z`/`z` or a `±HH:mm` offset, `T` or `t`), and the zone-less
 * `YYYY-MM-DDTHH:mm:ss[.f…]` form read as UTC. Digits beyond milliseconds are
 * truncated, never rounded. Anything else, including dates that do not exist
 * in the calendar, throws a RangeError.
 */
export function parseTime(text: string): Date {
  const match = typeof text === 'string' ? timePattern.exec(text) : null;
  if (match === null)
    throw new RangeError(`parseTime: not an RFC 3339 date-time: ${JSON.stringify(text)}`);
  const [
    ,
    year = '',
    month = '',
    day = '',
    separator,
    hour = '',
    minute = '',
    second = '',
    fraction,
    zone,
  ] = match;
  if (zone === undefined && separator !== 'T') {
    throw new RangeError(
      `parseTime: a date-time without a zone must use "T": ${JSON.stringify(text)}`,
    );
  }
  const y = Number(year);
  const mo = Number(month);
  const d = Number(day);
  const h = Number(hour);
  const mi = Number(minute);
  const s = Number(second);
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || s > 59) {
    throw new RangeError(`parseTime: no such date or time: ${JSON.stringify(text)}`);
  }
  const ms = fraction === undefined ? 0 : Number(fraction.slice(0, 3).padEnd(3, '0'));
  let offsetMinutes = 0;
  if (zone !== undefined && zone !== 'Z' && zone !== 'z') {
    const offsetHours = Number(zone.slice(1, 3));
    const offsetMins = Number(zone.slice(4, 6));
    if (offsetHours > 23 || offsetMins > 59) {
      throw new RangeError(`parseTime: offset out of range: ${JSON.stringify(text)}`);
    }
    offsetMinutes = (zone.startsWith('-') ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  // Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear keeps them literal.
  const date = new Date(Date.UTC(2000, mo - 1, d, h, mi, s, ms));
  date.setUTCFullYear(y);
  return new Date(date.getTime() - offsetMinutes * 60_000);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** tryParseTime is parseTime that answers undefined instead of throwing. */
export function tryParseTime(text: string | undefined): Date | undefined {
  if (text === undefined) return undefined;
  try {
    return parseTime(text);
  } catch {
    return undefined;
  }
}
