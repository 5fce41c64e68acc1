import { parseCookie, stringifySetCookie } from 'cookie';

import { authError } from '../../access/auth.errors';

/**
 * Cookie-mode sessions for the dashboard (issue 13). A request asks for them with
 * `X-Session-Mode: cookie`: the refresh token then travels in an HttpOnly cookie
 * instead of the JSON body, so page scripts never see it. The cookie is read only when
 * that header is present: a cross-site form cannot set a custom header, and a
 * cross-site fetch that sets one needs a CORS preflight this API never grants, so the
 * header is the CSRF check of refresh and logout (SameSite=Strict is a second one).
 *
 * The name is where the session-fixation defence lives (issue 26): a site under the
 * same parent domain as the API host can set a cookie for that parent, which the
 * browser then sends to the API host beside (and, with a longer Path, before) the
 * real one. Under https the cookie is `__Host-` prefixed: browsers refuse a `__Host-`
 * cookie that has a Domain, lacks Secure or has a Path other than `/`, so no other
 * host can set or shadow it. See docs/security.md.
 */
export const SESSION_MODE_HEADER = 'x-session-mode';

/** The refresh cookie's name under http, and the name every version before issue 26 used. */
export const LEGACY_REFRESH_COOKIE = 'statichost_refresh';
export const HOST_REFRESH_COOKIE = '__Host-statichost_refresh';

export type SessionMode = 'body' | 'cookie';

/** Name, path and flags of the refresh cookie for one public scheme. */
export interface RefreshCookieScheme {
  name: string;
  path: string;
  secure: boolean;
  /**
   * The cookie earlier versions set, which this scheme no longer reads. It is deleted
   * when a request carries it, so it does not linger until it expires.
   */
  retired?: { name: string; path: string };
}

/**
 * https: `__Host-statichost_refresh; Secure; Path=/`. http (development): the name
 * and path of before, without Secure, because browsers refuse Secure cookies from a
 * plain-http host other than localhost; over plain http anyone on the network can
 * plant cookies anyway, and the default development hosts (`localhost` beside
 * `<slug>.localhost`) cannot: browsers refuse `Domain=localhost`.
 */
export function refreshCookieScheme(https: boolean): RefreshCookieScheme {
  return https
    ? { name: HOST_REFRESH_COOKIE, path: '/', secure: true, retired: { name: LEGACY_REFRESH_COOKIE, path: '/auth' } }
    : { name: LEGACY_REFRESH_COOKIE, path: '/auth', secure: false };
}

/** The mode a request asks for: no header is today's body tokens; anything but `cookie` is a 400 naming the header. */
export function sessionMode(header: string | string[] | undefined): SessionMode {
  if (header === undefined) return 'body';
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value.trim().toLowerCase() === 'cookie') return 'cookie';
  throw authError('invalid_session_mode', `X-Session-Mode must be "cookie" (or absent, for tokens in the body); got "${value.slice(0, 40)}"`);
}

export interface RefreshCookies {
  /** The token of the scheme's cookie when the request carries exactly one. */
  token?: string;
  /** How many cookies of the scheme's name the request carries. */
  count: number;
  /** Whether it carries the retired cookie (read: never; deleted: yes). */
  retired: boolean;
}

/**
 * The refresh cookies of a Cookie header. Counted by hand because cookie parsers (the
 * `cookie` package included) keep one value per name and so hide the second cookie
 * that a sibling host planted; which of two to believe cannot be known, so the caller
 * refuses both.
 */
export function readRefreshCookies(header: string | undefined, scheme: RefreshCookieScheme): RefreshCookies {
  const found: RefreshCookies = { count: 0, retired: false };
  if (!header) return found;
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    const name = (eq < 0 ? '' : pair.slice(0, eq)).trim();
    if (name === scheme.name) {
      found.count++;
      found.token = found.count === 1 ? parseCookie(pair)[name] || undefined : undefined;
    } else if (scheme.retired && name === scheme.retired.name) {
      found.retired = true;
    }
  }
  return found;
}

/** Set-Cookie for a refresh token (`token`), or one that deletes it (`undefined`). */
export function refreshCookie(token: string | undefined, options: { scheme: RefreshCookieScheme; maxAgeSeconds: number }): string {
  return stringifySetCookie({
    name: options.scheme.name,
    value: token ?? '',
    httpOnly: true,
    sameSite: 'strict',
    path: options.scheme.path,
    secure: options.scheme.secure,
    maxAge: token === undefined ? 0 : options.maxAgeSeconds,
  });
}

/** Set-Cookie that deletes the scheme's retired cookie, if it has one. */
export function retiredCookieDeletion(scheme: RefreshCookieScheme): string | undefined {
  if (!scheme.retired) return undefined;
  return stringifySetCookie({
    name: scheme.retired.name,
    value: '',
    httpOnly: true,
    sameSite: 'strict',
    path: scheme.retired.path,
    secure: scheme.secure,
    maxAge: 0,
  });
}

/** The refusal of a request that carries the refresh cookie more than once. */
export function duplicateRefreshCookie(scheme: RefreshCookieScheme, count: number) {
  return authError(
    'duplicate_refresh_cookie',
    `The request carries ${count} ${scheme.name} cookies; one was set by another host under a shared parent domain (a hosted site?), ` +
      'so neither is used. The session cookie was deleted: sign in again.',
  );
}
