// CSRF protection for the actions: a random seed in a SameSite=Strict,
// HttpOnly cookie, and in every form a token that is the HMAC of that seed
// under a secret of this dashboard. A POST passes only when its form's token
// is the HMAC of its cookie's seed, and when its Origin (if the browser sends
// one) is the dashboard's own. A page on another site can neither read the
// token nor send the cookie along.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The cookie that holds a browser's CSRF seed. */
export const csrfCookie = 'rescue_dashboard_csrf';

/** newSecret is the key a dashboard signs seeds with (new on each start). */
export function newSecret(): Buffer {
  return randomBytes(32);
}

/** newSeed is a browser's CSRF seed. */
export function newSeed(): string {
  return randomBytes(24).toString('base64url');
}

/** csrfToken is the token forms carry for a seed. */
export function csrfToken(secret: Buffer, seed: string): string {
  return createHmac('sha256', secret).update(seed).digest('base64url');
}

/** csrfPasses tells whether a POST's token belongs to its cookie's seed. */
export function csrfPasses(
  secret: Buffer,
  seed: string | undefined,
  token: string | undefined,
): boolean {
  if (seed === undefined || seed === '' || token === undefined || token === '') return false;
  const expected = Buffer.from(csrfToken(secret, seed));
  const given = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * sameOrigin tells whether a request's Origin header (when the browser sent
 * one) names the host the request was made to. The scheme is not compared:
 * behind a proxy that ends TLS, the browser says https and the dashboard
 * sees http.
 */
export function sameOrigin(origin: string | undefined, requestUrl: string): boolean {
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === new URL(requestUrl).host;
  } catch {
    return false;
  }
}
