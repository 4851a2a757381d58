/**
 * The entry rescue-engine/metrics: Prometheus metrics with prom-client (an
 * optional peer dependency). Nothing in rescue-engine's main entry imports
 * this file, so users who do not use metrics do not load prom-client.
 *
 * @module rescue-engine/metrics
 */
export { registerMetrics, type MetricsRegistration } from './register.js';
export { serveMetrics, type MetricsServer, type ServeMetricsOptions } from './serve.js';
export { metricsDefaults, type MetricsOptions, type TaskLabel } from './options.js';
