import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The gate's access cookie: `v1.<projectId>.<gateVersion>.<expiresAtSeconds>.<mac>`,
 * the MAC an HMAC-SHA256 over the rest with a server secret. Bound to one project
 * (worthless on another site) and to the gate's version (changing the password or
 * the gate type bumps it, so earlier cookies stop working at once).
 */
export interface GateGrant {
  projectId: string;
  gateVersion: number;
  expiresAt: number; // unix seconds
}

const VERSION = 'v1';

function mac(secret: Buffer, payload: string): string {
  return createHmac('sha256', secret).update(payload).digest('base64url');
}

export function signGateCookie(secret: Buffer, grant: GateGrant): string {
  const payload = `${VERSION}.${grant.projectId}.${grant.gateVersion}.${grant.expiresAt}`;
  return `${payload}.${mac(secret, payload)}`;
}

/** The expiry (unix seconds) of a genuine cookie for this project and gate version, else undefined. */
export function gateCookieExpiry(secret: Buffer, value: string | undefined, projectId: string, gateVersion: number): number | undefined {
  if (!value || value.length > 256) return undefined;
  const parts = value.split('.');
  if (parts.length !== 5 || parts[0] !== VERSION) return undefined;
  const [, id, version, expires, given] = parts;
  if (id !== projectId || version !== String(gateVersion)) return undefined;
  const expiresAt = Number(expires);
  if (!Number.isSafeInteger(expiresAt)) return undefined;
  const expected = Buffer.from(mac(secret, `${VERSION}.${id}.${version}.${expires}`));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected) ? expiresAt : undefined;
}

/** True when `value` is a genuine, unexpired cookie for this project and gate version. */
export function verifyGateCookie(secret: Buffer, value: string | undefined, projectId: string, gateVersion: number, nowSeconds: number): boolean {
  const expiresAt = gateCookieExpiry(secret, value, projectId, gateVersion);
  return expiresAt !== undefined && expiresAt > nowSeconds;
}

/** Cookie name: the `__Host-` prefix (Secure, Path=/, no Domain) whenever sites are served over https. */
export function gateCookieName(https: boolean): string {
  return https ? '__Host-statichost_gate' : 'statichost_gate';
}

const BASE = 'http://site.invalid';

/**
 * True when `path`, placed as is in a Location header, can only lead to this site: an
 * absolute path that browsers will not read as a network-path reference (`//host`,
 * `/\\host`) and with nothing a header or a URL parser would treat specially.
 */
export function isSameSitePath(path: string): boolean {
  if (!path.startsWith('/') || path.startsWith('//') || path.startsWith('/\\')) return false;
  if (/[\u0000-\u001f\u007f\\]/.test(path) || /\p{Cs}/u.test(path)) return false;
  try {
    return new URL(path, BASE).origin === BASE;
  } catch {
    return false;
  }
}

/**
 * A redirect target after a successful gate: same-site paths only, anything else `/`.
 * The check runs on what is returned, not only on what came in: normalising
 * `/.//evil.example/x` or `/x/..//evil.com` yields `//evil…`, a redirect off-site.
 */
export function safeNextPath(next: unknown): string {
  if (typeof next !== 'string' || next.length > 2048 || !isSameSitePath(next)) return '/';
  let target: string;
  try {
    const url = new URL(next, BASE);
    target = `${url.pathname}${url.search}`;
  } catch {
    return '/';
  }
  return isSameSitePath(target) ? target : '/';
}
