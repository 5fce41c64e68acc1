import { stringifySetCookie } from 'cookie';

/**
 * The session marker (issue 26). The refresh cookie is HttpOnly, so the dashboard's
 * scripts cannot tell whether there is a session to resume, and asked by a refresh on
 * every load: a signed-out visitor's browser logged a 401 each time. This cookie, set and
 * cleared beside the refresh cookie with the same lifetime, says only "a cookie session
 * was started here"; the dashboard tries a refresh when it is present, and otherwise
 * shows the sign-in page without asking.
 *
 * It holds no secret and grants nothing. A sibling host that plants one (see
 * docs/security.md on SITES_DOMAIN) only makes the dashboard try a refresh, which fails
 * as it did before this cookie existed; it cannot hide a real one (the dashboard looks
 * for any cookie of this name), so it cannot sign anyone out.
 */
export const SESSION_MARKER_COOKIE = 'statichost_session';

/** Set-Cookie for the marker: present (`true`) for `maxAgeSeconds`, or deleted. Readable by scripts on purpose. */
export function sessionMarkerCookie(present: boolean, options: { secure: boolean; maxAgeSeconds: number }): string {
  return stringifySetCookie({
    name: SESSION_MARKER_COOKIE,
    value: present ? '1' : '',
    path: '/',
    sameSite: 'strict',
    secure: options.secure,
    maxAge: present ? options.maxAgeSeconds : 0,
  });
}
