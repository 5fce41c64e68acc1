import { randomBytes } from 'node:crypto';

// frm: a site's form, fsub: one of its submissions, wh: a webhook endpoint, msg: one event sent to one endpoint (Standard Webhooks' message id).
// inv: an invoice mirrored from the payment provider (issue 31). aud: an audit log entry, pk: a passkey (issue 32).
export const ID_PREFIXES = ['ws', 'proj', 'dep', 'tok', 'lead', 'mem', 'usr', 'pm', 'sub', 'bld', 'frm', 'fsub', 'wh', 'msg', 'inv', 'aud', 'pk'] as const;
export type IdPrefix = (typeof ID_PREFIXES)[number];

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';
/** 24 characters of base36: about 124 bits of randomness. */
export const ID_BODY_LENGTH = 24;

/** Uniform random string over ALPHABET (rejection sampling, no modulo bias). */
export function randomString(length: number, alphabet = ALPHABET): string {
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < limit) out += alphabet[byte % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomString(ID_BODY_LENGTH)}`;
}

/** Built once: the guard checks an id on every request. */
const ID_PATTERNS = Object.fromEntries(ID_PREFIXES.map((prefix) => [prefix, new RegExp(`^${prefix}_[0-9a-z]{${ID_BODY_LENGTH}}$`)])) as Record<
  IdPrefix,
  RegExp
>;

export function isId(prefix: IdPrefix, value: unknown): value is string {
  return typeof value === 'string' && ID_PATTERNS[prefix].test(value);
}
