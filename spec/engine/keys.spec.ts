import { keyNames, queueKeys } from '../../lib/engine/keys.js';

describe('queueKeys', () => {
  it('prefixes every key with rescue.io:{<queue>}, a Redis Cluster hash tag', () => {
    const keys = queueKeys('default');
    expect(keys.prefix).toBe('rescue.io:{default}');
    expect(keys.all).toHaveLength(keyNames.length);
    expect(keys.all.every((key) => key.startsWith('rescue.io:{default}:'))).toBe(true);
    expect(keys.tasks).toBe('rescue.io:{default}:tasks');
  });

  it('gives different queues disjoint keys', () => {
    const a = new Set(queueKeys('a').all);
    expect(queueKeys('b').all.some((key) => a.has(key))).toBe(false);
    // a queue name that looks like another queue's key does not collide either
    expect(queueKeys('a}:tasks').all.some((key) => a.has(key))).toBe(false);
  });

  it('lists each key once, in the order scripts receive them', () => {
    expect(new Set(keyNames).size).toBe(keyNames.length);
    expect(queueKeys('q').all).toEqual(keyNames.map((name) => `rescue.io:{q}:${name}`));
  });
});
