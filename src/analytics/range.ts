import { badRequest } from '../common/errors';
import { DAY_MS, HOUR_MS } from '../common/time';

export type Interval = 'hour' | 'day';
export const MAX_RANGE_DAYS = 400;
export const DEFAULT_RANGE_DAYS = 30;

export interface AnalyticsRange {
  /** Start of the first bucket (inclusive), aligned to the interval, UTC. */
  from: Date;
  /** End of the last bucket (exclusive), aligned to the interval, UTC. */
  to: Date;
  interval: Interval;
}

// A date (whole UTC day) or a date-time with a zone: a time without one would be read in the server's zone.
const ISO = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/**
 * The times a range may name: PostgreSQL's dates have no year 0, and a day past 9999 is no
 * date it reads (`toISOString` writes `+010000-…`); no site was served outside these anyway.
 */
const EARLIEST_MS = Date.UTC(1970, 0, 1);
const LATEST_MS = Date.UTC(9998, 11, 31);

function parseTime(field: 'from' | 'to', value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = ISO.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) throw badRequest(`${field}: must be an ISO 8601 date (2026-11-01) or UTC time (2026-11-01T13:00:00Z)`, 'validation_failed', { field });
  if (ms < EARLIEST_MS || ms > LATEST_MS) throw badRequest(`${field}: must be between 1970-01-01 and 9998-12-31`, 'validation_failed', { field });
  return ms;
}

/**
 * `?from=&to=&interval=` → whole buckets: `from` rounded down and `to` rounded up to
 * the interval (a day range ending at 2026-11-23 covers that day when `to` is a time
 * inside it). Defaults: the last 30 days, by day. Every 400 names its field.
 */
export function parseRange(query: { from?: string; to?: string; interval?: string }, now: Date): AnalyticsRange {
  const interval = query.interval ?? 'day';
  if (interval !== 'hour' && interval !== 'day')
    throw badRequest(`interval: must be hour or day, not ${JSON.stringify(interval).slice(0, 40)}`, 'validation_failed', { field: 'interval' });
  const step = interval === 'hour' ? HOUR_MS : DAY_MS;
  const toMs = parseTime('to', query.to) ?? now.getTime();
  const fromMs = parseTime('from', query.from) ?? toMs - DEFAULT_RANGE_DAYS * DAY_MS;
  if (toMs < fromMs) throw badRequest('to: must not be before from', 'validation_failed', { field: 'to' });
  if (toMs - fromMs > MAX_RANGE_DAYS * DAY_MS) throw badRequest(`to: the range may span at most ${MAX_RANGE_DAYS} days`, 'validation_failed', { field: 'to' });
  const from = Math.floor(fromMs / step) * step;
  // A date-only `to` names a whole day: it is included.
  const toEnd = query.to !== undefined && query.to.length === 10 ? toMs + DAY_MS : toMs;
  const to = Math.max(from + step, Math.ceil(toEnd / step) * step);
  return { from: new Date(from), to: new Date(to), interval };
}

/** Bucket starts of a range. */
export function buckets(range: AnalyticsRange): Date[] {
  const step = range.interval === 'hour' ? HOUR_MS : DAY_MS;
  const out: Date[] = [];
  for (let t = range.from.getTime(); t < range.to.getTime(); t += step) out.push(new Date(t));
  return out;
}
