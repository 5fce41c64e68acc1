/**
 * The plan table: the one place that says what each tier allows. Operators can
 * override any cell with PLANS_FILE or PLANS_JSON (see parsePlanOverrides); `null`
 * means unlimited.
 */
import { InvalidTtlError, parseTtl } from '../shared/ttl';

/** The tiers a workspace's plan can be (the `plan` column of workspaces, src/workspaces/workspace.entity.ts). */
export const TIERS = ['free', 'pro', 'team'] as const;
export type Tier = (typeof TIERS)[number];

/** Tiers that are paid for (activated with a payment method); `free` is where a workspace starts and returns to. */
export const PAID_TIERS = ['pro', 'team'] as const satisfies readonly Tier[];
export type PaidTier = (typeof PAID_TIERS)[number];
export const INTERVALS = ['month', 'year'] as const;
export type Interval = (typeof INTERVALS)[number];

export interface PlanLimits {
  /** Projects in the workspace. */
  projects: number | null;
  /** Deployments created per calendar month (UTC). */
  deploymentsPerMonth: number | null;
  /** Bytes of the distinct files of the workspace's live and archived deployments. */
  storageBytes: number | null;
  /** Largest single file of a deployment; null: the platform ceiling (MAX_FILE_BYTES). */
  maxFileBytes: number | null;
  /** Longest deployment TTL (`<n>h`, `<n>d`); null: any, including `forever`. */
  maxTtl: string | null;
  /** Builds queued or running at once in the workspace. */
  concurrentBuilds: number | null;
  /** Minutes of finished builds (their duration) per calendar month (UTC). */
  buildMinutesPerMonth: number | null;
  /** Bytes the workspace's sites served per calendar month (UTC), headers included, as the analytics pipeline counts them. */
  bandwidthBytesPerMonth: number | null;
}

/** The limits that are counted (and answer 402 when exceeded); the other two are checked per request. */
export const METERED_QUOTAS = [
  'projects',
  'deploymentsPerMonth',
  'storageBytes',
  'concurrentBuilds',
  'buildMinutesPerMonth',
  'bandwidthBytesPerMonth',
] as const;
export type MeteredQuota = (typeof METERED_QUOTAS)[number];
export type QuotaName = MeteredQuota | 'maxTtl';

export type PlanTable = Record<Tier, PlanLimits>;

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const TiB = 1024 * GiB;

/** The table; sizes are binary (500 MB = 500 × 2^20 bytes), like the rest of the service. */
export const DEFAULT_PLANS: PlanTable = {
  free: {
    projects: 3,
    deploymentsPerMonth: 10,
    storageBytes: 500 * MiB,
    maxFileBytes: 10 * MiB,
    maxTtl: '7d',
    concurrentBuilds: 1,
    buildMinutesPerMonth: 300,
    bandwidthBytesPerMonth: 100 * GiB,
  },
  pro: {
    projects: 20,
    deploymentsPerMonth: 100,
    storageBytes: 5 * GiB,
    maxFileBytes: 100 * MiB,
    maxTtl: null,
    concurrentBuilds: 3,
    buildMinutesPerMonth: 1000,
    bandwidthBytesPerMonth: TiB,
  },
  team: {
    projects: null,
    deploymentsPerMonth: null,
    storageBytes: 50 * GiB,
    maxFileBytes: 100 * MiB,
    maxTtl: null,
    concurrentBuilds: 10,
    buildMinutesPerMonth: 5000,
    bandwidthBytesPerMonth: 5 * TiB,
  },
};

const LIMIT_KEYS = [
  'projects',
  'deploymentsPerMonth',
  'storageBytes',
  'maxFileBytes',
  'maxTtl',
  'concurrentBuilds',
  'buildMinutesPerMonth',
  'bandwidthBytesPerMonth',
] as const satisfies readonly (keyof PlanLimits)[];

export class InvalidPlansError extends Error {}

const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: MiB, gb: GiB, tb: 1024 * GiB };

