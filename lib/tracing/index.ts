/**
 * The entry rescue-engine/tracing: OpenTelemetry tracing with `@opentelemetry/api`
 * only (an optional peer dependency; bring your own SDK). Nothing in
 * rescue-engine's main entry imports this file.
 *
 * @module rescue-engine/tracing
 */
export { registerTracing, type TracingOptions, type TracingRegistration } from './tracing.js';
export { formatTraceparent, parseTraceparent } from './traceparent.js';
