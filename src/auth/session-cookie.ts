import { parseCookie, stringifySetCookie } from 'cookie';

import { authError } from './auth.errors';

/**
 * Cookie-mode sessions for the dashboard (issue 13). A request asks for them with
 * `X-Session-Mode: cookie`: the refresh token then travels in an HttpOnly cookie scoped
 * to /auth instead of the JSON body, so page scripts never see it. The cookie is read
 * only when that header is present: a cross-site form cannot set a custom header, and
 * a cross-site fetch that sets one needs a CORS preflight this API never grants, so the
 * header is the CSRF check of refresh and logout (SameSite=Strict is a second one).
 */
export const SESSION_MODE_HEADER = 'x-session-mode';
export const REFRESH_COOKIE = 'statichost_refresh';
const COOKIE_PATH = '/auth';

export type SessionMode = 'body' | 'cookie';

/** The mode a request asks for: no header is today's body tokens; anything but `cookie` is a 400 naming the header. */
export function sessionMode(header: string | string[] | undefined): SessionMode {
  if (header === undefined) return 'body';
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value.trim().toLowerCase() === 'cookie') return 'cookie';
  throw authError('invalid_session_mode', `X-Session-Mode must be "cookie" (or absent, for tokens in the body); got "${value.slice(0, 40)}"`);
}

/** The refresh token of a Cookie header, if any. */
export function refreshTokenFromCookies(header: string | undefined): string | undefined {
  if (!header) return undefined;
  return parseCookie(header)[REFRESH_COOKIE] || undefined;
}

/** Set-Cookie for a refresh token (`token`), or one that deletes it (`undefined`). */
export function refreshCookie(token: string | undefined, options: { secure: boolean; maxAgeSeconds: number }): string {
  return stringifySetCookie({
    name: REFRESH_COOKIE,
    value: token ?? '',
    httpOnly: true,
    sameSite: 'strict',
    path: COOKIE_PATH,
    secure: options.secure,
    maxAge: token === undefined ? 0 : options.maxAgeSeconds,
  });
}
