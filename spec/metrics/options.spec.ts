import {
  metricsDefaults,
  resolveMetricsOptions,
  taskLabeler,
  type MetricsOptions,
} from '../../lib/metrics/options.js';
import { claimableSince } from '../../lib/metrics/observer.js';
import { Label } from '../../lib/task/label.js';

describe('registerMetrics options', () => {
  it('defaults to no task labels and buckets up to an hour for handlers and waits', () => {
    const resolved = resolveMetricsOptions(undefined);
    expect(resolved.taskLabels).toEqual([]);
    expect(resolved.buckets.handler.at(-1)).toBe(3600);
    expect(resolved.buckets.wait.at(-1)).toBe(3600);
    expect(resolved.buckets.operation).toEqual(metricsDefaults.buckets.operation);
  });

  const rejected: [string, unknown, ErrorConstructor, RegExp][] = [
    ['options that are not an object', 'x', TypeError, /options must be an object/],
    ['a label name Prometheus refuses', { taskLabels: { 'a-b': ok() } }, RangeError, /"a-b"/],
    ['a reserved label name (__)', { taskLabels: { __x: ok() } }, RangeError, /"__x"/],
    ['a label name the metrics use', { taskLabels: { queue: ok() } }, RangeError, /"queue"/],
    [
      'a map that is none of the seven',
      { taskLabels: { a: { ...ok(), map: 'x' } } },
      TypeError,
      /map must be one of/,
    ],
    [
      'a key that is not a string',
      { taskLabels: { a: { ...ok(), key: 1 } } },
      TypeError,
      /key must be a string/,
    ],
    [
      'values that are not strings',
      { taskLabels: { a: { ...ok(), values: [1] } } },
      TypeError,
      /values must be an array of strings/,
    ],
    [
      'more than 64 values',
      { taskLabels: { a: { ...ok(), values: Array.from({ length: 65 }, String) } } },
      RangeError,
      /64 values at most/,
    ],
    [
      'the value "other"',
      { taskLabels: { a: { ...ok(), values: ['other'] } } },
      RangeError,
      /"other"/,
    ],
    ['activity that is not a boolean', { activity: 'no' }, TypeError, /activity must be a boolean/],
    ['buckets out of order', { buckets: { wait: [1, 0.5] } }, RangeError, /buckets.wait/],
    [
      'a bucket that is not positive',
      { buckets: { handler: [0, 1] } },
      RangeError,
      /buckets.handler/,
    ],
  ];
  it.each(rejected)('rejects %s', (_, options, kind, message) => {
    expect(() => resolveMetricsOptions(options as MetricsOptions)).toThrow(kind);
    expect(() => resolveMetricsOptions(options as MetricsOptions)).toThrow(message);
  });

  it('gives one signature to the same options, whatever the order of their values', () => {
    const a = resolveMetricsOptions({ taskLabels: { x: { ...ok(), values: ['b', 'a'] } } });
    const b = resolveMetricsOptions({ taskLabels: { x: { ...ok(), values: ['a', 'b', 'a'] } } });
    expect(a.signature).toBe(b.signature);
    expect(a.signature).not.toBe(resolveMetricsOptions({}).signature);
  });
});

describe('taskLabeler', () => {
  const labels = taskLabeler(
    resolveMetricsOptions({
      taskLabels: {
        action: { map: 'meta', key: 'action', values: ['resize'] },
        tenant: { map: 'sync', key: 'tenant', values: ['t1'] },
      },
    }).taskLabels,
  );

  it('reports listed values as they are, others as "other", missing labels as "none"', () => {
    expect(labels({ meta: { action: 'resize' }, sync: { tenant: 't2' } })).toEqual({
      action: 'resize',
      tenant: 'other',
    });
    expect(labels({ meta: { n: '1' } })).toEqual({ action: 'none', tenant: 'none' });
  });

  it('reads a task that throws when read as one without the labels', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('no');
        },
      },
    );
    expect(labels(hostile)).toEqual({ action: 'none', tenant: 'none' });
  });
});

describe('claimableSince (the wait histogram)', () => {
  const id = '1697760001000-000000000042'; // created 2023-10-20T00:00:01Z

  it('is the creation instant of a task in its first cycle', () => {
    expect(claimableSince({ core: { [Label.Object]: id } })).toBe(
      Date.parse('2023-10-20T00:00:01Z'),
    );
  });

  it('is the due time of an @exact task and of a deferred one', () => {
    const exact = '2023-10-20T01:00:00Z';
    expect(claimableSince({ core: { [Label.Object]: id }, cron: { [Label.Exact]: exact } })).toBe(
      Date.parse(exact),
    );
    const deferred = {
      core: { [Label.Object]: id, [Label.Cycles]: '3' },
      cron: { [Label.Defer]: '1 hour', [Label.TickP1]: '2023-10-20T05:00:00Z' },
    };
    expect(claimableSince(deferred)).toBe(Date.parse('2023-10-20T05:00:00Z'));
  });

  it('is unknown for a task in a later cycle without a due time, and for one without an id', () => {
    expect(claimableSince({ core: { [Label.Object]: id, [Label.Cycles]: '1' } })).toBe(undefined);
    expect(claimableSince({ meta: { k: 'v' } })).toBe(undefined);
  });
});

function ok() {
  return { map: 'meta', key: 'k', values: ['v'] } as const;
}
