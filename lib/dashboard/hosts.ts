// The host check: which Host headers the dashboard answers. A dashboard
// without auth answers only loopback names by default, wherever it is mounted
// (listen() or your own server), so a web page whose name was pointed at
// 127.0.0.1 (DNS rebinding) can neither read it nor post its forms.
import { isIP } from 'node:net';
import { describe } from '../task/describe.js';

/**
 * AllowedHosts is what the dashboard answers: 'any' host, or these names
 * (`dash.example.com`, any port) and `name:port` pairs, lower case, and the
 * loopback names when `loopback`.
 */
export type AllowedHosts =
  'any' | { readonly names: ReadonlySet<string>; readonly loopback: boolean };

/** The default of a dashboard without token or basic auth: loopback names only. */
const loopbackOnly: AllowedHosts = { names: new Set(), loopback: true };

/** isLoopbackName tells whether a host name (no port) can only be this machine. */
function isLoopbackName(name: string): boolean {
  const bare = name.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost') || bare === '::1') return true;
  return isIP(bare) === 4 && bare.startsWith('127.');
}

/** hostName is the name of a Host header without its port (`[::1]:4000` → `[::1]`). */
export function hostName(host: string): string {
  const lower = host.trim().toLowerCase();
  if (lower.startsWith('[')) {
    const end = lower.indexOf(']');
    return end === -1 ? lower : lower.slice(0, end + 1);
  }
  const colon = lower.lastIndexOf(':');
  return colon === -1 ? lower : lower.slice(0, colon);
}

/** hostAllowed tells whether the dashboard answers a request with this Host header. */
export function hostAllowed(allowed: AllowedHosts, host: string): boolean {
  if (allowed === 'any') return true;
  if (host === '') return false;
  const name = hostName(host);
  if (allowed.loopback && isLoopbackName(name)) return true;
  return allowed.names.has(name) || allowed.names.has(host.trim().toLowerCase());
}

/**
 * readAllowedHosts checks the option `allowedHosts`: 'any', or an array of
 * host names or `name:port` pairs (loopback names are always allowed then).
 * Its default: 'any' when a token or basic auth guards the dashboard (a page
 * of another site carries neither), else loopback names only.
 */
export function readAllowedHosts(value: unknown, guarded: boolean): AllowedHosts {
  if (value === undefined) return guarded ? 'any' : loopbackOnly;
  if (value === 'any') return 'any';
  if (!Array.isArray(value))
    throw new TypeError(
      `createDashboard: option "allowedHosts" must be 'any' or an array of host names`,
    );
  const names = new Set<string>();
  for (const entry of value as unknown[]) {
    if (typeof entry !== 'string' || !/^(\[[0-9a-f:.]+\]|[a-z0-9._-]+)(:\d{1,5})?$/i.test(entry))
      throw new TypeError(
        `createDashboard: option "allowedHosts" holds ${describe(entry)}, which is not a host name or name:port`,
      );
    names.add(entry.toLowerCase());
  }
  return { names, loopback: true };
}
