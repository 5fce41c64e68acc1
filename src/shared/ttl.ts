import { badRequest } from '../common/errors';

/**
 * Deployment lifetimes: `<n>h`, `<n>d` or `forever`.
 *
 * The text is kept as the user wrote it (it is canonical: no leading zeros, no
 * spaces, lower case), so it can be stored and shown back unchanged.
 */

declare const parsed: unique symbol;
/**
 * A parsed TTL; `ms` null means the deployment never expires. Only parseTtl makes
 * one (the brand), so code that takes a Ttl cannot be handed unchecked text: a
 * request's TTL is parsed once, in its controller, and passed on as this value.
 */
export type Ttl = { readonly text: string; readonly ms: number | null; readonly [parsed]: true };

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Ten years: long enough for anything but "forever", short enough to stay a valid Date. */
export const MAX_TTL_DAYS = 3650;
export const MAX_TTL_HOURS = MAX_TTL_DAYS * 24;
export const DEFAULT_TTL_TEXT = '7d';

const FORM = /^([1-9][0-9]*)([hd])$/;

export class InvalidTtlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidTtlError';
  }
}

/**
 * Parses a TTL. `field` only names the input in the error (`ttl`, `default_ttl`).
 */
export function parseTtl(raw: unknown, field = 'ttl'): Ttl {
  if (raw === 'forever') return { text: 'forever', ms: null } as Ttl;
  const match = typeof raw === 'string' ? FORM.exec(raw) : null;
  if (match) {
    // Compared as a number only after the regex, so "1e3d" or "0x10h" never get here.
    const n = Number(match[1]);
    const perHour = match[2] === 'h';
    if (n <= (perHour ? MAX_TTL_HOURS : MAX_TTL_DAYS)) return { text: raw as string, ms: n * (perHour ? HOUR_MS : DAY_MS) } as Ttl;
  }
  const got = typeof raw === 'string' ? JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}…` : raw) : raw === null ? 'null' : `a ${typeof raw}`;
  throw new InvalidTtlError(
    `${field} must be "<n>h" (1 to ${MAX_TTL_HOURS} hours), "<n>d" (1 to ${MAX_TTL_DAYS} days) or "forever", e.g. "${DEFAULT_TTL_TEXT}"; got ${got}`,
  );
}

export const DEFAULT_TTL: Ttl = parseTtl(DEFAULT_TTL_TEXT);

/** A request's TTL, or the 400 naming `field` (`ttl`, `default_ttl`): for controllers. */
export function requestTtl(raw: string, field: string): Ttl {
  try {
    return parseTtl(raw, field);
  } catch (err) {
    if (err instanceof InvalidTtlError) throw badRequest(err.message);
    throw err;
  }
}

/**
 * The column transformer of TTL text the service stored (projects.default_ttl): read
 * back as the value it was written from.
 */
export const TTL_COLUMN = {
  to: (ttl: Ttl | undefined): string | undefined => ttl?.text,
  from: (text: string | null): Ttl | null => (text === null ? null : parseTtl(text)),
};

/** When a deployment created at `createdAt` expires; null for `forever`. */
export function expiryOf(createdAt: Date, ttl: Ttl): Date | null {
  return ttl.ms === null ? null : new Date(createdAt.getTime() + ttl.ms);
}

/** Whether `ttl` is allowed under a plan's `max`: `forever` exceeds every finite max. */
export function ttlWithin(ttl: Ttl, max: Ttl): boolean {
  if (max.ms === null) return true;
  if (ttl.ms === null) return false;
  return ttl.ms <= max.ms;
}
