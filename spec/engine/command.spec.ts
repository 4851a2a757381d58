import { Command } from 'ioredis';
import { queueKeys } from '../../lib/engine/keys.js';
import { ScriptCommand, ScriptHead, type ScriptCall } from '../../lib/engine/lua/command.js';

describe.each([
  ['evalsha', '3f2a9c1e'.repeat(5)],
  ['fcall', `rescue_${'3f2a9c1e'.repeat(5)}`],
] as [ScriptCall, string][])('ScriptCommand (%s)', (command, name) => {
  const keys = queueKeys('orders-é').all; // a multi-byte character: lengths are in bytes
  const head = new ScriptHead(command, name, keys);

  it.each([
    ['no arguments', []],
    ['a few', ['1697760001000', 'eon', '']],
    ['multi-byte and long ones', ['{"meta":{"k":"ü"}}', 'x'.repeat(5_000), '0']],
  ])(`writes the same bytes as an ordinary ${command} (%s)`, (_name, args: string[]) => {
    const ordinary = new Command(command, [name, String(keys.length), ...keys, ...args]);
    const ours = new ScriptCommand(head, args);
    expect(ours.toWritable()).toBe(ordinary.toWritable({}));
  });

  it(`keeps the arguments of an ordinary ${command}, so Cluster routes it by its first key`, () => {
    const ours = new ScriptCommand(head, ['1', '2']);
    expect(ours.name).toBe(command);
    expect(ours.args).toEqual([name, String(keys.length), ...keys, '1', '2']);
    expect(ours.getKeys()).toEqual(keys);
    expect(ours.getSlot()).toBe(new Command('get', [keys[0] ?? '']).getSlot());
  });
});
