import { parseCookie, stringifySetCookie } from 'cookie';

/**
 * The cookie that ties an SSO sign-in to the browser that started it (login CSRF, RFC 6749
 * §10.12). `state` alone proves only that someone started a sign-in: an attacker could
 * start one, finish the provider's step as himself, and send a victim the callback URL;
 * the victim's browser would then hold the attacker's session and put its work in his
 * account. The start sets this cookie to a random value whose hash the pending sign-in
 * keeps, and the callback is refused without it.
 *
 * SameSite=Lax, not Strict like the refresh cookie: the provider's redirect back is a
 * top-level navigation from another site, which carries Lax cookies and not Strict ones.
 * Under https the name is `__Host-` prefixed (see session-cookie.ts): a site under a
 * shared parent domain could otherwise plant its own value and so bind the victim's
 * browser to the attacker's sign-in.
 */
export const SSO_BROWSER_COOKIE = 'statichost_sso';
export const HOST_SSO_BROWSER_COOKIE = '__Host-statichost_sso';

export function ssoBrowserCookieName(https: boolean): string {
  return https ? HOST_SSO_BROWSER_COOKIE : SSO_BROWSER_COOKIE;
}

/** Set-Cookie for the value (`value`), or one that deletes it (`undefined`). */
export function ssoBrowserCookie(value: string | undefined, options: { https: boolean; maxAgeSeconds: number }): string {
  return stringifySetCookie({
    name: ssoBrowserCookieName(options.https),
    value: value ?? '',
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: options.https,
    maxAge: value === undefined ? 0 : options.maxAgeSeconds,
  });
}

/**
 * The cookie's value when the Cookie header carries it exactly once. Counted by hand, as
 * readRefreshCookies does: cookie parsers keep one value per name, and of two (one planted
 * under a shared parent domain over http) which to believe cannot be known.
 */
export function readSsoBrowserCookie(header: string | undefined, https: boolean): string | undefined {
  if (!header) return undefined;
  const name = ssoBrowserCookieName(https);
  let value: string | undefined;
  let count = 0;
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if ((eq < 0 ? '' : pair.slice(0, eq)).trim() !== name) continue;
    count++;
    value = parseCookie(pair)[name] || undefined;
  }
  return count === 1 ? value : undefined;
}
