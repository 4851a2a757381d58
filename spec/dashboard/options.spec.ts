import { dashboardDefaults, resolveDashboardOptions } from '../../lib/dashboard/options.js';

describe('dashboard options', () => {
  it('have defaults: read-only, no auth, mounted at the root', () => {
    const resolved = resolveDashboardOptions(undefined);
    expect(resolved).toMatchObject({
      write: false,
      token: undefined,
      basicAuth: undefined,
      basePath: '',
      sampleInterval: dashboardDefaults.sampleInterval,
      history: dashboardDefaults.history,
      pollInterval: dashboardDefaults.pollInterval,
    });
    expect(resolveDashboardOptions(null).write).toBe(false);
  });

  it('take what is given', () => {
    const clock = () => new Date(0);
    const resolved = resolveDashboardOptions({
      write: true,
      token: 'x'.repeat(16),
      basicAuth: { username: 'u', password: 'p:q' },
      basePath: '/ops/rescue',
      sampleInterval: 500,
      history: 120_000,
      pollInterval: 1_000,
      clock,
    });
    expect(resolved).toMatchObject({
      write: true,
      token: 'x'.repeat(16),
      basicAuth: { username: 'u', password: 'p:q' },
      basePath: '/ops/rescue',
      sampleInterval: 500,
      history: 120_000,
      pollInterval: 1_000,
    });
    expect(resolved.clock).toBe(clock);
  });

  it.each([
    ['options', 'yes', TypeError],
    ['write', { write: 'yes' }, TypeError],
    ['token type', { token: 42 }, TypeError],
    ['short token', { token: 'short' }, RangeError],
    ['token with blanks', { token: 'a token with blanks' }, RangeError],
    ['basicAuth shape', { basicAuth: { username: 'u' } }, TypeError],
    ['basicAuth user with ":"', { basicAuth: { username: 'a:b', password: 'p' } }, RangeError],
    ['basicAuth empty password', { basicAuth: { username: 'a', password: '' } }, RangeError],
    ['basePath trailing slash', { basePath: '/rescue/' }, TypeError],
    ['basePath without slash', { basePath: 'rescue' }, TypeError],
    ['basePath with a quote', { basePath: '/a"b' }, TypeError],
    ['sampleInterval type', { sampleInterval: 1.5 }, TypeError],
    ['sampleInterval too small', { sampleInterval: 10 }, RangeError],
    ['history too small', { history: 1_000 }, RangeError],
    ['pollInterval too large', { pollInterval: 2 ** 31 }, RangeError],
    ['clock', { clock: 'now' }, TypeError],
    ['onError', { onError: 1 }, TypeError],
  ])('refuse a bad %s', (_name, options, kind) => {
    expect(() => resolveDashboardOptions(options)).toThrow(kind);
  });
});
