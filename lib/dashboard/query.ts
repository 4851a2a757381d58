// The label query of the tasks page, as an operator types it:
//
//     kind=mail                      meta (the default map): kind is mail
//     meta.x.api.io/action=delete node.addr.rescue.io/method=all
//     core.task.rescue.io/worker=*   owned by anyone
//     title="a b" "key with blanks"=x   quotes for blanks, '=' and '"' (\" inside)
//     {"meta":{"kind":"mail"}}       or a task as JSON
//
// A pair's key starts with the name of one of the seven maps and a dot to
// name that map (unquoted); otherwise the pair is of `meta`. The engine checks
// the query it makes (engine.tasks), so this only reads the text.
import { setLabel } from '../task/codec.js';
import type { Labels, Task } from '../task/task.js';

/** The seven label maps of a task, in the order pages show them. */
export const mapNames = ['core', 'cron', 'gate', 'meta', 'node', 'root', 'sync'] as const;
type MapName = (typeof mapNames)[number];

/** QueryTextError says where a query text could not be read. */
export class QueryTextError extends Error {
  override readonly name = 'QueryTextError';
}

/** The longest query text read, in characters (the engine limits the query itself). */
const queryTextMost = 10_000;

/** parseQuery reads a query text; undefined for a blank one (every task). */
export function parseQuery(text: string): Task | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  if (trimmed.length > queryTextMost)
    throw new QueryTextError(`the query is longer than ${queryTextMost} characters`);
  if (trimmed.startsWith('{')) return parseJsonQuery(trimmed);
  const task: Partial<Record<MapName, Labels>> = {};
  for (const pair of readPairs(trimmed)) {
    setLabel((task[pair.map] ??= {}), pair.key, pair.value); // `__proto__` stays a label
  }
  return task;
}

function parseJsonQuery(text: string): Task {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new QueryTextError(`the query is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new QueryTextError('a JSON query must be an object of label maps');
  return value;
}

interface Pair {
  map: MapName;
  key: string;
  value: string;
}

/** readPairs splits `key=value` pairs at blanks outside quotes. */
function readPairs(text: string): Pair[] {
  const pairs: Pair[] = [];
  let index = 0;
  while (index < text.length) {
    if (/\s/.test(text[index] ?? '')) {
      index++;
      continue;
    }
    const start = index;
    const key = readPart(text, index, '=');
    index = key.end;
    if (text[index] !== '=')
      throw new QueryTextError(
        `expected key=value at character ${start + 1} (quote a key or value with blanks or '=')`,
      );
    const value = readPart(text, index + 1, '');
    index = value.end;
    const { map, rest } = mapOf(key);
    pairs.push({ map, key: rest, value: value.text });
  }
  return pairs;
}

interface Part {
  text: string;
  /** the unquoted text before the first quote: where a map name may be */
  plainStart: string;
  end: number;
}

/** readPart reads up to a blank (or `stop`) outside quotes; `"…"` quotes, `\"` and `\\` inside. */
function readPart(text: string, from: number, stop: string): Part {
  let out = '';
  let plainStart = '';
  let quotedYet = false;
  let index = from;
  while (index < text.length) {
    const character = text[index] ?? '';
    if (character === '"') {
      quotedYet = true;
      index++;
      let closed = false;
      while (index < text.length) {
        const inner = text[index] ?? '';
        if (inner === '\\' && (text[index + 1] === '"' || text[index + 1] === '\\')) {
          out += text[index + 1] ?? '';
          index += 2;
        } else if (inner === '"') {
          closed = true;
          index++;
          break;
        } else {
          out += inner;
          index++;
        }
      }
      if (!closed)
        throw new QueryTextError(`a quote opened at character ${from + 1} is not closed`);
      continue;
    }
    if (/\s/.test(character) || (stop !== '' && character === stop)) break;
    out += character;
    if (!quotedYet) plainStart += character;
    index++;
  }
  return { text: out, plainStart, end: index };
}

function mapOf(key: Part): { map: MapName; rest: string } {
  for (const map of mapNames) {
    if (key.plainStart.startsWith(`${map}.`)) return { map, rest: key.text.slice(map.length + 1) };
  }
  return { map: 'meta', rest: key.text };
}

/** formatQuery writes a task as query text parseQuery reads back to the same task. */
export function formatQuery(task: Task): string {
  const parts: string[] = [];
  for (const map of mapNames) {
    for (const [key, value] of Object.entries(task[map] ?? {})) {
      parts.push(`${map}.${quoteIfNeeded(key)}=${quoteIfNeeded(value)}`);
    }
  }
  return parts.join(' ');
}

function quoteIfNeeded(text: string): string {
  if (text !== '' && !/[\s="\\]/.test(text)) return text;
  return `"${text.replace(/["\\]/g, '\\$&')}"`;
}
