import { requireBoolean } from '../options.js';
import { describe, quoteShort } from '../task/describe.js';
import { mapNames, type Labels, type MapName, type Task } from '../task/task.js';

/**
 * TaskLabel names one task label to report as a Prometheus label, and the
 * values it may take there. Any other value is reported as `other`, a task
 * without the label as `none`: a task's labels never reach Prometheus unless
 * listed here, so the number of series stays bounded.
 *
 *     { map: 'meta', key: 'x.api.io/action', values: ['resize', 'notify'] }
 */
export interface TaskLabel {
  /** The task's label map the key is read from. */
  readonly map: MapName;
  /** The label key. */
  readonly key: string;
  /** The values reported as they are (at most taskLabelValuesMost). */
  readonly values: readonly string[];
}

/** MetricsOptions are the options of `registerMetrics`. */
export interface MetricsOptions {
  /**
   * taskLabels adds a Prometheus label per entry (the entry's name) to the
   * metrics of single tasks: completed, failed, handler duration and wait
   * time. Default: none.
   */
  readonly taskLabels?: Readonly<Record<string, TaskLabel>>;
  /**
   * activity counts what the engine and its workers do (operations, tasks,
   * handlers, waits); false registers only the queue's gauges, read from
   * stats() at scrape time: for a process that watches a queue without working
   * on it (an exporter such as `rescue metrics`), whose counters would stay 0.
   * @defaultValue true
   */
  readonly activity?: boolean;
  /** Histogram buckets in seconds; the defaults are metricsDefaults.buckets. */
  readonly buckets?: {
    readonly operation?: readonly number[];
    readonly handler?: readonly number[];
    readonly wait?: readonly number[];
  };
}

/** The most values one task label may list. */
const taskLabelValuesMost = 64;

/** The values of a task label reported in place of unlisted values and of a missing label. */
const unlisted = { other: 'other', none: 'none' } as const;

/** The label names the metrics use themselves: a task label may not take them. */
const ownLabelNames = ['queue', 'operation', 'code', 'source', 'outcome', 'state'] as const;

/** metricsDefaults: histogram buckets in seconds; handler and wait reach an hour. */
export const metricsDefaults = {
  buckets: {
    operation: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    handler: [
      0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600,
    ],
    wait: [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 120, 300, 600, 1800, 3600],
  },
} as const;

/** ResolvedMetricsOptions: checked options, every field present. */
export interface ResolvedMetricsOptions {
  readonly activity: boolean;
  readonly taskLabels: readonly (TaskLabel & { readonly name: string })[];
  readonly buckets: {
    readonly operation: number[];
    readonly handler: number[];
    readonly wait: number[];
  };
  /** A canonical text of the options: a registry's metrics are made once, for one set of options. */
  readonly signature: string;
}

const labelNamePattern = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** resolveMetricsOptions checks the options: a TypeError or RangeError names the option at fault. */
export function resolveMetricsOptions(given: MetricsOptions | undefined): ResolvedMetricsOptions {
  // read as unknown: the options come from users at run time
  const options = given as unknown;
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    throw new TypeError(`registerMetrics: options must be an object; got ${describe(options)}`);
  }
  const read = (options ?? {}) as { activity?: unknown; taskLabels?: unknown; buckets?: unknown };
  const activity = requireBoolean('registerMetrics: activity', read.activity ?? true);
  const buckets = (read.buckets ?? {}) as Record<string, unknown>;
  const taskLabels = readTaskLabels(read.taskLabels);
  const resolved = {
    operation: readBuckets('operation', buckets['operation']),
    handler: readBuckets('handler', buckets['handler']),
    wait: readBuckets('wait', buckets['wait']),
  };
  return {
    activity,
    taskLabels,
    buckets: resolved,
    signature: JSON.stringify({ activity, taskLabels, buckets: resolved }),
  };
}

