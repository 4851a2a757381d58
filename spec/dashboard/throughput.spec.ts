import { bucketMs, Throughput } from '../../lib/dashboard/throughput.js';

describe('throughput counting', () => {
  it('counts events by kind in buckets, by when they happened', () => {
    const counted = new Throughput();
    expect(counted.since).toBeUndefined();
    counted.begin(100_000);
    counted.begin(200_000); // the first call decides
    expect(counted.since).toBe(100_000);
    for (const at of [100_000, 105_000, 109_999, 110_000, 170_000]) counted.add('completed', at);
    counted.add('created', 171_000);
    expect(counted.total('completed', 0)).toBe(5);
    expect(counted.total('completed', 110_000)).toBe(2);
    expect(counted.total('completed', 110_001)).toBe(1); // a bucket counts whole or not at all
    expect(counted.total('created', 0)).toBe(1);
    expect(counted.total('failed', 0)).toBe(0);
  });

  it('gives a series of every bucket, empty ones as zeros', () => {
    const counted = new Throughput();
    counted.add('completed', 20_000);
    counted.add('completed', 25_000);
    counted.add('created', 41_000);
    expect(counted.series(['completed', 'created'], 15_000, 45_000)).toEqual([
      { at: 10_000, values: { completed: 0, created: 0 } },
      { at: 20_000, values: { completed: 2, created: 0 } },
      { at: 30_000, values: { completed: 0, created: 0 } },
      { at: 40_000, values: { completed: 0, created: 1 } },
    ]);
    expect(bucketMs).toBe(10_000);
  });

  it('forgets buckets that ended before the history kept', () => {
    const counted = new Throughput();
    counted.add('completed', 5_000);
    counted.add('completed', 15_000);
    counted.prune(10_000);
    expect(counted.total('completed', 0)).toBe(1);
  });
});
