import { readdirSync, readFileSync } from 'node:fs';
import {
  argumentNames,
  scriptArguments,
  unreadArguments,
  type ArgumentList,
} from '../../lib/engine/lua/arguments.js';
import { assembleScript } from '../../lib/engine/lua/loader.js';
import { scripts, scriptsFor, shardedScripts } from '../../lib/engine/lua/scripts.js';
import { keyNames, type KeyName } from '../../lib/engine/keys.js';
import { mapNames } from '../../lib/task/task.js';

const luaDir = new URL('../../lib/engine/lua/', import.meta.url);
const files = readdirSync(luaDir).filter((name) => name.endsWith('.lua'));

describe('engine scripts', () => {
  it('registers every .lua file of lib/engine/lua', () => {
    const registered = Object.values(scripts).map((script) => `${script.name}.lua`);
    expect(registered.sort()).toEqual(files.sort());
  });

  it.each(files)('%s has a header stating its KEYS, ARGV, reply and errors', (file) => {
    const text = readFileSync(new URL(file, luaDir), 'utf8');
    const header = /--\[\[([\s\S]*?)\]\]/.exec(text)?.[1] ?? '';
    expect(header).toMatch(/^\s*KEYS\s/m);
    expect(header).toMatch(/^\s*ARGV\s.*lib\/engine\/lua\/arguments\.ts/m);
    expect(header).not.toMatch(/ARGV\[\d/);
    expect(header).toMatch(/^\s*Returns\s/m);
    expect(header).toMatch(/^\s*Errors\s/m);
  });

  it('inlines each include once, after the prelude, marking where it came from', () => {
    const script = scripts.delete;
    expect(script.source.split('\n')[1]?.startsWith('-- prelude')).toBe(true);
    expect(script.source.match(/-- file: include\/task\.lua/g)).toHaveLength(1);
    expect(script.sha).toMatch(/^[0-9a-f]{40}$/);
  });

  it("writes each K['<name>'] as KEYS[<position in keyNames>]", () => {
    const script = assembleScript('keys', "return { K['tasks'], K['ready'], K['signal'] }");
    const position = (name: KeyName) => keyNames.indexOf(name) + 1;
    expect(script.source).toContain(
      `return { KEYS[${position('tasks')}], KEYS[${position('ready')}], KEYS[${position('signal')}] }`,
    );
    for (const loaded of Object.values(scripts)) expect(loaded.source).not.toMatch(/\bK\[/);
  });

  it('names a key that keys.ts does not know, and a key looked up by a variable', () => {
    expect(() => assembleScript('typo', "return K['task']")).toThrow(
      "typo.lua: K['task'] is not a key of lib/engine/keys.ts",
    );
    expect(() => assembleScript('dynamic', 'return K[name]')).toThrow(
      "dynamic.lua: keys are named as K['<name>'] only",
    );
  });

  it('writes ARG.<list>.<name> as the position in the list, #ARG.<list> as its length', () => {
    const script = assembleScript(
      'arguments',
      'return { ARGV[ARG.cancel.now_ms], ARGV[ARG.cancel.request], ARGV[#ARG.cancel + 1] }',
    );
    const names = argumentNames('cancel');
    expect(script.source).toContain(
      `return { ARGV[1], ARGV[${names.indexOf('request') + 1}], ARGV[${names.length} + 1] }`,
    );
    for (const loaded of Object.values(scripts)) expect(loaded.source).not.toMatch(/\bARG\b/);
  });

  it('names an argument or a list that arguments.ts does not declare', () => {
    expect(() => assembleScript('typo', 'return ARGV[ARG.cancel.nope]')).toThrow(
      'typo.lua: ARG.cancel.nope is not an argument of lib/engine/lua/arguments.ts',
    );
    expect(() => assembleScript('typo', 'return ARGV[ARG.nope.id]')).toThrow(
      'typo.lua: ARG.nope.id names no list of lib/engine/lua/arguments.ts',
    );
    expect(() => assembleScript('typo', 'return #ARG.nope')).toThrow(
      'typo.lua: #ARG.nope names no list of lib/engine/lua/arguments.ts',
    );
    expect(() => assembleScript('dynamic', 'return ARG[list]')).toThrow(
      'dynamic.lua: arguments are named as ARG.<list>.<name> or #ARG.<list> only',
    );
  });

  it('reads every declared argument in some script, by name, and no argument by number', () => {
    const sources = [
      ...files.map((file) => readFileSync(new URL(file, luaDir), 'utf8')),
      ...readdirSync(new URL('include/', luaDir)).map((file) =>
        readFileSync(new URL(`include/${file}`, luaDir), 'utf8'),
      ),
    ].map((text) => text.replace(/--\[\[[\s\S]*?\]\]/g, '').replace(/--[^\n]*/g, ''));
    const used = new Set(
      sources.flatMap((text) =>
        [...text.matchAll(/\bARG\.([a-z_]+\.[a-z_0-9]+)/g)].map((match) => match[1]),
      ),
    );
    const declared = Object.keys(scriptArguments).flatMap((list) =>
      argumentNames(list as ArgumentList).map((name) => `${list}.${name}`),
    );
    expect(declared.filter((name) => !used.has(name) && !unreadArguments.has(name))).toEqual([]);
    expect(
      [...unreadArguments].filter((name) => used.has(name) || !declared.includes(name)),
    ).toEqual([]);
    for (const text of sources) expect(text).not.toMatch(/ARGV\[\d/);
  });

  it('writes the constants as literals where they are used', () => {
    const script = assembleScript(
      'constants',
      'return { LABEL_WORKER, E_TASK_OUTDATED, METHOD_UNI }',
    );
    expect(script.source).toContain('return { "task.rescue.io/worker", "TASK_OUTDATED", "uni" }');
    expect(scripts.delete.source).not.toMatch(/\b(LABEL|METHOD|GATE|E)_[A-Z_]+\b/);
  });

  it('knows the seven map names in the prelude and in the Lua matcher', () => {
    for (const name of mapNames) {
      expect(scripts.search.source).toContain(`name == "${name}"`);
      expect(readFileSync(new URL('include/has.lua', luaDir), 'utf8')).toContain(
        `satisfied(task.${name}, query.${name})`,
      );
    }
  });

  it('keeps a #!lua shebang on the first line', () => {
    expect(scripts.scan.source.startsWith('#!lua flags=no-writes\n-- prelude')).toBe(true);
  });

  // With a shebang Redis runs a script in its strict mode: on a cluster it
  // refuses a key in another slot, or on another node, than the declared ones
  // (without one, Redis 7 lets a script reach undeclared keys of other slots
  // on the same node).
  it.each(files)('%s starts with a #!lua shebang', (file) => {
    const first = readFileSync(new URL(file, luaDir), 'utf8').split('\n')[0] ?? '';
    expect(first).toMatch(/^#!lua( flags=(no-writes|allow-oom))?$/);
  });

  it('publishes the signal with PUBLISH on a single server and SPUBLISH on a cluster', () => {
    expect(scripts.create.source).toMatch(/redis\.call\("PUBLISH", KEYS\[\d+\]/);
    expect(shardedScripts.create.source).toMatch(/redis\.call\("SPUBLISH", KEYS\[\d+\]/);
    // and counts a watch channel's listeners the same way: NUMSUB, SHARDNUMSUB
    expect(scripts.create.source).toMatch(/redis\.pcall\('PUBSUB', "NUMSUB", /);
    // the signal and a task's watch channel: every PUBLISH of a script is sharded
    expect(
      shardedScripts.create.source
        .replaceAll('"SPUBLISH"', '"PUBLISH"')
        .replaceAll('"SHARDNUMSUB"', '"NUMSUB"'),
    ).toBe(scripts.create.source);
    expect(scriptsFor(true)).toBe(shardedScripts);
    expect(scriptsFor(false)).toBe(scripts);
    expect(shardedScripts.scan.sha).toBe(scripts.scan.sha); // no signal: the same script
  });

  it('names a missing include and the line that asks for it', () => {
    expect(() => assembleScript('broken', 'local a = 1\n--- @include "nowhere"')).toThrow(
      'broken.lua line 2: include "nowhere" not found (lib/engine/lua/include/nowhere.lua)',
    );
  });

  it('skips a repeated include', () => {
    const script = assembleScript('twice', '--- @include "has"\n--- @include "has"');
    expect(script.source.match(/-- file: include\/has\.lua/g)).toHaveLength(1);
  });
  describe('includes that include others', () => {
    const files: Record<string, string> = {
      'include/base.lua': 'local function base() return 1 end',
      'include/left.lua': '--- @include "base"\nlocal function left() return base() end',
      'include/right.lua': '--- @include "base"\nlocal function right() return base() end',
      'include/both.lua': '--- @include "left"\n--- @include "right"\nlocal function both() end',
      'include/loop-a.lua': '--- @include "loop-b"',
      'include/loop-b.lua': '--- @include "loop-a"',
      'include/lost.lua': 'local x = 1\n--- @include "nowhere"',
    };
    const read = (file: string) => {
      const text = files[file];
      if (text === undefined) throw new Error(`no ${file}`);
      return text;
    };
    /** The functions the script defines, in the order it defines them (`run`: the body, last). */
    const order = (source: string) =>
      [...source.matchAll(/^local function ([a-z]+)\(/gm)].map((match) => match[1]);

    it('puts what an include names before it, each file once', () => {
      const script = assembleScript(
        'nested',
        '--- @include "both"\nreturn both()',
        undefined,
        read,
      );
      expect(order(script.source)).toEqual(['base', 'left', 'right', 'both', 'run']);
    });

    it('skips an include the script named before', () => {
      const script = assembleScript(
        'nested',
        '--- @include "right"\n--- @include "both"',
        undefined,
        read,
      );
      expect(order(script.source)).toEqual(['base', 'right', 'left', 'both', 'run']);
    });

    it('refuses a cycle and names it', () => {
      expect(() => assembleScript('cycle', '--- @include "loop-a"', undefined, read)).toThrow(
        'include/loop-a.lua: includes form a cycle (loop-a → loop-b → loop-a)',
      );
    });

    it('names the include and line that ask for a missing file', () => {
      expect(() => assembleScript('lost', '--- @include "lost"', undefined, read)).toThrow(
        'include/lost.lua line 2: include "nowhere" not found (lib/engine/lua/include/nowhere.lua)',
      );
    });
  });
});
