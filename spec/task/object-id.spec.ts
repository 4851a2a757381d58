import {
  creationMs,
  creationTime,
  formatObjectId,
  isObjectId,
  objectIdLength,
} from '../../lib/task/object-id.js';

describe('object ids', () => {
  it('write the creation ms in 13 digits and the sequence in 12', () => {
    expect(formatObjectId(1697760001000, 42)).toBe('1697760001000-000000000042');
    expect(formatObjectId(0, 0)).toBe('0000000000000-000000000000');
    expect(formatObjectId(1697760001000, 42)).toHaveLength(objectIdLength);
  });

  it('read the creation instant back', () => {
    expect(creationTime('1697760001000-000000000042')?.toISOString()).toBe(
      '2023-10-20T00:00:01.000Z',
    );
    expect(creationTime('not-an-id')).toBeUndefined();
    expect(creationTime('1697760001000-42')).toBeUndefined();
  });

  it('sort in creation order, then allocation order within a millisecond', () => {
    const ids = [
      formatObjectId(1697760001000, 7),
      formatObjectId(999, 9),
      formatObjectId(1697760001000, 3),
      formatObjectId(1697760001001, 1),
    ];
    expect([...ids].sort()).toEqual([
      '0000000000999-000000000009',
      '1697760001000-000000000003',
      '1697760001000-000000000007',
      '1697760001001-000000000001',
    ]);
  });

  it('fit every instant from 1970 to the year 2286 and read it back', () => {
    expect(formatObjectId(9_999_999_999_999, 999_999_999_999)).toBe('9999999999999-999999999999');
    expect(creationTime('9999999999999-000000000000')?.toISOString()).toBe(
      '2286-11-20T17:46:39.999Z',
    );
    expect(creationTime('0000000000000-000000000000')?.getTime()).toBe(0);
  });

  it('reject instants and sequences that do not fit', () => {
    expect(() => formatObjectId(-1, 0)).toThrow(RangeError);
    expect(() => formatObjectId(10_000_000_000_000, 0)).toThrow(RangeError);
    expect(() => formatObjectId(1, 1_000_000_000_000)).toThrow(RangeError);
    expect(() => formatObjectId(1.5, 0)).toThrow(RangeError);
  });

  it('give their creation ms without a Date (creationMs), the same as creationTime', () => {
    expect(creationMs('1697760001000-000000000042')).toBe(1_697_760_001_000);
    expect(creationMs('9999999999999-000000000000')).toBe(9_999_999_999_999);
    expect(creationMs('0000000000000-000000000000')).toBe(0);
    expect(creationMs('1697760001000-42')).toBeUndefined();
    expect(creationMs('169776000100x-000000000042')).toBeUndefined();
    expect(creationMs('00000000001e3-000000000042')).toBeUndefined();
    expect(creationMs(' 697760001000-000000000042')).toBeUndefined();
    expect(creationMs('1697760001000+000000000042')).toBeUndefined();
  });

  it('are recognised by their form', () => {
    expect(isObjectId('1697760001000-000000000042')).toBe(true);
    expect(isObjectId('1697760001000-00000000004')).toBe(false);
  });
});
