import { createHash } from 'node:crypto';
import { embeddedText } from '../../embedded.js';
import { errorCodes } from '../../errors.js';
import { Gate, Label, Method } from '../../task/label.js';
import { mapNames } from '../../task/task.js';
import { keyNames, type KeyName, type QueueKeys } from '../keys.js';
import { engineDefaults } from '../options.js';
import { argumentNames, scriptArguments, type ArgumentList } from './arguments.js';

/** LoadedScript is one assembled script: prelude, includes and body, with its SHA1. */
export interface LoadedScript {
  name: string;
  source: string;
  sha: string;
  /** Whether the script may write (its shebang lacks `no-writes`): what durability 'replica' waits for. */
  writes: boolean;
  /** The same script as a Redis function (FUNCTION LOAD, FCALL): see assembleLibrary. */
  library: ScriptLibrary;
}

/** ScriptLibrary is a script as a Redis function library of one function. */
export interface ScriptLibrary {
  /** The library's and its function's name: `rescue_` and the SHA1 of the library's source. */
  name: string;
  source: string;
}

const includePattern = /^\s*--- @include "([a-z-]+)"\s*$/;
/** An include at the start of a line: the script's body follows the last one. */
const topIncludePattern = /^--- @include /;

/**
 * ScriptVariant says which server a script is assembled for: `sharded` on a
 * Redis Cluster, where the queue's signal goes out with SPUBLISH (sharded
 * pub/sub: only the node of the queue's slot sees it), and plain PUBLISH on a
 * single server. `SIGNAL_PUBLISH` in a script is that command's name, and
 * `SIGNAL_NUMSUB` the PUBSUB subcommand that counts that command's listeners
 * (SHARDNUMSUB, NUMSUB).
 */
export interface ScriptVariant {
  readonly sharded: boolean;
  /**
   * STEP_MICROS: how long a step of a bounded loop runs at most, in
   * microseconds (include/step.lua; the engine's `stepTime`); 0: counts alone.
   */
  readonly stepMicros: number;
}

/** The variant of an engine with the default options on a single server. */
export const defaultVariant: ScriptVariant = {
  sharded: false,
  stepMicros: stepMicros(engineDefaults.stepTime),
};

/** stepMicros: the engine's `stepTime` (ms) as whole microseconds, at least 1 unless 0. */
export function stepMicros(stepTimeMs: number): number {
  return stepTimeMs === 0 ? 0 : Math.max(1, Math.round(stepTimeMs * 1000));
}

/**
 * loadScript reads `<name>.lua` of this folder (lib/embedded.ts) and assembles it: an
 * optional `#!lua` shebang line stays first, then the generated prelude, then
 * each `--- @include "x"` replaced by `include/x.lua` (at most once per script;
 * an include names the includes it needs the same way, and they come before
 * it), marked with a `-- file:` comment so Lua line numbers can be traced
 * back.
 */
export function loadScript(name: string, variant: ScriptVariant = defaultVariant): LoadedScript {
  return assembleScript(name, readLua(`${name}.lua`), variant);
}

/**
 * assembleScript assembles a script body the way loadScript does (tests use
 * it for test-only scripts; `read` gives them include files of their own).
 */
export function assembleScript(
  name: string,
  body: string,
  variant: ScriptVariant = defaultVariant,
  read: (file: string) => string = readLua,
): LoadedScript {
  const lines = body.split('\n');
  const shebang = lines[0]?.startsWith('#!lua') === true ? lines.shift() : undefined;
  const included = new Set<string>();
  const assembled = lines.map((line, index) => {
    const match = includePattern.exec(line);
    if (match === null) return line;
    return expandInclude(
      match[1] ?? '',
      { stack: [], included, read, script: name },
      `${name}.lua line ${index + 1}`,
    );
  });
  const finish = (text: string) =>
    inlineArguments(name, inlineKeys(name, inlineConstants(text, variant)));
  const split = lines.findLastIndex((line) => topIncludePattern.test(line)) + 1;
  // the body runs as a function of its own, as in the library: its locals
  // are not the chunk's (Lua allows a function 200), so a script has the
  // same limits under EVAL as under FCALL
  const source = finish(
    [
      ...(shebang === undefined ? [] : [shebang]),
      prelude,
      evalKeyTable,
      ...assembled.slice(0, split),
      'local function run()',
      ...assembled.slice(split),
      'end',
      'return run()',
    ].join('\n'),
  );
  const sha = createHash('sha1').update(source).digest('hex');
  const flags = flagsOf(shebang);
  const library = assembleLibrary(
    flags,
    finish([prelude, ...assembled.slice(0, split)].join('\n')),
    finish(assembled.slice(split).join('\n')),
  );
  return { name, source, sha, writes: !flags.includes('no-writes'), library };
}

