import {
  copyTask,
  decodeStored,
  decodeTask,
  encodeStored,
  encodeTask,
  MalformedTaskError,
  tryDecodeStored,
  tryDecodeTask,
} from '../../lib/task/codec.js';
import { Label } from '../../lib/task/label.js';

describe('encodeTask / decodeTask', () => {
  it('round-trips absent, empty and full maps', () => {
    const task = {
      core: { [Label.Object]: '1697760001000-000000000001' },
      gate: {},
      meta: { k: 'v' },
      sync: { [Label.Paging]: '0' },
    };
    const decoded = decodeTask(encodeTask(task));
    expect(decoded).toEqual(task);
    expect(Object.keys(decoded)).toEqual(['core', 'gate', 'meta', 'sync']);
    expect(decoded.gate).toEqual({});
  });

  it('writes the maps in a fixed order and leaves out absent and null maps', () => {
    const task = {
      sync: { a: '1' },
      meta: { k: 'v' },
      root: undefined,
      node: null,
    } as unknown as Parameters<typeof encodeTask>[0];
    expect(encodeTask(task)).toBe('{"meta":{"k":"v"},"sync":{"a":"1"}}');
  });

  it('ignores unknown properties and reads null maps as absent', () => {
    expect(decodeTask('{"meta":{"k":"v"},"extra":1,"root":null}')).toEqual({ meta: { k: 'v' } });
  });

  it('keeps a label named __proto__ as a label', () => {
    const decoded = decodeTask('{"meta":{"__proto__":"x"}}');
    expect(Object.keys(decoded.meta ?? {})).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(decoded.meta)).toBe(Object.prototype);
  });

  it.each([
    ['not JSON', 'garbage'],
    ['a JSON string', '"task"'],
    ['a JSON array', '[]'],
    ['null', 'null'],
    ['a map that is a string', '{"meta":"k=v"}'],
    ['a map that is an array', '{"meta":["k"]}'],
    ['a number label', '{"meta":{"k":1}}'],
    ['a null label', '{"meta":{"k":null}}'],
    ['a nested object label', '{"meta":{"k":{}}}'],
  ])('rejects %s with MalformedTaskError', (_name, json) => {
    expect(() => decodeTask(json)).toThrow(MalformedTaskError);
    expect(tryDecodeTask(json)).toBeUndefined();
  });

  it('keeps absent maps absent: no property, not even an undefined one', () => {
    const decoded = decodeTask('{"meta":{"k":"v"},"sync":{}}');
    expect(decoded).toStrictEqual({ meta: { k: 'v' }, sync: {} });
    expect(Object.keys(decoded)).toEqual(['meta', 'sync']);
  });

  it('rejects the stored form\'s "node": false, which only decodeStored reads', () => {
    expect(() => decodeTask('{"meta":{"k":"v"},"node":false}')).toThrow(MalformedTaskError);
  });

  it('answers undefined for a missing record', () => {
    expect(tryDecodeTask(null)).toBeUndefined();
    expect(tryDecodeTask(undefined)).toBeUndefined();
  });
});

describe('copyTask', () => {
  it('copies exactly the present maps, sharing nothing', () => {
    const task = { meta: { k: 'v' }, sync: {} };
    const copy = copyTask(task);
    expect(copy).toEqual(task);
    expect(copy.meta).not.toBe(task.meta);
    copy.meta!['k'] = 'changed';
    expect(task.meta.k).toBe('v');
  });
});

describe('encodeStored / decodeStored (the tasks hash form)', () => {
  const id = '1697760001000-000000000042';

  it('leaves out the object id and the default node', () => {
    const task = {
      core: { [Label.Object]: id },
      meta: { n: '1' },
      node: { [Label.Method]: 'any' },
    };
    expect(encodeStored(task)).toBe('{"meta":{"n":"1"}}');
    expect(decodeStored(id, encodeStored(task))).toEqual(task);
  });

  it('keeps other core labels and any other node', () => {
    const task = {
      core: { [Label.Object]: id, [Label.Cancel]: '3', [Label.Worker]: 'eon' },
      meta: { n: '1' },
      node: { [Label.Method]: 'uni', [Label.Worker]: 'eon' },
    };
    expect(decodeStored(id, encodeStored(task))).toEqual(task);
  });

  it('writes a task without a node as "node": false and reads it back without one', () => {
    const task = { core: { [Label.Object]: id }, meta: { n: '1' } };
    expect(encodeStored(task)).toBe('{"meta":{"n":"1"},"node":false}');
    const decoded = decodeStored(id, encodeStored(task));
    expect(decoded).toEqual(task);
    expect('node' in decoded).toBe(false);
  });

  it('keeps absent maps absent and empty maps empty, with no undefined properties', () => {
    const decoded = decodeStored(id, '{"cron":{},"meta":{"n":"1"},"node":false}');
    expect(decoded).toStrictEqual({ core: { [Label.Object]: id }, cron: {}, meta: { n: '1' } });
    expect(Object.keys(decoded)).toEqual(['core', 'cron', 'meta']);
  });

  it('keeps empty maps empty', () => {
    const task = {
      core: { [Label.Object]: id },
      gate: {},
      meta: { n: '1' },
      node: { [Label.Method]: 'any' },
      sync: {},
    };
    expect(decodeStored(id, encodeStored(task))).toEqual(task);
  });

  it('reads a record in the full form too, when its core names its own id', () => {
    expect(decodeStored(id, `{"core":{"${Label.Object}":"${id}"},"meta":{"n":"1"}}`)).toEqual({
      core: { [Label.Object]: id },
      meta: { n: '1' },
      node: { [Label.Method]: 'any' },
    });
  });

  it.each([
    [
      'a core naming another id',
      id,
      `{"core":{"${Label.Object}":"1697760001000-000000000043"},"meta":{"n":"1"}}`,
    ],
    ['a field that is not an object id', 'not-an-id', '{"meta":{"n":"1"}}'],
    ['not JSON', id, '{'],
    ['a map that is not an object', id, '{"meta":"n"}'],
    ['a node that is true', id, '{"meta":{"n":"1"},"node":true}'],
    ['a core label that is a number', id, '{"core":{"x":1},"meta":{"n":"1"}}'],
    ['a JSON array', id, '[]'],
  ])('rejects %s', (_name, field, json) => {
    expect(() => decodeStored(field, json)).toThrow(MalformedTaskError);
    expect(tryDecodeStored(field, json)).toBeUndefined();
  });
});
