import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import {
  aclCommands,
  aclProbes,
  aclRules,
  allowedCommands,
  doctorAdminCommands,
} from '../../lib/engine/acl.js';
import { queueKeys } from '../../lib/engine/keys.js';
import { scripts, shardedScripts } from '../../lib/engine/lua/scripts.js';

const luaDir = new URL('../../lib/engine/lua/', import.meta.url);
const libDir = new URL('../../lib/', import.meta.url);

/** luaFiles lists the .lua files of lib/engine/lua and its include/ folder. */
function luaFiles(): string[] {
  return readdirSync(luaDir, { recursive: true, encoding: 'utf8' }).filter((file) =>
    file.endsWith('.lua'),
  );
}

/** Commands whose first argument is a subcommand, which the ACL names: `pubsub|numsub`. */
const containers = new Set(['pubsub']);

/**
 * calledCommands lists the command names of every redis.call / redis.pcall in
 * a text; a container command's only where its subcommand is a literal (in
 * the assembled scripts, not always in the sources).
 */
function calledCommands(text: string): string[] {
  return [
    ...text.matchAll(/redis\.p?call\(\s*(['"])([A-Za-z]+)\1(?:\s*,\s*(['"])([A-Za-z]+)\3)?/g),
  ].flatMap((match) => {
    const command = (match[2] ?? '').toLowerCase();
    if (!containers.has(command)) return [command];
    return match[4] === undefined ? [] : [`${command}|${match[4].toLowerCase()}`];
  });
}

const sorted = (values: Iterable<string>) => [...new Set(values)].sort();

describe('the ACL rule set (lib/engine/acl.ts)', () => {
  it("lists exactly the commands of the engine's Lua sources", () => {
    const called = new Set<string>();
    for (const file of luaFiles()) {
      const text = readFileSync(new URL(file, luaDir), 'utf8');
      for (const command of calledCommands(text)) called.add(command);
      // a command name that is not a literal would escape this check
      const calls = [...text.matchAll(/redis\.p?call\(\s*([^,)]+)/g)].map((match) => match[1]);
      for (const first of calls) expect(first).toMatch(/^('[A-Z]+'|SIGNAL_PUBLISH)$/);
    }
    // SIGNAL_PUBLISH is PUBLISH on a single server, SPUBLISH on a cluster;
    // SIGNAL_NUMSUB the PUBSUB subcommand NUMSUB or SHARDNUMSUB
    for (const loaded of [...Object.values(scripts), ...Object.values(shardedScripts)]) {
      for (const command of calledCommands(loaded.source)) called.add(command);
    }
    expect(sorted(aclCommands.scripts)).toEqual(sorted(called));
  });

  it("lists exactly the commands of Redlock's scripts (the chore locks)", () => {
    const require = createRequire(import.meta.url);
    const source = readFileSync(require.resolve('redlock'), 'utf8');
    expect(sorted(aclCommands.locks)).toEqual(sorted(calledCommands(source)));
  });

  it('lists every command lib/ sends through a client outside the scripts', () => {
    // methods of an ioredis client that are not Redis commands, or are one under another name
    const notCommands = new Set([
      'on',
      'off',
      'duplicate',
      'disconnect',
      'sendCommand',
      'call',
      'connect',
      'nodes', // a cluster's node clients
    ]);
    // methods that send a command of another name
    const commandOf: Record<string, string> = { refreshSlotsCache: 'cluster|slots' };
    const sent = new Set<string>();
    for (const file of readdirSync(libDir, { recursive: true, encoding: 'utf8' })) {
      // lib/testing sets up servers for tests (REPLICAOF, CONFIG): never the engine's user
      if (!file.endsWith('.ts') || file.startsWith('testing/')) continue;
      const text = readFileSync(new URL(file, libDir), 'utf8');
      for (const match of text.matchAll(/\b(?:client|subscriber)\.(\w+)\(/g)) {
        const method = match[1] ?? '';
        if (!notCommands.has(method)) sent.add(commandOf[method] ?? method.toLowerCase());
      }
      for (const match of text.matchAll(/\.call\('([A-Z]+)'(?:, '([A-Z]+)')?/g)) {
        const [, command = '', sub] = match;
        sent.add(sub === undefined ? command.toLowerCase() : `${command}|${sub}`.toLowerCase());
      }
    }
    expect(sent.size).toBeGreaterThan(5);
    const allowed = new Set<string>([...allowedCommands(), ...doctorAdminCommands]);
    expect([...sent].filter((command) => !allowed.has(command))).toEqual([]);
  });

  it('allows the keys and channels of every queue, or of one, and nothing else', () => {
    const rules = aclRules();
    expect(rules.slice(0, 3)).toEqual(['~rescue.io:*', '&rescue.io:*', '-@all']);
    expect(rules).toContain('+evalsha');
    expect(rules).toContain('+fcall');
    expect(rules).toContain('+function|load');
    expect(rules).toContain('+cluster|slots');
    expect(rules.filter((rule) => rule.startsWith('+'))).toHaveLength(allowedCommands().length);
    expect(aclRules('orders*[1]').slice(0, 2)).toEqual([
      '~rescue.io:{orders\\*\\[1\\]}:*',
      '&rescue.io:{orders\\*\\[1\\]}:*',
    ]);
  });

  it('has a probe for every command, on the queue’s own keys and channels', () => {
    const keys = queueKeys('q');
    const probes = aclProbes(keys, 'f'.repeat(40), `rescue_${'f'.repeat(40)}`);
    const probed = new Set(probes.map((probe) => probe.slice(0, 2).join('|').toLowerCase()));
    for (const command of allowedCommands()) {
      expect([...probed].some((p) => p === command || p.startsWith(`${command}|`))).toBe(true);
    }
    for (const probe of probes) {
      for (const argument of probe.filter((value) => value.startsWith('rescue.io:'))) {
        expect(argument.startsWith(`${keys.prefix}:`)).toBe(true);
      }
    }
  });
});
