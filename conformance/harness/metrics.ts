import type { Registry } from 'prom-client';
import type { Task } from '../../lib/task/task.js';

// Reading a prom-client registry in the metrics tests.

/** Samples maps `name{label="value",...}` (labels sorted, `queue` left out) to its value. */
export type Samples = Record<string, number>;

/** scrape reads a registry as prom-client serves it, the samples of one queue. */
export async function scrape(registry: Registry, queue: string): Promise<Samples> {
  const samples: Samples = {};
  for (const metric of await registry.getMetricsAsJSON()) {
    for (const sample of metric.values) {
      const labels: Record<string, string | number | undefined> = { ...sample.labels };
      if (labels['queue'] !== queue) continue;
      delete labels['queue'];
      const text = Object.keys(labels)
        .sort()
        .map((key) => `${key}="${String(labels[key])}"`)
        .join(',');
      const name = (sample as { metricName?: string }).metricName ?? metric.name;
      samples[text === '' ? name : `${name}{${text}}`] = sample.value;
    }
  }
  return samples;
}

/** pick returns the samples whose name starts with a prefix. */
export function pick(samples: Samples, prefix: string): Samples {
  return Object.fromEntries(Object.entries(samples).filter(([name]) => name.startsWith(prefix)));
}

/** histogramCounts returns the `_count` samples of a histogram. */
export function histogramCounts(samples: Samples, name: string): Samples {
  return pick(samples, `${name}_count`);
}

/** claim lets the engine claim the task with meta k = value, or fails. */
export async function claim(
  engine: { search(filter?: Task): Promise<Task | undefined> },
  k: string,
): Promise<Task> {
  const task = await engine.search({ meta: { k } });
  if (task === undefined) throw new Error(`no task ${k} to claim`);
  expect(task.meta?.['k']).toBe(k);
  return task;
}
