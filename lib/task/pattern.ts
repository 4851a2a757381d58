/**
 * KeyPattern is a compiled key pattern of a query (docs/semantics.md §2.1):
 *
 *     *      every key
 *     *x*    keys containing x (length ≥ 2, so ** matches every key)
 *     *x     keys ending with x
 *     x*     keys starting with x
 *     x      exactly the key x
 *
 * Only a leading and a trailing `*` are special; matching is case-sensitive.
 */
export type KeyPattern = (key: string) => boolean;

/** compileKeyPattern turns a query key into its matcher. */
export function compileKeyPattern(pattern: string): KeyPattern {
  if (pattern === '*') return () => true;
  const leading = pattern.startsWith('*');
  const trailing = pattern.endsWith('*');
  if (leading && trailing) {
    const inner = pattern.slice(1, -1);
    return (key) => key.includes(inner);
  }
  if (leading) {
    const suffix = pattern.slice(1);
    return (key) => key.endsWith(suffix);
  }
  if (trailing) {
    const prefix = pattern.slice(0, -1);
    return (key) => key.startsWith(prefix);
  }
  return (key) => key === pattern;
}

/** isExactKey tells whether a query key matches one key only (no leading or trailing `*`). */
export function isExactKey(pattern: string): boolean {
  return !pattern.startsWith('*') && !pattern.endsWith('*');
}

/** valueMatches applies a value pattern: `*` matches every value, anything else itself. */
export function valueMatches(pattern: string, value: string): boolean {
  return pattern === '*' || pattern === value;
}
