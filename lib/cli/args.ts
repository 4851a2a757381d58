// Command-line arguments: node:util parseArgs over option tables that also
// write the help text, plus the readers every command shares (label flags,
// JSON tasks, numbers). Every mistake becomes a usage error (exit 2).
import { parseArgs } from 'node:util';
import type { Labels, Task } from '../task/task.js';
import { messageOf, usageError } from './exit.js';

/** OptionSpec is one flag: how parseArgs reads it and what the help says. */
interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly multiple?: boolean;
  readonly short?: string;
  /** the value's placeholder in the help, e.g. `<n>` */
  readonly value?: string;
  readonly help: string;
}
export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

/** The options every command takes. */
export const commonOptions = {
  redis: {
    type: 'string',
    value: '<url>',
    help: 'Redis URL (default $REDIS_URL, else redis://127.0.0.1:6379); a Redis Cluster: several node URLs, comma-separated',
  },
  queue: { type: 'string', value: '<name>', help: "queue (default 'default')" },
  json: { type: 'boolean', help: 'print JSON for scripts instead of tables' },
  help: { type: 'boolean', short: 'h', help: 'show this help' },
} as const satisfies OptionSpecs;

/** The label maps a query or a task may be given in, one flag each. */
const labelMaps = ['core', 'cron', 'gate', 'meta', 'node', 'root', 'sync'] as const;
type LabelMap = (typeof labelMaps)[number];

/** Label flags (`--meta k=v`, repeatable) for the seven maps of a task or a query. */
export function labelOptions(what: 'query' | 'task'): OptionSpecs {
  const specs: Record<string, OptionSpec> = {};
  for (const map of labelMaps) {
    specs[map] = {
      type: 'string',
      multiple: true,
      value: '<k=v>',
      help:
        map === 'meta'
          ? `a label of the ${what}'s meta map (repeatable); also --core, --cron, --gate, --node, --root, --sync`
          : '',
    };
  }
  return specs;
}

/** Values reads what parseArgs found, by type. */
export class Values {
  constructor(private readonly raw: Readonly<Record<string, unknown>>) {}

  string(name: string): string | undefined {
    const value = this.raw[name];
    return typeof value === 'string' ? value : undefined;
  }

  strings(name: string): string[] {
    const value = this.raw[name];
    return Array.isArray(value)
      ? value.filter((item): item is string => typeof item === 'string')
      : [];
  }

  flag(name: string): boolean {
    return this.raw[name] === true;
  }
}

/** ParsedArgs is a command's flags and positional arguments. */
export interface ParsedArgs {
  readonly values: Values;
  readonly positionals: readonly string[];
}

/** parseCommandArgs reads argv by the option tables; an unknown flag or a missing value is a usage error. */
export function parseCommandArgs(argv: readonly string[], specs: OptionSpecs): ParsedArgs {
  const options: Record<
    string,
    { type: 'string' | 'boolean'; multiple?: boolean; short?: string }
  > = {};
  for (const [name, spec] of Object.entries(specs)) {
    options[name] = {
      type: spec.type,
      ...(spec.multiple === true ? { multiple: true } : {}),
      ...(spec.short === undefined ? {} : { short: spec.short }),
    };
  }
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      options,
      strict: true,
      allowPositionals: true,
    });
    return { values: new Values(values), positionals };
  } catch (error) {
    // parseArgs explains at length how to pass a positional starting with '-'; the first sentence says it
    const message = messageOf(error);
    throw usageError(message.split(/\.\s/)[0]?.replace(/\.$/, '') ?? message);
  }
}

/** splitLabel reads `key=value` (at the first `=`); `--meta kind=mail`. */
function splitLabel(text: string, flag: string): [string, string] {
  const at = text.indexOf('=');
  if (at <= 0) throw usageError(`--${flag} takes key=value; got ${JSON.stringify(text)}`);
  return [text.slice(0, at), text.slice(at + 1)];
}

/**
 * labelsFrom builds a task or a query from the label flags, merged over the
 * JSON of `jsonFlag` when given (a flag's label wins over the JSON's).
 * Undefined when neither is given.
 */
export function labelsFrom(values: Values, jsonFlag: string): Task | undefined {
  const json = values.string(jsonFlag);
  const task: Partial<Record<LabelMap, Labels>> =
    json === undefined ? {} : parseTaskJson(json, jsonFlag);
  let given = json !== undefined;
  for (const map of labelMaps) {
    for (const pair of values.strings(map)) {
      const [key, value] = splitLabel(pair, map);
      task[map] = { ...task[map], [key]: value };
      given = true;
    }
  }
  return given ? task : undefined;
}

/** parseTaskJson reads a task (or a query) given as JSON on the command line. */
function parseTaskJson(text: string, flag: string): Task {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw usageError(`--${flag} is not JSON: ${messageOf(error)}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw usageError(
      `--${flag} must be a JSON object of label maps, e.g. '{"meta":{"kind":"mail"}}'`,
    );
  // a task's payload rides along; a query has none (payloads are never matched)
  const keys: readonly string[] = flag === 'task' ? [...labelMaps, 'payload'] : labelMaps;
  for (const name of Object.keys(parsed)) {
    if (!keys.includes(name))
      throw usageError(
        `--${flag}: ${JSON.stringify(name)} is not a label map (${keys.join(', ')})`,
      );
  }
  return parsed;
}

/** integerFlag reads a whole number from min to max, or the default when the flag is absent. */
export function integerFlag(
  values: Values,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const text = values.string(name);
  if (text === undefined) return fallback;
  const value = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max)
    throw usageError(
      `--${name} must be a whole number from ${min} to ${max}; got ${JSON.stringify(text)}`,
    );
  return value;
}

/** positionalCount checks how many positional arguments a command got. */
export function positionalCount(
  positionals: readonly string[],
  min: number,
  max: number,
  usage: string,
): void {
  if (positionals.length < min) throw usageError(`missing argument: ${usage}`);
  if (positionals.length > max)
    throw usageError(`unexpected argument ${JSON.stringify(positionals[max])}: ${usage}`);
}