function readTaskLabels(given: unknown): (TaskLabel & { name: string })[] {
  if (given === undefined) return [];
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    throw new TypeError(
      `registerMetrics: taskLabels must be an object of task labels; got ${describe(given)}`,
    );
  }
  return Object.entries(given as Record<string, unknown>).map(([name, entry]) =>
    readTaskLabel(name, entry),
  );
}

function readTaskLabel(name: string, entry: unknown): TaskLabel & { name: string } {
  const at = `registerMetrics: taskLabels.${name}`;
  if (
    !labelNamePattern.test(name) ||
    name.startsWith('__') ||
    (ownLabelNames as readonly string[]).includes(name)
  ) {
    throw new RangeError(
      `registerMetrics: taskLabels: ${quoteShort(name)} is not a Prometheus label name of its own ` +
        `([a-zA-Z_][a-zA-Z0-9_]*, no leading __, none of ${ownLabelNames.join(', ')})`,
    );
  }
  if (typeof entry !== 'object' || entry === null) {
    throw new TypeError(`${at} must be { map, key, values }; got ${describe(entry)}`);
  }
  const { map, key, values } = entry as { map?: unknown; key?: unknown; values?: unknown };
  if (!(mapNames as readonly unknown[]).includes(map)) {
    throw new TypeError(`${at}.map must be one of ${mapNames.join(', ')}; got ${describe(map)}`);
  }
  if (typeof key !== 'string') {
    throw new TypeError(`${at}.key must be a string; got ${describe(key)}`);
  }
  const list: unknown[] = Array.isArray(values) ? (values as unknown[]) : [];
  if (!Array.isArray(values) || list.some((value) => typeof value !== 'string')) {
    throw new TypeError(`${at}.values must be an array of strings; got ${describe(values)}`);
  }
  if (list.length > taskLabelValuesMost) {
    throw new RangeError(`${at}.values may list ${taskLabelValuesMost} values at most`);
  }
  const strings = list as string[];
  const taken = strings.find((value) => value === unlisted.other || value === unlisted.none);
  if (taken !== undefined) {
    throw new RangeError(
      `${at}.values may not list ${quoteShort(taken)}: it stands for unlisted values`,
    );
  }
  return { name, map: map as MapName, key, values: [...new Set(strings)].sort() };
}

function readBuckets(name: keyof typeof metricsDefaults.buckets, given: unknown): number[] {
  if (given === undefined) return [...metricsDefaults.buckets[name]];
  const bounds: unknown[] = Array.isArray(given) ? (given as unknown[]) : [];
  const valid =
    bounds.length > 0 &&
    bounds.every(
      (bound, index) =>
        typeof bound === 'number' &&
        Number.isFinite(bound) &&
        bound > 0 &&
        (index === 0 || bound > (bounds[index - 1] as number)),
    );
  if (!valid) {
    throw new RangeError(
      `registerMetrics: buckets.${name} must be positive finite numbers in increasing order; got ${describe(given)}`,
    );
  }
  return bounds as number[];
}

/** TaskLabeler reads the listed task labels of a task as Prometheus label values. */
export type TaskLabeler = (task: Task) => Record<string, string>;

/** taskLabeler returns a reader of the listed labels; a task it cannot read counts as without them. */
export function taskLabeler(labels: ResolvedMetricsOptions['taskLabels']): TaskLabeler {
  const allowed = labels.map((label) => ({ ...label, allowed: new Set(label.values) }));
  return (task) => {
    const values: Record<string, string> = {};
    for (const label of allowed) {
      const value = readLabel(task, label.map, label.key);
      values[label.name] =
        value === undefined ? unlisted.none : label.allowed.has(value) ? value : unlisted.other;
    }
    return values;
  };
}

function readLabel(task: Task, map: MapName, key: string): string | undefined {
  try {
    const labels = (task as Record<string, unknown>)[map] as Labels | null | undefined;
    if (typeof labels !== 'object' || labels === null || !Object.hasOwn(labels, key))
      return undefined;
    const value = labels[key];
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined; // a task object that throws when read: as if without the label
  }
}
