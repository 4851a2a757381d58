import { leaseMarginMs, resolveWorkerOptions } from '../../lib/worker/options.js';

/** thrown returns what the call throws (jest's toThrow(error) compares the message only). */
function thrown(call: () => unknown): unknown {
  try {
    call();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('Worker options: leaseMargin', () => {
  it.each([
    ['expiry 30 s: a second', 30_000, 1_000],
    ['expiry 2 s: a tenth', 2_000, 200],
    ['expiry 300 ms: a tenth', 300, 30],
    ['expiry 15 ms: a tenth, rounded down', 15, 1],
  ])('defaults to min(1 000, expiry / 10): %s', (_name, expiryMs, marginMs) => {
    expect(leaseMarginMs(resolveWorkerOptions(), expiryMs)).toBe(marginMs);
  });

  it('takes the option as given, 0 included', () => {
    expect(leaseMarginMs(resolveWorkerOptions({ leaseMargin: 0 }), 2_000)).toBe(0);
    expect(leaseMarginMs(resolveWorkerOptions({ leaseMargin: 999 }), 2_000)).toBe(999);
  });

  it.each([
    [-1, 'number -1'],
    [1.5, 'number 1.5'],
    [Number.NaN, 'number NaN'],
    ['100', 'the string "100"'],
  ])('rejects %p with a TypeError naming the option', (bad, described) => {
    expect(() => resolveWorkerOptions({ leaseMargin: bad as number })).toThrow(
      new TypeError(`Worker option "leaseMargin" must be a non-negative integer; got ${described}`),
    );
  });

  it('rejects a margin of half the expiry or more with a RangeError', () => {
    const error = thrown(() => leaseMarginMs(resolveWorkerOptions({ leaseMargin: 1_000 }), 2_000));
    expect(error).toBeInstanceOf(RangeError);
    expect((error as Error).message).toBe(
      `Worker option "leaseMargin" must be less than half the engine's expiry (2000 ms); got 1000`,
    );
    expect(leaseMarginMs(resolveWorkerOptions({ leaseMargin: 999 }), 2_000)).toBe(999);
  });
});

describe('Worker options: presence', () => {
  it('defaults to a heartbeat every 5 s and a presence of 15 s', () => {
    const options = resolveWorkerOptions();
    expect([options.heartbeatInterval, options.presenceTtl]).toEqual([5_000, 15_000]);
  });

  it('rejects a presence TTL not longer than the heartbeat interval with a RangeError', () => {
    const error = thrown(() => resolveWorkerOptions({ heartbeatInterval: 500, presenceTtl: 500 }));
    expect(error).toBeInstanceOf(RangeError);
    expect((error as Error).message).toBe(
      'Worker option "presenceTtl" must be more than "heartbeatInterval" (500 ms); got 500',
    );
    expect(resolveWorkerOptions({ heartbeatInterval: 500, presenceTtl: 501 }).presenceTtl).toBe(
      501,
    );
  });

  it('rejects a heartbeat interval that is not a positive integer with a TypeError', () => {
    expect(() => resolveWorkerOptions({ heartbeatInterval: 0 })).toThrow(
      new TypeError('Worker option "heartbeatInterval" must be a positive integer; got number 0'),
    );
  });
});
