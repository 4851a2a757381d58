// Throughput: how many events of each kind the queue's event stream
// (engine.events()) told of, in buckets of 10 s by when they happened, for
// the overview's rates over the last minutes. Counted in the dashboard
// process from the events it read; nothing is stored in Redis.

/** The width of a bucket, ms. */
export const bucketMs = 10_000;

/** ThroughputPoint is one bucket's counts, for a chart. */
export interface ThroughputPoint {
  readonly at: number;
  readonly values: Readonly<Record<string, number>>;
}

export class Throughput {
  private readonly buckets = new Map<number, Map<string, number>>();
  /** the engine instant counting began (the first read of the event stream) */
  private started: number | undefined;

  /** begin notes when counting began (kept from the first call). */
  begin(atMs: number): void {
    this.started ??= atMs;
  }

  /** since is when counting began, undefined before. */
  get since(): number | undefined {
    return this.started;
  }

  /** add counts one event of a kind at an instant. */
  add(kind: string, atMs: number): void {
    const start = Math.floor(atMs / bucketMs) * bucketMs;
    let bucket = this.buckets.get(start);
    if (bucket === undefined) {
      bucket = new Map();
      this.buckets.set(start, bucket);
    }
    bucket.set(kind, (bucket.get(kind) ?? 0) + 1);
  }

  /** prune drops the buckets that ended before `fromMs`. */
  prune(fromMs: number): void {
    for (const start of this.buckets.keys())
      if (start + bucketMs <= fromMs) this.buckets.delete(start);
  }

  /** total counts a kind's events in the buckets that start at or after `fromMs`. */
  total(kind: string, fromMs: number): number {
    let sum = 0;
    for (const [start, bucket] of this.buckets) if (start >= fromMs) sum += bucket.get(kind) ?? 0;
    return sum;
  }

  /** series is one point per bucket from `fromMs` to `toMs`, empty buckets as zeros. */
  series(kinds: readonly string[], fromMs: number, toMs: number): ThroughputPoint[] {
    const points: ThroughputPoint[] = [];
    for (let start = Math.floor(fromMs / bucketMs) * bucketMs; start <= toMs; start += bucketMs) {
      const bucket = this.buckets.get(start);
      points.push({
        at: start,
        values: Object.fromEntries(kinds.map((kind) => [kind, bucket?.get(kind) ?? 0])),
      });
    }
    return points;
  }
}
