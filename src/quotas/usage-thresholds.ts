/** The shares of a metered limit whose crossing is announced (`usage.threshold`). */
export const USAGE_THRESHOLDS = [50, 75, 100] as const;

/** The metered limits announced: the names GET /workspaces/:id gives their usage and limits. */
export type ThresholdMetric = 'deploymentsPerMonth' | 'storageBytes' | 'bandwidthBytesPerMonth' | 'buildMinutesPerMonth';

/**
 * The thresholds a change from `before` to `after` crossed upwards: `percent` % of `limit`
 * reached now and not before. None for an unlimited plan (null) or a zero limit (nothing
 * is allowed, so nothing can be approached).
 */
export function crossedThresholds(before: number, after: number, limit: number | null): number[] {
  if (limit === null || limit <= 0) return [];
  // Compared as integers: 75 % of 7 deployments is reached at the 6th (5.25 rounded up), never by a float error.
  return USAGE_THRESHOLDS.filter((percent) => before * 100 < percent * limit && after * 100 >= percent * limit);
}
