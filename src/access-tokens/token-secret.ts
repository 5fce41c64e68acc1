import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';

import { randomString } from '../common/ids';

/**
 * API token secrets: `sk_live_` + 32 random base62 characters (about 190 bits from
 * the CSPRNG) + a 6-character base62 CRC32 of the random part. The checksum lets the
 * guard reject a mistyped or made-up token without a database lookup, and lets
 * secret scanners recognise a real one (the scheme GitHub uses for its tokens).
 */
export const TOKEN_SECRET_PREFIX = 'sk_live_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
/** `sk_live_` and the first 4 random characters: enough to tell tokens apart in a list, useless to an attacker. */
export const TOKEN_PREFIX_LENGTH = TOKEN_SECRET_PREFIX.length + 4;
export const TOKEN_SECRET_LENGTH = TOKEN_SECRET_PREFIX.length + RANDOM_LENGTH + CHECKSUM_LENGTH;

const SHAPE = new RegExp(`^${TOKEN_SECRET_PREFIX}([0-9A-Za-z]{${RANDOM_LENGTH}})([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`);

function base62(n: number, width: number): string {
  let out = '';
  for (let i = 0; i < width; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

function checksum(random: string): string {
  return base62(crc32(random), CHECKSUM_LENGTH);
}

export function generateTokenSecret(): string {
  const random = randomString(RANDOM_LENGTH, BASE62);
  return `${TOKEN_SECRET_PREFIX}${random}${checksum(random)}`;
}

/** True for anything that starts like an API token (the guard then never tries it as a JWT). */
export function looksLikeTokenSecret(credential: string): boolean {
  return credential.startsWith(TOKEN_SECRET_PREFIX);
}

/** The right length, alphabet and checksum. */
export function isWellFormedTokenSecret(secret: string): boolean {
  const match = SHAPE.exec(secret);
  return match !== null && checksum(match[1]) === match[2];
}

/** What the database keeps instead of the secret: its SHA-256, hex. A fast hash is enough for 190 random bits. */
export function hashTokenSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function tokenPrefix(secret: string): string {
  return secret.slice(0, TOKEN_PREFIX_LENGTH);
}
