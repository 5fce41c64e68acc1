import { randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

import { BoundedConcurrency, QueueFullError } from './bounded-concurrency';
import { type ApiError, commonError } from './errors';

const scryptOnPool = promisify(scryptCb) as (password: string, salt: Buffer, keylen: number, options: object) => Promise<Buffer>;

/** Seconds a caller turned away by a full queue is told to wait (Retry-After). */
export const PASSWORD_HASH_RETRY_AFTER_SECONDS = 1;

/**
 * scrypt runs on libuv's threadpool (UV_THREADPOOL_SIZE, 4 by default), the same
 * threads every file read and write of the process uses. Unbounded, a flood of
 * logins queues hundreds of hashes ahead of them: sites stall and /health reports
 * storage down. So at most a few hashes run at once, per process (the pool is per
 * process), a bounded number wait, and the rest are refused at once with a 503.
 * Configured from PASSWORD_HASH_CONCURRENCY / PASSWORD_HASH_QUEUE at start.
 */
export const passwordHashing = new BoundedConcurrency(2, 64);

export function passwordHashingBusy(): ApiError {
  const error = commonError('password_hashing_busy', 'Too many password checks are in progress; retry in a moment');
  return Object.assign(error, { headers: { 'Retry-After': String(PASSWORD_HASH_RETRY_AFTER_SECONDS) } });
}

async function scrypt(password: string, salt: Buffer, keylen: number, options: object): Promise<Buffer> {
  try {
    return await passwordHashing.run(() => scryptOnPool(password, salt, keylen, options));
  } catch (err) {
    if (err instanceof QueueFullError) throw passwordHashingBusy();
    throw err;
  }
}

/** scrypt with N=2^15, r=8, p=1: about 32 MiB and tens of milliseconds per hash. */
const PARAMS = { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_LENGTH = 32;

/** `scrypt$N$r$p$salt$hash`, base64url parts: self-describing so parameters can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password.normalize('NFC'), salt, KEY_LENGTH, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scrypt(password.normalize('NFC'), Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: PARAMS.maxmem,
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
