import { createHash } from 'node:crypto';

import { randomString } from '../../common/ids';

/** Lowercase letters and digits without the look-alikes (0/o, 1/l/i), for codes people copy from paper. */
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
export const RECOVERY_CODE_COUNT = 10;

/** Ten new codes, `xxxxx-xxxxx` (10 characters of a 31-letter alphabet: about 50 bits each). */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const raw = randomString(10, ALPHABET);
    return `${raw.slice(0, 5)}-${raw.slice(5)}`;
  });
}

/**
 * What is stored of a code: SHA-256 over the user id and the code as typed, without case,
 * spaces or dashes. A plain hash is enough for 50 random bits tried through a throttled
 * endpoint; the user id keeps two users' equal codes (and a copied hash) apart.
 */
export function recoveryCodeHash(userId: string, code: string): string {
  const normalized = code.toLowerCase().replace(/[\s-]/g, '');
  return createHash('sha256').update(`statichost-recovery:v1:${userId}:${normalized}`, 'utf8').digest('hex');
}

/** True for what looks like a TOTP code (six digits, spaces allowed as authenticator apps show them). */
export function looksLikeTotpCode(code: string): boolean {
  return /^\d{6}$/.test(code.replace(/\s/g, ''));
}