/** `1048576`, `"500 MB"`, `"5GB"`, `"1.5 GB"` → bytes (binary units). */
export function parseBytes(value: unknown, where: string): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  const match = typeof value === 'string' ? /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb|tb)\s*$/i.exec(value) : null;
  if (match) {
    const bytes = Math.round(Number(match[1]) * UNITS[match[2].toLowerCase()]);
    if (Number.isSafeInteger(bytes)) return bytes;
  }
  throw new InvalidPlansError(`${where} must be a whole number of bytes, a size such as "500 MB" or "5 GB", or null; got ${JSON.stringify(value)}`);
}

function parseCount(value: unknown, where: string): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  throw new InvalidPlansError(`${where} must be a whole number (0 or more) or null; got ${JSON.stringify(value)}`);
}

function parseLimit(key: (typeof LIMIT_KEYS)[number], value: unknown, where: string): number | string | null {
  if (value === null) return null;
  switch (key) {
    case 'projects':
    case 'deploymentsPerMonth':
    case 'concurrentBuilds':
    case 'buildMinutesPerMonth':
      return parseCount(value, where);
    case 'storageBytes':
    case 'bandwidthBytesPerMonth':
      return parseBytes(value, where);
    case 'maxFileBytes': {
      const bytes = parseBytes(value, where);
      if (bytes < 1) throw new InvalidPlansError(`${where} must be at least 1 byte`);
      return bytes;
    }
    case 'maxTtl': {
      try {
        const ttl = parseTtl(value, where);
        // "forever" as a maximum is the same as no maximum.
        return ttl.ms === null ? null : ttl.text;
      } catch (err) {
        if (err instanceof InvalidTtlError) throw new InvalidPlansError(`${err.message}, or null for any`);
        throw err;
      }
    }
  }
}

/**
 * Applies an operator's overrides (`{"free": {"projects": 5, "storageBytes": "1 GB"}}`)
 * to `base`. Cells not named keep their value; unknown tiers or limits are errors,
 * so a typo never silently leaves a default in place.
 */
export function applyPlanOverrides(base: PlanTable, overrides: unknown, source: string): PlanTable {
  if (typeof overrides !== 'object' || overrides === null || Array.isArray(overrides)) {
    throw new InvalidPlansError(`${source} must be a JSON object keyed by tier (${TIERS.join(', ')})`);
  }
  const table: PlanTable = { free: { ...base.free }, pro: { ...base.pro }, team: { ...base.team } };
  for (const [tier, limits] of Object.entries(overrides)) {
    if (!(TIERS as readonly string[]).includes(tier)) {
      throw new InvalidPlansError(`${source}: unknown tier "${tier}"; the tiers are ${TIERS.join(', ')}`);
    }
    if (typeof limits !== 'object' || limits === null || Array.isArray(limits)) {
      throw new InvalidPlansError(`${source}: ${tier} must be an object of limits (${LIMIT_KEYS.join(', ')})`);
    }
    for (const [key, value] of Object.entries(limits)) {
      // A tier's prices sit beside its limits in the same file; applyPriceOverrides reads them.
      if (key === PRICES_KEY) continue;
      if (!(LIMIT_KEYS as readonly string[]).includes(key)) {
        throw new InvalidPlansError(`${source}: ${tier}.${key} is not a limit; the limits are ${LIMIT_KEYS.join(', ')}`);
      }
      const k = key as (typeof LIMIT_KEYS)[number];
      (table[tier as Tier] as unknown as Record<string, unknown>)[k] = parseLimit(k, value, `${source}: ${tier}.${key}`);
    }
  }
  return table;
}

/** Parses PLANS_JSON / the contents of PLANS_FILE. */
export function parsePlanOverrides(text: string, source: string, base: PlanTable = DEFAULT_PLANS): PlanTable {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new InvalidPlansError(`${source} is not valid JSON: ${(err as Error).message}`);
  }
  return applyPlanOverrides(base, parsed, source);
}

/** A plan's limits as they apply on this platform: the file size is never above the platform ceiling. */
export function effectiveLimits(limits: PlanLimits, platformMaxFileBytes: number): PlanLimits & { maxFileBytes: number } {
  return { ...limits, maxFileBytes: Math.min(limits.maxFileBytes ?? platformMaxFileBytes, platformMaxFileBytes) };
}

