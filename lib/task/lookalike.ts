import { nearest } from '../spelling.js';
import { quoteShort } from './describe.js';
import { Label, reservedScheme } from './label.js';

// Keys that look like a reserved key written without its scheme: `@every`
// for `time.rescue.io/@every`, `cancel` for `task.rescue.io/cancel`. The
// names come from Label, so a new reserved key is recognised here as soon
// as it is added there.

/** The name of a reserved key without its scheme, in lower case, without a leading `@`. */
function nameOf(key: string): string {
  const name = key.includes(reservedScheme) ? key.slice(key.lastIndexOf('/') + 1) : key;
  return name.trim().toLowerCase().replace(/^@/, '');
}

const reservedKeys: ReadonlySet<string> = new Set(Object.values(Label));
const labelByName: ReadonlyMap<string, string> = new Map(
  Object.values(Label).map((label) => [nameOf(label), label]),
);
const constantByLabel: ReadonlyMap<string, string> = new Map(
  Object.entries(Label).map(([constant, label]) => [label, constant]),
);

/**
 * reservedLookalike is the reserved key that a key which is not one looks
 * like: the same name without the scheme or its `@`, in any letter case
 * (`@every`, `every`, `@Every`), or, for a key that starts with `@` or
 * carries the scheme, a name one or two typos away (`@evry`,
 * `time.rescue.io/@evrey`). Undefined for reserved keys and other keys.
 */
export function reservedLookalike(key: string): string | undefined {
  if (reservedKeys.has(key)) return undefined;
  const name = nameOf(key);
  const same = labelByName.get(name);
  if (same !== undefined) return same;
  if (!key.startsWith('@') && !key.includes(reservedScheme)) return undefined;
  const near = nearest(name, labelByName.keys());
  return near === undefined ? undefined : labelByName.get(near);
}

/**
 * isTimeLookalike tells whether a key looks like one of the reserved keys
 * whose name starts with `@` (`@every`, `@exact`, `@defer`) and starts with
 * `@` itself: a cron label put in a map of the caller's own labels.
 */
export function isTimeLookalike(key: string): boolean {
  if (!key.startsWith('@')) return false;
  const label = reservedLookalike(key);
  return label !== undefined && label.slice(label.lastIndexOf('/') + 1).startsWith('@');
}

/** didYouMean is the hint a message about a lookalike key ends with, naming the map when given. */
export function didYouMean(label: string, map?: string): string {
  const constant = constantByLabel.get(label);
  const named = `${quoteShort(label)}${constant === undefined ? '' : ` (Label.${constant})`}`;
  return `did you mean ${map === undefined ? named : `${named} in ${map}`}?`;
}
