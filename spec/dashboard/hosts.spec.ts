import { hostAllowed, hostName, readAllowedHosts } from '../../lib/dashboard/hosts.js';

describe('the dashboard’s host check', () => {
  it('answers only loopback names by default without auth, any host with auth', () => {
    const open = readAllowedHosts(undefined, false);
    for (const host of ['127.0.0.1:4000', 'localhost', 'LOCALHOST:80', '[::1]:4000', '127.1.2.3'])
      expect({ host, allowed: hostAllowed(open, host) }).toEqual({ host, allowed: true });
    for (const host of ['evil.example:4000', 'evil.example', '127.0.0.1.evil.example', '', '[::2]'])
      expect({ host, allowed: hostAllowed(open, host) }).toEqual({ host, allowed: false });
    expect(hostAllowed(readAllowedHosts(undefined, true), 'evil.example:4000')).toBe(true);
  });

  it('adds the names and name:port pairs given; any turns it off', () => {
    const listed = readAllowedHosts(['Ops.Example.com', 'box:8080'], false);
    expect(hostAllowed(listed, 'ops.example.com:443')).toBe(true);
    expect(hostAllowed(listed, 'box:8080')).toBe(true);
    expect(hostAllowed(listed, 'box:8081')).toBe(false);
    expect(hostAllowed(listed, 'localhost:4000')).toBe(true);
    expect(hostAllowed(listed, 'evil.example')).toBe(false);
    expect(hostAllowed(readAllowedHosts('any', false), 'evil.example')).toBe(true);
  });

  it('rejects what is not a host name with a TypeError', () => {
    for (const bad of ['*', 'http://x', 'a b', '', 42])
      expect(() => readAllowedHosts([bad], false)).toThrow(TypeError);
    expect(() => readAllowedHosts('all', false)).toThrow(TypeError);
  });

  it('reads a Host header’s name without its port', () => {
    expect(hostName('Example.com:4000')).toBe('example.com');
    expect(hostName('[::1]:4000')).toBe('[::1]');
    expect(hostName('example.com')).toBe('example.com');
  });
});
