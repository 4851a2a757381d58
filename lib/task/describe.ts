// How error messages show what the caller passed: strings quoted as JSON,
// long ones cut short, anything else by its kind.

/** quote writes a string as a JSON literal, so blanks and control characters show. */
function quote(text: string): string {
  return JSON.stringify(text);
}

/** quoteShort quotes a string cut to its first 40 characters, for keys that may be huge. */
export function quoteShort(text: string): string {
  return text.length <= 40 ? quote(text) : `${quote(text.slice(0, 40))}…`;
}

/** describe names the kind of a value that is not what was expected; it never throws. */
export function describe(value: unknown): string {
  try {
    if (value === undefined) return 'undefined';
    if (value === null) return 'null';
    if (Array.isArray(value)) return 'an array';
    if (typeof value === 'object') {
      const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
      return `an instance of ${typeof name === 'string' && name !== '' ? name : 'a class'}`;
    }
    if (typeof value === 'string') return `the string ${quoteShort(value)}`;
    if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
      return `${typeof value} ${String(value)}`;
    }
    return `a ${typeof value}`;
  } catch {
    return 'an object that cannot be read';
  }
}

/** reason is the message of something thrown, for "could not be read" errors. */
export function reason(error: unknown): string {
  try {
    return error instanceof Error ? String(error.message) : describe(error);
  } catch {
    return 'an error that cannot be read';
  }
}
