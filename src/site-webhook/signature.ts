import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * `X-Statichost-Signature: sha256=<hex>`: the HMAC-SHA256 of the raw body with the
 * shared secret, as GitHub signs its webhooks, so receivers can reuse what they know.
 */
export function signBody(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** For receivers (and tests): constant-time check of a signature header. */
export function verifySignature(body: string, header: string | undefined, secret: string): boolean {
  if (!header) return false;
  const expected = Buffer.from(signBody(body, secret));
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
