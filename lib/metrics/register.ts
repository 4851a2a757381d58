import type { Registry } from 'prom-client';
import type { Engine } from '../engine/engine.js';
import { addObserver } from '../engine/observe.js';
import { describe } from '../task/describe.js';
import { contextOfTarget } from '../worker/engine-of.js';
import type { Worker } from '../worker/worker.js';
import { ActivityMetrics } from './activity.js';
import { QueueGauges } from './gauges.js';
import { MetricsObserver } from './observer.js';
import { resolveMetricsOptions, type MetricsOptions } from './options.js';

/** MetricsRegistration is one engine's part in a registry; unregister ends it. */
export interface MetricsRegistration {
  /** unregister stops counting the engine's work and reading its queue at scrapes (the counts stay). */
  unregister(): void;
}

/** The rescue metrics of a registry, made on its first registration. */
interface Made {
  readonly signature: string;
  readonly gauges: QueueGauges;
  readonly activity: ActivityMetrics | undefined;
}
const made = new WeakMap<Registry, Made>();

/**
 * registerMetrics counts an engine's work in a prom-client registry: the
 * engine's operations, the tasks it creates, completes, revokes and halts,
 * and, for every Worker running on the engine, handler durations, wait times
 * and failures; the queue's gauges are read from engine.stats() whenever the
 * registry is scraped. Given a Worker, it registers the worker's engine.
 * Several engines may share a registry (the `queue` label tells their queues
 * apart), with the same options.
 *
 *     const registry = new Registry();
 *     registerMetrics(engine, registry);
 *     await serveMetrics(registry, { port: 9464 });
 */
export function registerMetrics(
  target: Engine | Worker,
  registry: Registry,
  options?: MetricsOptions,
): MetricsRegistration {
  const context = contextOfTarget(target, 'registerMetrics');
  const given = registry as unknown;
  if (
    typeof given !== 'object' ||
    given === null ||
    typeof (given as Partial<Registry>).registerMetric !== 'function'
  ) {
    throw new TypeError(
      `registerMetrics: the registry must be a prom-client Registry; got ${describe(registry)}`,
    );
  }
  const resolved = resolveMetricsOptions(options);
  let metrics = made.get(registry);
  if (metrics === undefined) {
    metrics = {
      signature: resolved.signature,
      gauges: new QueueGauges(registry),
      activity: resolved.activity ? new ActivityMetrics(registry, resolved) : undefined,
    };
    made.set(registry, metrics);
  } else if (metrics.signature !== resolved.signature) {
    throw new Error(
      'registerMetrics: this registry holds rescue metrics made with other options; register with the same options, or use another registry',
    );
  }
  const { gauges, activity } = metrics;
  if (gauges.engines.has(context)) {
    throw new Error('registerMetrics: this engine is registered on this registry already');
  }
  const queue = context.options.queue;
  gauges.start(queue);
  gauges.engines.set(context, queue);
  let remove = () => {};
  if (activity !== undefined) {
    activity.start(queue);
    remove = addObserver(context, new MetricsObserver(activity, queue));
  }
  return {
    unregister() {
      remove();
      gauges.engines.delete(context);
    },
  };
}
