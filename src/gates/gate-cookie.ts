import { createHmac, timingSafeEqual } from 'node:crypto';

import { isId } from '../common/ids';

/**
 * The gate's access cookie, the MAC an HMAC-SHA256 over the rest with a server secret:
 * - `v2.<projectId>.<gateVersion>.<expiresAtSeconds>.<leadId>.<mac>` from the email gate,
 *   naming the lead the visitor became (an opaque random id, never the email), so a form
 *   submission from the same visitor can be linked to it;
 * - `v1.<projectId>.<gateVersion>.<expiresAtSeconds>.<mac>` from the password gate, and
 *   from the email gate before leads were carried: still accepted, with no lead.
 * Bound to one project (worthless on another site) and to the gate's version (changing
 * the password or the gate type bumps it, so earlier cookies stop working at once).
 */
export interface GateGrant {
  projectId: string;
  gateVersion: number;
  expiresAt: number; // unix seconds
  /** The email gate's lead of this visitor; absent for the password gate. */
  leadId?: string;
}

/** What a genuine cookie grants: until when, and the lead it names (null for none). */
export interface VerifiedGrant {
  expiresAt: number;
  leadId: string | null;
}

/** Longer values are refused unread (a v2 cookie with today's ids is about 100 characters). */
const MAX_COOKIE_LENGTH = 256;

function mac(secret: Buffer, payload: string): string {
  return createHmac('sha256', secret).update(payload).digest('base64url');
}

export function signGateCookie(secret: Buffer, grant: GateGrant): string {
  if (grant.leadId !== undefined && !isId('lead', grant.leadId)) throw new Error(`not a lead id: ${grant.leadId}`);
  const payload =
    grant.leadId === undefined
      ? `v1.${grant.projectId}.${grant.gateVersion}.${grant.expiresAt}`
      : `v2.${grant.projectId}.${grant.gateVersion}.${grant.expiresAt}.${grant.leadId}`;
  return `${payload}.${mac(secret, payload)}`;
}

/** The grant of a genuine cookie (v1 or v2) for this project and gate version, expired or not; else undefined. */
export function readGateCookie(secret: Buffer, value: string | undefined, projectId: string, gateVersion: number): VerifiedGrant | undefined {
  if (!value || value.length > MAX_COOKIE_LENGTH) return undefined;
  const parts = value.split('.');
  const v2 = parts[0] === 'v2';
  if (!(v2 ? parts.length === 6 : parts[0] === 'v1' && parts.length === 5)) return undefined;
  const [, id, version, expires] = parts;
  const leadId = v2 ? parts[4] : null;
  if (id !== projectId || version !== String(gateVersion)) return undefined;
  if (leadId !== null && !isId('lead', leadId)) return undefined;
  const expiresAt = Number(expires);
  if (!Number.isSafeInteger(expiresAt)) return undefined;
  const given = parts[parts.length - 1];
  const expected = Buffer.from(mac(secret, parts.slice(0, -1).join('.')));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected) ? { expiresAt, leadId } : undefined;
}

/** The expiry (unix seconds) of a genuine cookie for this project and gate version, else undefined. */
export function gateCookieExpiry(secret: Buffer, value: string | undefined, projectId: string, gateVersion: number): number | undefined {
  return readGateCookie(secret, value, projectId, gateVersion)?.expiresAt;
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
