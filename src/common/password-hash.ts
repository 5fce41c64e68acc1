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

/** log2 of scrypt's N by default (PASSWORD_HASH_COST): N=2^15, r=8, p=1 is 32 MiB and ~0.1 s of one core per hash here. */
export const DEFAULT_PASSWORD_HASH_COST = 15;
/** The highest PASSWORD_HASH_COST (env.schema.ts): a stored hash asking for more memory than it is not ours. */
const MAX_N = 2 ** 17;
const R = 8;
const KEY_LENGTH = 32;
/** scrypt needs 128·N·r bytes; twice that leaves room for OpenSSL's own. */
const maxmemFor = (n: number, r: number) => 256 * n * r;

/** New hashes' parameters; hashes already stored keep theirs (they carry them). */
let params = { N: 1 << DEFAULT_PASSWORD_HASH_COST, r: R, p: 1, maxmem: maxmemFor(1 << DEFAULT_PASSWORD_HASH_COST, R) };

/** From PASSWORD_HASH_COST at start: log2 of N for the hashes written from then on. */
export function configurePasswordHashCost(cost: number): void {
  const n = 2 ** cost;
  params = { N: n, r: R, p: 1, maxmem: maxmemFor(n, R) };
}

/** `scrypt$N$r$p$salt$hash`, base64url parts: self-describing so parameters can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const { N, r, p } = params;
  const hash = await scrypt(password.normalize('NFC'), salt, KEY_LENGTH, params);
  return ['scrypt', N, r, p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  // base64url decoding skips what it cannot read: a hash part of no valid characters is 0 bytes, which any password's 0-byte scrypt would equal.
  if (expected.length !== KEY_LENGTH) return false;
  const cost = { N: Number(n), r: Number(r), p: Number(p) };
  // Parameters outside what this service writes (N a power of two up to 2^17, r=8, p=1) would let a bad row allocate gigabytes, or throw.
  if (!Number.isInteger(cost.N) || cost.N < 2 || cost.N > MAX_N || (cost.N & (cost.N - 1)) !== 0 || cost.r !== R || cost.p !== 1) return false;
  const actual = await scrypt(password.normalize('NFC'), Buffer.from(salt, 'base64url'), expected.length, { ...cost, maxmem: maxmemFor(cost.N, cost.r) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