/** What a paid tier costs per interval: an amount in the currency's minor units (cents) and a lower-case ISO 4217 code. */
export interface Price {
  amount: number;
  currency: string;
}
export type PriceTable = Record<PaidTier, Record<Interval, Price>>;

/**
 * What the plan table shows and what the operator's Stripe Prices should charge (the
 * Price ids stay STRIPE_PRICE_<TIER>_<INTERVAL>; Stripe charges what its Price says,
 * these amounts only tell customers). A year costs ten months.
 */
export const DEFAULT_PRICES: PriceTable = {
  pro: { month: { amount: 1900, currency: 'usd' }, year: { amount: 19000, currency: 'usd' } },
  team: { month: { amount: 9900, currency: 'usd' }, year: { amount: 99000, currency: 'usd' } },
};

/** The key of a tier's prices in PLANS_JSON / PLANS_FILE: `{"pro": {"prices": {"month": {"amount": 2500, "currency": "eur"}}}}`. */
export const PRICES_KEY = 'prices';

function parsePrice(value: unknown, where: string): Price {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidPlansError(`${where} must be an object such as {"amount": 1900, "currency": "usd"} (amount in minor units, e.g. cents)`);
  }
  const { amount, currency, ...rest } = value as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length > 0) throw new InvalidPlansError(`${where}.${extra[0]} is not a price field; a price has amount and currency`);
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount < 0) {
    throw new InvalidPlansError(`${where}.amount must be a whole number of the currency's minor units (e.g. 1900 for 19.00); got ${JSON.stringify(amount)}`);
  }
  if (typeof currency !== 'string' || !/^[a-z]{3}$/i.test(currency)) {
    throw new InvalidPlansError(`${where}.currency must be a three-letter ISO 4217 code such as "usd" or "eur"; got ${JSON.stringify(currency)}`);
  }
  return { amount, currency: currency.toLowerCase() };
}

/**
 * Applies the `prices` of each paid tier in the operator's overrides to `base`, interval
 * by interval; the limits in the same object are applyPlanOverrides's. `free` has no
 * prices, and an unknown interval is an error, as an unknown limit is.
 */
export function applyPriceOverrides(base: PriceTable, overrides: unknown, source: string): PriceTable {
  const table: PriceTable = { pro: { ...base.pro }, team: { ...base.team } };
  if (typeof overrides !== 'object' || overrides === null || Array.isArray(overrides)) return table;
  for (const [tier, cells] of Object.entries(overrides)) {
    if (typeof cells !== 'object' || cells === null || !(PRICES_KEY in cells)) continue;
    const prices = (cells as Record<string, unknown>)[PRICES_KEY];
    const where = `${source}: ${tier}.${PRICES_KEY}`;
    if (!(PAID_TIERS as readonly string[]).includes(tier)) {
      throw new InvalidPlansError(`${where}: only the paid tiers (${PAID_TIERS.join(', ')}) have prices`);
    }
    if (typeof prices !== 'object' || prices === null || Array.isArray(prices)) {
      throw new InvalidPlansError(`${where} must be an object keyed by interval (${INTERVALS.join(', ')})`);
    }
    for (const [interval, price] of Object.entries(prices)) {
      if (!(INTERVALS as readonly string[]).includes(interval)) {
        throw new InvalidPlansError(`${where}.${interval} is not an interval; the intervals are ${INTERVALS.join(', ')}`);
      }
      table[tier as PaidTier][interval as Interval] = parsePrice(price, `${where}.${interval}`);
    }
  }
  return table;
}

/** Parses the prices out of PLANS_JSON / the contents of PLANS_FILE (parsePlanOverrides has already reported bad JSON). */
export function parsePriceOverrides(text: string, source: string, base: PriceTable = DEFAULT_PRICES): PriceTable {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new InvalidPlansError(`${source} is not valid JSON: ${(err as Error).message}`);
  }
  return applyPriceOverrides(base, parsed, source);
}
