import type { Counter, Metric, Registry } from 'prom-client';

// The hot path of the metrics: a task's lifecycle reports a few counts and
// durations, and prom-client's own calls (label validation and hashing per
// call, about 1 µs a histogram observation) would cost more than the 5 % of a
// no-op task's ~30 µs of client CPU the metrics may take. So counts go to plain
// numbers and durations to bucket arrays, each series looked up once; the
// registry reads them when it is scraped.

/** Labels of one series: Prometheus label names to values. */
export type SeriesLabels = Readonly<Record<string, string>>;

/** Tally keeps a counter's increments in plain numbers until the scrape adds them to the Counter. */
export class Tally {
  private readonly pending = new Map<string, { labels: SeriesLabels; value: number }>();

  constructor(private readonly counter: Counter) {}

  /** entry returns the series of a key (the labels, written once), to add to with `value +=`. */
  entry(key: string, labels: SeriesLabels): { value: number } {
    let entry = this.pending.get(key);
    if (entry === undefined) {
      entry = { labels, value: 0 };
      this.pending.set(key, entry);
      this.counter.inc(labels, 0); // the series shows from the start, at 0
    }
    return entry;
  }

  /** flush adds what was counted since the last scrape to the Counter (its collect()). */
  flush(): void {
    for (const entry of this.pending.values()) {
      if (entry.value === 0) continue;
      this.counter.inc(entry.labels, entry.value);
      entry.value = 0;
    }
  }
}

/** HistogramSeries counts the observations of one label set by bucket. */
export class HistogramSeries {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: SeriesLabels,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length);
  }

  observe(value: number): void {
    this.sum += value;
    this.count++;
    const { bounds } = this;
    for (let index = 0; index < bounds.length; index++) {
      if (value <= (bounds[index] as number)) {
        this.counts[index] = (this.counts[index] as number) + 1;
        return;
      }
    }
  }
}

/**
 * AggregatedHistogram is a histogram the registry serves like prom-client's
 * own (`get()` gives the same values: `_bucket` with cumulative counts per
 * `le`, `+Inf`, `_sum`, `_count`), fed by HistogramSeries. It takes part in
 * every registry operation that reads metrics through `get()`: the text
 * exposition, getMetricsAsJSON, merges and cluster aggregation.
 */
export class AggregatedHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly series = new Map<string, HistogramSeries>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
    private readonly bounds: readonly number[],
    registry: Registry,
  ) {
    registry.registerMetric(this as unknown as Metric);
  }

  /** seriesOf returns the series of a key, made with these labels on first use. */
  seriesOf(key: string, labels: SeriesLabels): HistogramSeries {
    let series = this.series.get(key);
    if (series === undefined) {
      series = new HistogramSeries(labels, this.bounds);
      this.series.set(key, series);
    }
    return series;
  }

  get(): Promise<{
    name: string;
    help: string;
    type: string;
    aggregator: string;
    values: { labels: Record<string, string | number>; value: number; metricName: string }[];
  }> {
    const values = [];
    for (const series of this.series.values()) {
      let cumulative = 0;
      for (const [index, bound] of this.bounds.entries()) {
        cumulative += series.counts[index] as number;
        values.push({
          labels: { ...series.labels, le: bound },
          value: cumulative,
          metricName: `${this.name}_bucket`,
        });
      }
      values.push(
        {
          labels: { ...series.labels, le: '+Inf' },
          value: series.count,
          metricName: `${this.name}_bucket`,
        },
        { labels: { ...series.labels }, value: series.sum, metricName: `${this.name}_sum` },
        { labels: { ...series.labels }, value: series.count, metricName: `${this.name}_count` },
      );
    }
    return Promise.resolve({
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values,
    });
  }

  /** reset forgets every series (Registry.resetMetrics). */
  reset(): void {
    for (const series of this.series.values()) {
      series.counts.fill(0);
      series.sum = 0;
      series.count = 0;
    }
  }
}
