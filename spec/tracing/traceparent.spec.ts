import { TraceFlags } from '@opentelemetry/api';
import { formatTraceparent, parseTraceparent } from '../../lib/tracing/traceparent.js';

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const spanId = '00f067aa0ba902b7';

describe('traceparent', () => {
  it('writes a span context as version 00 and reads it back as remote', () => {
    const text = formatTraceparent({ traceId, spanId, traceFlags: TraceFlags.SAMPLED });
    expect(text).toBe(`00-${traceId}-${spanId}-01`);
    expect(parseTraceparent(text)).toEqual({ traceId, spanId, traceFlags: 1, isRemote: true });
    expect(parseTraceparent(`00-${traceId}-${spanId}-00`)?.traceFlags).toBe(0);
  });

  it('reads a later version, ignoring its extra fields', () => {
    expect(parseTraceparent(`01-${traceId}-${spanId}-01-extra`)?.spanId).toBe(spanId);
  });

  it.each([
    ['no value', undefined],
    ['an empty value', ''],
    ['version ff', `ff-${traceId}-${spanId}-01`],
    ['version 00 with extra fields', `00-${traceId}-${spanId}-01-extra`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${spanId}-01`],
    ['an all-zero span id', `00-${traceId}-${'0'.repeat(16)}-01`],
    ['upper-case hex', `00-${traceId.toUpperCase()}-${spanId}-01`],
    ['a short trace id', `00-${traceId.slice(1)}-${spanId}-01`],
  ])('reads nothing from %s', (_, value) => {
    expect(parseTraceparent(value)).toBe(undefined);
  });
});
