import {
  copyTask,
  decodeTask,
  encodeTask,
  MalformedTaskError,
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
