import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { errorCodes } from '../../errors.js';
import { Gate, Label, Method } from '../../task/label.js';
import { mapNames } from '../../task/task.js';
import { keyNames, type KeyName } from '../keys.js';

/** LoadedScript is one assembled script: prelude, includes and body, with its SHA1. */
export interface LoadedScript {
  name: string;
  source: string;
  sha: string;
}

const includePattern = /^--- @include "([a-z-]+)"\s*$/;

/**
 * ScriptVariant says which server a script is assembled for: `sharded` on a
 * Redis Cluster, where the queue's signal goes out with SPUBLISH (sharded
 * pub/sub: only the node of the queue's slot sees it), and plain PUBLISH on a
 * single server. `SIGNAL_PUBLISH` in a script is that command's name.
 */
export interface ScriptVariant {
  readonly sharded: boolean;
}

/**
 * loadScript reads `<name>.lua` next to this module and assembles it: an
 * optional `#!lua` shebang line stays first, then the generated prelude, then
 * each `--- @include "x"` replaced by `include/x.lua` (at most once per script,
 * no nesting), marked with a `-- file:` comment so Lua line numbers can be
 * traced back.
 */
export function loadScript(
  name: string,
  variant: ScriptVariant = { sharded: false },
): LoadedScript {
  return assembleScript(name, readLua(`${name}.lua`), variant);
}

/** assembleScript assembles a script body the way loadScript does (tests use it for test-only scripts). */
export function assembleScript(
  name: string,
  body: string,
  variant: ScriptVariant = { sharded: false },
): LoadedScript {
  const lines = body.split('\n');
  const shebang = lines[0]?.startsWith('#!lua') === true ? lines.shift() : undefined;
  const included = new Set<string>();
  const assembled = lines.map((line, index) => {
    const match = includePattern.exec(line);
    if (match === null) return line;
    const include = match[1] ?? '';
    if (included.has(include)) return `-- (include/${include}.lua already included)`;
    included.add(include);
    let text: string;
    try {
      text = readLua(`include/${include}.lua`);
    } catch {
      throw new Error(
        `${name}.lua line ${index + 1}: include "${include}" not found (lib/engine/lua/include/${include}.lua)`,
      );
    }
    if (/^--- @include /m.test(text)) {
      throw new Error(`include/${include}.lua: includes do not nest`);
    }
    return `-- file: include/${include}.lua\n${text}\n-- file: ${name}.lua`;
  });
  const source = inlineKeys(
    name,
    inlineConstants(
      [...(shebang === undefined ? [] : [shebang]), prelude, ...assembled].join('\n'),
      variant,
    ),
  );
  return { name, source, sha: createHash('sha1').update(source).digest('hex') };
}

function readLua(file: string): string {
  return readFileSync(new URL(file, import.meta.url), 'utf8');
}

function luaString(text: string): string {
  return JSON.stringify(text); // a JSON string literal is a valid Lua string literal for ASCII text
}

function constantName(prefix: string, name: string): string {
  return `${prefix}_${name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}`;
}

/**
 * Constants the scripts use, from TypeScript: label keys, methods, gate
 * values and error codes. The assembler writes each as a literal where it is
 * used: a literal lives in the function's constant table, while a local of the
 * main chunk would be an upvalue of every function that reads it, and Redis
 * runs the whole chunk, closures and all, on every call.
 */
const constants = new Map<string, string>([
  ...Object.entries(Label).map(([name, value]) => [constantName('LABEL', name), value] as const),
  ...Object.entries(Method).map(([name, value]) => [constantName('METHOD', name), value] as const),
  ...Object.entries(Gate).map(([name, value]) => [constantName('GATE', name), value] as const),
  ...errorCodes.map((code) => [`E_${code}`, code] as const),
]);
const constantPattern = new RegExp(
  `\\b(${[...constants.keys(), 'SIGNAL_PUBLISH'].join('|')})\\b`,
  'g',
);

function inlineConstants(source: string, { sharded }: ScriptVariant): string {
  return source.replace(constantPattern, (name) =>
    luaString(
      name === 'SIGNAL_PUBLISH'
        ? sharded
          ? 'SPUBLISH'
          : 'PUBLISH'
        : (constants.get(name) ?? name),
    ),
  );
}

/**
 * inlineKeys writes each `K['<name>']` as `KEYS[<position>]`, the position of
 * the name in `keyNames` (the order every script receives the queue's keys
 * in). A table of the keys would be built again on every call.
 */
function inlineKeys(script: string, source: string): string {
  const inlined = source.replace(/\bK\['([a-z-]+)'\]/g, (_, key: string) => {
    const index = keyNames.indexOf(key as KeyName);
    if (index < 0) throw new Error(`${script}.lua: K['${key}'] is not a key of lib/engine/keys.ts`);
    return `KEYS[${index + 1}]`;
  });
  if (/\bK\[/.test(inlined)) throw new Error(`${script}.lua: keys are named as K['<name>'] only`);
  return inlined;
}

/** The prelude: is_map_name, for the seven map names of lib/task/task.ts. */
const prelude = [
  '-- prelude: generated from lib/task/task.ts; constants and keys are inlined',
  '-- one of the seven map names (comparisons: a table of them would be built on every call)',
  `local function is_map_name(name) return ${mapNames.map((name) => `name == ${luaString(name)}`).join(' or ')} end`,
  '-- end of prelude',
].join('\n');
