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
    [
      'short multi-byte ones and lone surrogates',
      ['é', 'ü€', '😀', 'a\ud800b', '\udc00', 'x😀\ud83d'],
    ],
    [
      'lengths of every number of digits',
      ['a'.repeat(9), 'b'.repeat(32), 'c'.repeat(33), 'd'.repeat(150), '😀'.repeat(40)],
    ],
  ])(`writes the same bytes as an ordinary ${command} (%s)`, (_name, args: string[]) => {
    const ordinary = new Command(command, [name, String(keys.length), ...keys, ...args]);
    const ours = new ScriptCommand(head, args);
    // the bytes on the wire: a string command is written as UTF-8
    expect(ours.toWritable()).toEqual(Buffer.from(ordinary.toWritable({})));
  });

  it(`keeps the arguments of an ordinary ${command}, so Cluster routes it by its first key`, () => {
    const ours = new ScriptCommand(head, ['1', '2']);
    expect(ours.name).toBe(command);
    expect(ours.args).toEqual([name, String(keys.length), ...keys, '1', '2']);
    expect(ours.getKeys()).toEqual(keys);
    expect(ours.getSlot()).toBe(new Command('get', [keys[0] ?? '']).getSlot());
  });
});
