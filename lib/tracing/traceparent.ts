import { isSpanContextValid, type SpanContext } from '@opentelemetry/api';

// The W3C Trace Context `traceparent` form the tracing label keeps:
// `00-<trace id, 32 hex>-<parent span id, 16 hex>-<flags, 2 hex>`.
// https://www.w3.org/TR/trace-context/#traceparent-header

const pattern = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** formatTraceparent writes a span context as a traceparent (version 00). */
export function formatTraceparent(span: SpanContext): string {
  const flags = (span.traceFlags & 0xff).toString(16).padStart(2, '0');
  return `00-${span.traceId}-${span.spanId}-${flags}`;
}

/**
 * parseTraceparent reads a traceparent into a remote span context, or
 * undefined for anything that is not a valid one (a later version's extra
 * fields are ignored, as the specification asks; version ff is invalid).
 */
export function parseTraceparent(value: string | undefined): SpanContext | undefined {
  if (value === undefined) return undefined;
  const match = pattern.exec(value.trim());
  if (match === null) return undefined;
  const [, version, traceId = '', spanId = '', flags = '', rest] = match;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  const context: SpanContext = {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16),
    isRemote: true,
  };
  return isSpanContextValid(context) ? context : undefined;
}