/** What expandInclude carries down the includes of one script. */
interface Expansion {
  /** The chain of includes being expanded, outermost first. */
  readonly stack: readonly string[];
  /** The includes already in the script: each file at most once. */
  readonly included: Set<string>;
  readonly read: (file: string) => string;
  readonly script: string;
}

/**
 * expandInclude returns `include/<include>.lua` with its own includes
 * expanded first, in the order it names them, each file at most once per
 * script; a file that includes itself through others is an error naming the
 * chain.
 */
function expandInclude(include: string, expansion: Expansion, where: string): string {
  const { stack, included, read, script } = expansion;
  if (stack.includes(include)) {
    throw new Error(
      `include/${include}.lua: includes form a cycle (${[...stack, include].join(' → ')})`,
    );
  }
  if (included.has(include)) return `-- (include/${include}.lua already included)`;
  let text: string;
  try {
    text = read(`include/${include}.lua`);
  } catch {
    throw new Error(
      `${where}: include "${include}" not found (lib/engine/lua/include/${include}.lua)`,
    );
  }
  const inner = { ...expansion, stack: [...stack, include] };
  const lines = text.split('\n').map((line, index) => {
    const match = includePattern.exec(line);
    if (match === null) return line;
    return expandInclude(match[1] ?? '', inner, `include/${include}.lua line ${index + 1}`);
  });
  // added once its own includes are in: they come before it
  included.add(include);
  const back = stack.length === 0 ? `${script}.lua` : `include/${stack.at(-1) ?? ''}.lua`;
  return `-- file: include/${include}.lua\n${lines.join('\n')}\n-- file: ${back}`;
}

/** The flags of a `#!lua flags=a,b` shebang. */
function flagsOf(shebang: string | undefined): string[] {
  const flags = shebang === undefined ? undefined : /\bflags=([a-z,-]+)/.exec(shebang)?.[1];
  return flags === undefined ? [] : flags.split(',');
}

/**
 * assembleLibrary writes a script as a Redis function library (Redis 7
 * functions): its prelude and includes, the functions every call uses, are
 * defined once when the library loads, where EVAL would define them again on
 * every call; the body runs on each FCALL. KEYS and ARGV, globals of EVAL,
 * are locals of the library that each call sets: ARGV as passed, KEYS the
 * queue's keys named from the one key the call passes (libraryKeyTables).
 * The includes' modules (`local <name>_module = nil`, built on first use)
 * hold what one call found out: each call starts without them.
 */
function assembleLibrary(flags: string[], definitions: string, body: string): ScriptLibrary {
  const modules = [...definitions.matchAll(/^local ([a-z_]+_module) = nil$/gm)].map(
    (match) => match[1] ?? '',
  );
  const text = (libraryName: string) =>
    [
      `#!lua name=${libraryName}`,
      '-- KEYS and ARGV: set by each call (the library is loaded once)',
      'local KEYS, ARGV',
      libraryKeyTables,
      definitions,
      'local function run()',
      body,
      'end',
      'redis.register_function({',
      `  function_name = '${libraryName}',`,
      '  callback = function(keys, args)',
      '    KEYS, ARGV = queue_keys(keys[1]), args',
      ...modules.map((module) => `    ${module} = nil`),
      '    return run()',
      '  end,',
      `  flags = { ${flags.map((flag) => `'${flag}'`).join(', ')} },`,
      '})',
    ].join('\n');
  // the name is the SHA1 of the text with a placeholder: a change of the script is a new library
  const name = `rescue_${createHash('sha1').update(text('rescue_')).digest('hex')}`;
  return { name, source: text(name) };
}

