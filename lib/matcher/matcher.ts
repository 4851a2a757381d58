import { mapNames, type Labels, type Task } from '../task/task.js';
import { compileKeyPattern, isExactKey, valueMatches } from '../task/pattern.js';

/**
 * has tells whether every pair of `query` matches some label of `labels`
 * (docs/semantics.md §2.2). The query `{ '*': '*' }` matches everything, even absent
 * or empty labels; otherwise absent or empty labels, or an empty query, match
 * nothing. A pair with an exact key is a lookup; only a pattern key walks the
 * labels, so the cost of a query does not grow with the labels it names.
 */
export function has(labels: Labels | null | undefined, query: Labels | null | undefined): boolean {
  if (query === undefined || query === null) return false;
  const queryKeys = Object.keys(query);
  if (queryKeys.length === 1 && queryKeys[0] === '*' && query['*'] === '*') return true;
  if (labels === undefined || labels === null || queryKeys.length === 0) return false;
  let labelKeys: string[] | undefined; // listed once, for the first pattern key
  for (const queryKey of queryKeys) {
    const valuePattern = query[queryKey] as string;
    if (isExactKey(queryKey)) {
      // own enumerable labels only: `constructor` is not a label of `{}`
      if (!isLabel(labels, queryKey)) return false;
      if (!valueMatches(valuePattern, labels[queryKey] as string)) return false;
      continue;
    }
    labelKeys ??= Object.keys(labels);
    const keyMatches = compileKeyPattern(queryKey);
    const found = labelKeys.some(
      (key) => keyMatches(key) && valueMatches(valuePattern, labels[key] as string),
    );
    if (!found) return false;
  }
  return true;
}

/**
 * all returns the union of the labels matched by each key pattern, or
 * undefined when some pattern matches no label. With no patterns it is `{}`.
 */
export function all(labels: Labels | null | undefined, ...keys: string[]): Labels | undefined {
  const union: Labels = {};
  for (const pattern of keys) {
    const matched = select(labels, pattern);
    if (matched.length === 0) return undefined;
    for (const key of matched) define(union, key, labels?.[key] ?? '');
  }
  return union;
}

/** any returns the union of the labels matched by the key patterns, or undefined when that is empty. */
export function any(labels: Labels | null | undefined, ...keys: string[]): Labels | undefined {
  const union: Labels = {};
  let found = false;
  for (const pattern of keys) {
    for (const key of select(labels, pattern)) {
      define(union, key, labels?.[key] ?? '');
      found = true;
    }
  }
  return found ? union : undefined;
}

/**
 * matches tells whether `task` satisfies every map that is present and
 * non-empty in `query` (each compared with `has`). A query without such a map
 * matches every task.
 */
export function matches(task: Task, query: Task): boolean {
  for (const name of mapNames) {
    const wanted = query[name] as Labels | null | undefined;
    if (wanted === undefined || wanted === null || Object.keys(wanted).length === 0) continue;
    if (!has(task[name], wanted)) return false;
  }
  return true;
}

function select(labels: Labels | null | undefined, pattern: string): string[] {
  if (labels === undefined || labels === null) return [];
  const keyMatches = compileKeyPattern(pattern);
  return Object.keys(labels).filter(keyMatches);
}

function define(labels: Labels, key: string, value: string): void {
  Object.defineProperty(labels, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

function isLabel(labels: Labels, key: string): boolean {
  return Object.prototype.propertyIsEnumerable.call(labels, key);
}
