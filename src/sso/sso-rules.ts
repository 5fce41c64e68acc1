import { createHash, timingSafeEqual } from 'node:crypto';
import { domainToASCII } from 'node:url';

/**
 * Why a sign-in coming back from the provider was refused: the value of
 * `/app/sign-in?sso_error=`, for the dashboard to explain. Never the provider's own
 * words (they could be anything an attacker put in the URL).
 */
export const SSO_CALLBACK_ERRORS = [
  // No such sign-in under way: a forged, expired or already used `state`, or a callback in a browser that did not start it.
  'invalid_state',
  // The provider answered with `error=` (the person declined, or the provider failed).
  'provider_refused',
  // The token endpoint refused the code (replayed, expired, another client's, wrong PKCE verifier).
  'code_rejected',
  // The ID token failed validation: issuer, audience (another client's token), nonce, expiry, or an algorithm the provider does not list.
  'invalid_id_token',
  // The provider did not say the email is verified.
  'email_not_verified',
  // The email's domain is not one the workspace verified.
  'email_not_allowed',
  // The workspace's SSO was removed while the person was at the provider.
  'sso_not_configured',
] as const;
export type SsoCallbackError = (typeof SSO_CALLBACK_ERRORS)[number];

/** Where the dashboard's sign-in page shows a refused SSO sign-in. */
export function signInErrorPath(code: SsoCallbackError): string {
  return `/app/sign-in?sso_error=${code}`;
}

/**
 * The domain of an email address in the form SSO domains are stored in (normaliseDomain:
 * lowercased, IDNA to ASCII), or null when it has none. An account may be registered as
 * `ann@bücher.example` or `ann@xn--bcher-kva.example` (one mailbox): both must meet the
 * workspace's domain, or the Unicode spelling would sign in past an enforced SSO.
 */
export function emailDomain(email: string): string | null {
  const at = email.lastIndexOf('@');
  if (at <= 0 || at === email.length - 1) return null;
  const raw = email
    .slice(at + 1)
    .trim()
    .toLowerCase();
  // '' for what IDNA cannot convert: such a name is no verified domain either way. The
  // trailing dot goes after the conversion, which maps an ideographic full stop ("。") to one.
  return (domainToASCII(raw) || raw).replace(/\.$/, '');
}

/**
 * Whether the provider's claims let a person in: a verified email (a bare `true`; the
 * string "true" some providers send is accepted too) in one of the workspace's
 * verified domains. Anything else is refused: a workspace's provider must not be able
 * to sign anyone in as an address outside the domains the workspace proved it owns.
 */
export function judgeEmail(
  claims: { email?: unknown; email_verified?: unknown },
  verifiedDomains: readonly string[],
): { ok: true; email: string } | { ok: false; error: SsoCallbackError } {
  const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : '';
  if (!email || (claims.email_verified !== true && claims.email_verified !== 'true')) return { ok: false, error: 'email_not_verified' };
  const domain = emailDomain(email);
  if (!domain || !verifiedDomains.includes(domain)) return { ok: false, error: 'email_not_allowed' };
  return { ok: true, email };
}

/**
 * A state is looked up by its SHA-256, and the browser's cookie kept as one: a database
 * reader cannot finish someone's sign-in.
 */
export function stateHash(state: string): string {
  return createHash('sha256').update(state, 'utf8').digest('hex');
}

/**
 * Whether the callback's browser is the one that started the sign-in: its cookie's value
 * hashes to the stored hash. Compared in constant time, so how long a refusal takes says
 * nothing about how much of a guess was right.
 */
export function sameBrowser(cookieValue: string | undefined, storedHash: string): boolean {
  if (!cookieValue) return false;
  const presented = Buffer.from(stateHash(cookieValue), 'utf8');
  const stored = Buffer.from(storedHash, 'utf8');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}

/** What binds a workspace's client secret to its row (a ciphertext copied elsewhere does not open). */
export function clientSecretAad(workspaceId: string): Buffer {
  return Buffer.from(`statichost-sso-client-secret:v1:${workspaceId}`, 'utf8');
}