function readLua(file: string): string {
  return embeddedText(`engine/lua/${file}`);
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
/** Names whose value depends on the variant, as Lua literals. */
const variantConstants = new Map<string, (variant: ScriptVariant) => string>([
  ['SIGNAL_PUBLISH', ({ sharded }) => luaString(sharded ? 'SPUBLISH' : 'PUBLISH')],
  ['SIGNAL_NUMSUB', ({ sharded }) => luaString(sharded ? 'SHARDNUMSUB' : 'NUMSUB')],
  ['STEP_MICROS', ({ stepMicros }) => String(stepMicros)],
]);
const constantPattern = new RegExp(
  `\\b(${[...constants.keys(), ...variantConstants.keys()].join('|')})\\b`,
  'g',
);

function inlineConstants(source: string, variant: ScriptVariant): string {
  return source.replace(constantPattern, (name) => {
    const ofVariant = variantConstants.get(name);
    return ofVariant === undefined ? luaString(constants.get(name) ?? name) : ofVariant(variant);
  });
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

/**
 * inlineArguments writes each `ARG.<list>.<name>` as the argument's position
 * in its list of arguments.ts (from 1), and each `#ARG.<list>` as how many
 * arguments the list has: a script reads `ARGV[ARG.cancel.id]`, or
 * `ARGV[first + ARG.search.worker]` where the list starts after `first`
 * others. A list or a name arguments.ts does not declare is an error.
 */
function inlineArguments(script: string, source: string): string {
  const listOf = (list: string, form: string): readonly string[] => {
    if (!Object.hasOwn(scriptArguments, list))
      throw new Error(`${script}.lua: ${form} names no list of lib/engine/lua/arguments.ts`);
    return argumentNames(list as ArgumentList);
  };
  const inlined = source
    .replace(/#ARG\.([a-z_]+)\b(?!\.)/g, (form, list: string) => String(listOf(list, form).length))
    .replace(/\bARG\.([a-z_]+)\.([a-z_0-9]+)\b/g, (form, list: string, name: string) => {
      const index = listOf(list, form).indexOf(name);
      if (index < 0)
        throw new Error(`${script}.lua: ${form} is not an argument of lib/engine/lua/arguments.ts`);
      return String(index + 1);
    });
  if (/\bARG\b/.test(inlined))
    throw new Error(`${script}.lua: arguments are named as ARG.<list>.<name> or #ARG.<list> only`);
  return inlined;
}

/**
 * A call passes one key, the queue's `tasks` (`<prefix>:tasks`: it routes the
 * call on a cluster), and the script names the others from it: Redis spent
 * about 1,100 instructions on each key a call passed (callgrind, Redis 7.0), so
 * the 51 keys of the queue cost more than many a script's work. Keys named in
 * a script are in the same hash slot as the one passed (the `{<queue>}` tag),
 * which Redis allows on a cluster; ACL rules are checked on each command as
 * before. `KEYS[<position>]` is the key at that position of `keyNames`.
 */
const passedKeySuffix = `:${keyNames[0]}`;
const keyNameList = `{ ${keyNames.map((name) => luaString(name)).join(', ')} }`;

/** keysFrom: the Lua expression of the queue's keys from `first`, the one key passed. */
const keysFrom = (first: string) =>
  `local prefix = string.sub(${first}, 1, -${passedKeySuffix.length}) ` +
  `local named = {} for index, name in ipairs(${keyNameList}) do named[index] = prefix .. name end`;

/**
 * libraryKeyTables: a library's table of the queue's keys, made on a queue's first
 * call and kept (the library outlives the call), for up to 64 queues at a time.
 */
const libraryKeyTables = [
  '-- queue_keys: the keys of the queue whose `tasks` key a call passed (loader.ts)',
  'local key_tables, key_table_count = {}, 0',
  'local function queue_keys(first)',
  '  local known = key_tables[first]',
  '  if known ~= nil then return known end',
  '  if key_table_count >= 64 then key_tables, key_table_count = {}, 0 end',
  `  ${keysFrom('first')}`,
  '  key_tables[first], key_table_count = named, key_table_count + 1',
  '  return named',
  'end',
].join('\n');

/** evalKeyTable: the same for EVAL, where nothing outlives the call. */
const evalKeyTable = [
  '-- KEYS: the keys of the queue whose `tasks` key the call passed (loader.ts)',
  // (a test's script that touches no key is passed none)
  `local KEYS = KEYS[1] == nil and KEYS or (function(first) ${keysFrom('first')} return named end)(KEYS[1])`,
].join('\n');

/** passedKey is the one key a script call passes, the first of `keyNames` (see libraryKeyTables). */
export function passedKey(keys: QueueKeys): string {
  const first = keys.all[0];
  if (first === undefined) throw new Error('passedKey: the queue has no keys');
  return first;
}

/** The prelude: is_map_name, for the seven map names of lib/task/task.ts. */
const prelude = [
  '-- prelude: generated from lib/task/task.ts; constants and keys are inlined',
  '-- one of the seven map names (comparisons: a table of them would be built on every call)',
  `local function is_map_name(name) return ${mapNames.map((name) => `name == ${luaString(name)}`).join(' or ')} end`,
  '-- end of prelude',
].join('\n');
