import { readdirSync, readFileSync } from 'node:fs';
import { assembleScript } from '../../lib/engine/lua/loader.js';

// Every helper of the Lua scripts is a `local`, and a local is seen only by
// code after it: a name used before its definition is a global, nil when the
// call runs, not an error when the script compiles. So each file (a script
// or an include) names with `--- @include` every include whose functions or
// constants it uses, and only those; the loader puts them before it
// (lib/engine/lua/loader.ts). This test reads the files the way a reviewer
// would: which top-level names of include files each file mentions.

const luaDir = new URL('../../lib/engine/lua/', import.meta.url);

/** The text of a Lua file without comments and with its strings emptied. */
function code(text: string): string {
  return text
    .replace(/--\[\[[\s\S]*?\]\]/g, '')
    .replace(/--[^\n]*/g, '')
    .replace(/'(?:\\.|[^'\\\n])*'/g, "''")
    .replace(/"(?:\\.|[^"\\\n])*"/g, '""');
}

/** The names a file defines at its top level (`local function x`, `local X = …`). */
function definitions(text: string): string[] {
  return [...code(text).matchAll(/^local (?:function )?([A-Za-z_][\w, ]*?)\s*(?:=|\(|$)/gm)]
    .flatMap((match) => (match[1] ?? '').split(','))
    .map((name) => name.trim());
}

/**
 * The names a file uses: identifiers that are not a field (`.x`, `:x`) or a
 * table key (`x = `), less those the file declares itself (`local x`, `for
 * x`; a parameter hides a name where it is not called).
 */
function uses(text: string): Set<string> {
  const body = code(text);
  const declared = new Set(
    [...body.matchAll(/\b(?:local(?:\s+function)?|for)\s+([\w,\s]+?)\s*(?:=|\(|\bin\b|$)/gm)]
      .flatMap((match) => (match[1] ?? '').split(','))
      .map((name) => name.trim()),
  );
  const parameters = new Set(
    [...body.matchAll(/function\s*[\w.:]*\s*\(([^)]*)\)/g)]
      .flatMap((match) => (match[1] ?? '').split(','))
      .map((name) => name.trim()),
  );
  const used = new Set<string>();
  for (const match of body.matchAll(/(?<![.:]\s*)\b([A-Za-z_]\w*)\b(?!\s*=[^=])(\s*\()?/g)) {
    const name = match[1] ?? '';
    const called = match[2] !== undefined;
    if (declared.has(name) || (parameters.has(name) && !called)) continue;
    used.add(name);
  }
  return used;
}

/** The includes a file names, at any indentation. */
function declaredIncludes(text: string): string[] {
  return [...text.matchAll(/^\s*--- @include "([a-z-]+)"\s*$/gm)].map((match) => match[1] ?? '');
}

/**
 * includeProblems: for files by path (`x.lua`, `include/y.lua`), each use of
 * an include's top-level name by a file that does not name that include, and
 * each include named but not used.
 */
function includeProblems(files: Record<string, string>): string[] {
  const owner = new Map<string, string>();
  for (const [path, text] of Object.entries(files)) {
    const include = /^include\/([a-z-]+)\.lua$/.exec(path)?.[1];
    if (include === undefined) continue;
    for (const name of definitions(text)) owner.set(name, include);
  }
  const problems: string[] = [];
  for (const [path, text] of Object.entries(files)) {
    const self = /^include\/([a-z-]+)\.lua$/.exec(path)?.[1];
    const declared = declaredIncludes(text);
    const needed = new Map<string, string>(); // include -> a name used
    for (const name of uses(text)) {
      const include = owner.get(name);
      if (include !== undefined && include !== self && !needed.has(include))
        needed.set(include, name);
    }
    for (const [include, name] of needed) {
      if (!declared.includes(include)) {
        problems.push(
          `${path} uses ${name} (include/${include}.lua) without --- @include "${include}"`,
        );
      }
    }
    for (const include of declared) {
      if (!needed.has(include))
        problems.push(`${path} names include "${include}" and uses none of it`);
    }
  }
  return problems;
}

function luaFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const folder of ['', 'include/']) {
    for (const name of readdirSync(new URL(folder, luaDir))) {
      if (name.endsWith('.lua')) {
        files[`${folder}${name}`] = readFileSync(new URL(`${folder}${name}`, luaDir), 'utf8');
      }
    }
  }
  return files;
}

describe('Lua includes', () => {
  const files = luaFiles();
  const includes = Object.keys(files)
    .filter((path) => path.startsWith('include/'))
    .map((path) => path.slice('include/'.length, -'.lua'.length));

  it('each file names the includes it uses, and only those', () => {
    expect(includeProblems(files)).toEqual([]);
  });

  it.each(includes)('include/%s.lua assembles alone, its includes before it', (include) => {
    const script = assembleScript('alone', `--- @include "${include}"`);
    const marks = [...script.source.matchAll(/^-- file: include\/([a-z-]+)\.lua$/gm)].map(
      (match) => match[1],
    );
    expect(marks.at(-1)).toBe(include);
  });

  it('defines no top-level name in two include files', () => {
    const seen = new Map<string, string>();
    const twice: string[] = [];
    for (const include of includes) {
      for (const name of definitions(files[`include/${include}.lua`] ?? '')) {
        const other = seen.get(name);
        if (other !== undefined)
          twice.push(`${name}: include/${other}.lua, include/${include}.lua`);
        seen.set(name, include);
      }
    }
    expect(twice).toEqual([]);
  });

  it('finds an include that leaves out one it needs, or names one it does not use', () => {
    expect(
      includeProblems({
        'include/base.lua': 'local LIMIT = 3\nlocal function base() return LIMIT end',
        'include/upper.lua': '--- @include "base"\nlocal function upper() return base() end',
        'include/forgets.lua': 'local function forgets() return base() + LIMIT end',
        'include/extra.lua': '--- @include "base"\nlocal function extra() return 1 end',
        'include/hides.lua':
          '--- @include "base"\nlocal function hides(upper) return upper, base() end',
        'script.lua': '--- @include "upper"\nreturn upper() + base()',
      }),
    ).toEqual([
      'include/forgets.lua uses base (include/base.lua) without --- @include "base"',
      'include/extra.lua names include "base" and uses none of it',
      'script.lua uses base (include/base.lua) without --- @include "base"',
    ]);
  });
});
