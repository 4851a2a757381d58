import { longestTimerMs } from '../lib/clock.js';
import { resolveDashboardOptions } from '../lib/dashboard/options.js';
import { resolveEngineOptions } from '../lib/engine/options.js';
import { resolveMetricsOptions } from '../lib/metrics/options.js';
import { requireInteger, timerBounds } from '../lib/options.js';
import { resolveWorkerOptions } from '../lib/worker/options.js';

// lib/options.ts: one mistake, one error class, whichever options it is in.

describe('option checks', () => {
  const resolvers: [string, (duration: unknown) => unknown][] = [
    ['Engine expiry', (expiry) => resolveEngineOptions({ expiry: expiry as number })],
    ['Worker pollInterval', (ms) => resolveWorkerOptions({ pollInterval: ms as number })],
    ['dashboard pollInterval', (ms) => resolveDashboardOptions({ pollInterval: ms })],
  ];

  it.each(resolvers)(
    '%s: a duration beyond the longest timer is a RangeError',
    (_name, resolve) => {
      expect(() => resolve(longestTimerMs + 1)).toThrow(RangeError);
      expect(() => resolve(longestTimerMs)).not.toThrow();
    },
  );

  it.each(resolvers)('%s: a fraction or a string is a TypeError', (_name, resolve) => {
    expect(() => resolve(1000.5)).toThrow(TypeError);
    expect(() => resolve('1000')).toThrow(TypeError);
  });

  it.each<[string, () => unknown]>([
    ['Engine clock', () => resolveEngineOptions({ clock: 'now' as never })],
    ['Worker autoExtend', () => resolveWorkerOptions({ autoExtend: 'yes' as never })],
    ['dashboard write', () => resolveDashboardOptions({ write: 'yes' })],
    ['metrics activity', () => resolveMetricsOptions({ activity: 'yes' as never })],
  ])('%s of the wrong kind is a TypeError', (_name, resolve) => {
    expect(resolve).toThrow(TypeError);
  });

  it('names the option, the kind and the bound', () => {
    expect(() => requireInteger('X option "a"', -1, timerBounds(0))).toThrow(
      new TypeError('X option "a" must be a non-negative integer of ms; got number -1'),
    );
    expect(() => requireInteger('X option "a"', 10, timerBounds(50))).toThrow(
      new RangeError('X option "a" must be from 50 to 2,147,483,647 ms; got 10'),
    );
    expect(() =>
      requireInteger('X option "a"', 2 ** 31, { least: 1, most: longestTimerMs }),
    ).toThrow(new RangeError('X option "a" must be at most 2,147,483,647; got 2,147,483,648'));
  });
});
