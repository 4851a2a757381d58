import { authorized, authRequired, tokenMatches } from '../../lib/dashboard/auth.js';
import { csrfPasses, csrfToken, newSecret, newSeed, sameOrigin } from '../../lib/dashboard/csrf.js';
import { hostHeaders, isLoopback } from '../../lib/dashboard/server.js';

const token = 'a-token-of-some-length';
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('dashboard auth', () => {
  const none = { token: undefined, basicAuth: undefined };
  const withToken = { token, basicAuth: undefined };
  const withBasic = { token: undefined, basicAuth: { username: 'ops', password: 's3cret:x' } };

  it('lets everyone in when nothing is configured', () => {
    expect(authRequired(none)).toBe(false);
    expect(authorized(none, { authorization: undefined, cookieToken: undefined })).toBe(true);
  });

  it('takes the token from the cookie or a bearer header, and nothing else', () => {
    expect(authRequired(withToken)).toBe(true);
    const ask = (authorization: string | undefined, cookieToken: string | undefined) =>
      authorized(withToken, { authorization, cookieToken });
    expect(ask(undefined, token)).toBe(true);
    expect(ask(`Bearer ${token}`, undefined)).toBe(true);
    expect(ask(`bearer  ${token} `, undefined)).toBe(true);
    expect(ask(undefined, undefined)).toBe(false);
    expect(ask(undefined, `${token}x`)).toBe(false);
    expect(ask(`Bearer ${token.slice(1)}`, undefined)).toBe(false);
    expect(ask(basic('x', token), undefined)).toBe(false);
    expect(tokenMatches(withToken, token)).toBe(true);
    expect(tokenMatches(withToken, '')).toBe(false);
    expect(tokenMatches(none, token)).toBe(false);
  });

  it('checks basic auth user and password (a password may hold ":")', () => {
    const ask = (authorization: string | undefined) =>
      authorized(withBasic, { authorization, cookieToken: undefined });
    expect(ask(basic('ops', 's3cret:x'))).toBe(true);
    expect(ask(basic('ops', 's3cret'))).toBe(false);
    expect(ask(basic('op', 's3cret:x'))).toBe(false);
    expect(ask('Basic !!!')).toBe(false);
    expect(ask(`Basic ${Buffer.from('no colon').toString('base64')}`)).toBe(false);
    expect(ask(undefined)).toBe(false);
  });
});

describe('dashboard CSRF tokens', () => {
  it('pass only for the seed they were made for, under the same secret', () => {
    const secret = newSecret();
    const seed = newSeed();
    const token = csrfToken(secret, seed);
    expect(csrfPasses(secret, seed, token)).toBe(true);
    expect(csrfPasses(secret, newSeed(), token)).toBe(false);
    expect(csrfPasses(newSecret(), seed, token)).toBe(false);
    expect(csrfPasses(secret, seed, undefined)).toBe(false);
    expect(csrfPasses(secret, undefined, token)).toBe(false);
    expect(csrfPasses(secret, seed, '')).toBe(false);
    expect(csrfPasses(secret, seed, `${token}x`)).toBe(false);
    expect(newSeed()).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });

  it('accept a request without Origin, or from its own host only', () => {
    const url = 'http://127.0.0.1:4000/task/1/delete';
    expect(sameOrigin(undefined, url)).toBe(true);
    expect(sameOrigin('http://127.0.0.1:4000', url)).toBe(true);
    expect(sameOrigin('https://127.0.0.1:4000', url)).toBe(true);
    expect(sameOrigin('http://evil.example', url)).toBe(false);
    expect(sameOrigin('http://127.0.0.1:4001', url)).toBe(false);
    expect(sameOrigin('null', url)).toBe(false);
  });
});

describe('dashboard addresses', () => {
  it('knows the loopback addresses', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost'])
      expect(isLoopback(host)).toBe(true);
    for (const host of ['0.0.0.0', '::', '10.0.0.1', 'example.com', '128.0.0.1'])
      expect(isLoopback(host)).toBe(false);
  });

  it('accepts the Host headers a browser sends to a loopback port', () => {
    expect([...hostHeaders('127.0.0.1', 4000)].sort()).toEqual([
      '127.0.0.1:4000',
      '[::1]:4000',
      'localhost:4000',
    ]);
    expect(hostHeaders('::1', 80).has('[::1]:80')).toBe(true);
  });
});
