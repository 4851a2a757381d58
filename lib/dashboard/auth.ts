// Who may see the dashboard. Without a token or basic auth configured,
// anyone who reaches it may (it binds to 127.0.0.1 by default, and `listen`
// refuses other addresses without one). With a token, a browser opens
// `/?token=<token>` once and keeps it in an HttpOnly cookie; programs send
// `Authorization: Bearer <token>`. With basic auth, the browser asks.
import { createHash, timingSafeEqual } from 'node:crypto';

/** BasicAuth is a user name and password the browser's login prompt asks for. */
export interface BasicAuth {
  readonly username: string;
  readonly password: string;
}

export interface AuthOptions {
  readonly token: string | undefined;
  readonly basicAuth: BasicAuth | undefined;
}

/** The cookie a browser keeps the token in. */
export const tokenCookie = 'rescue_dashboard_token';

/** AuthRequest is what auth reads from a request. */
export interface AuthRequest {
  readonly authorization: string | undefined;
  readonly cookieToken: string | undefined;
}

/** authRequired tells whether any auth is configured. */
export function authRequired(options: AuthOptions): boolean {
  return options.token !== undefined || options.basicAuth !== undefined;
}

/** authorized tells whether a request may pass (always, when no auth is configured). */
export function authorized(options: AuthOptions, request: AuthRequest): boolean {
  if (!authRequired(options)) return true;
  const { token, basicAuth } = options;
  const header = request.authorization ?? '';
  if (token !== undefined) {
    if (request.cookieToken !== undefined && sameSecret(request.cookieToken, token)) return true;
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (bearer?.[1] !== undefined && sameSecret(bearer[1], token)) return true;
  }
  if (basicAuth !== undefined) {
    const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
    if (basic?.[1] !== undefined) {
      const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      // both compared, so a wrong user name takes as long as a wrong password
      const user = sameSecret(decoded.slice(0, Math.max(colon, 0)), basicAuth.username);
      const password = sameSecret(decoded.slice(colon + 1), basicAuth.password);
      if (colon >= 0 && user && password) return true;
    }
  }
  return false;
}

/** tokenMatches tells whether a token given in the address is the configured one. */
export function tokenMatches(options: AuthOptions, given: string): boolean {
  return options.token !== undefined && sameSecret(given, options.token);
}

/** sameSecret compares in constant time, whatever the lengths (of hashes, always 32 bytes). */
function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
