/**
 * How long the analytics flusher waits after a flush that took a while. A flush's cost
 * grows with the projects served since the last one, not with the requests: at 100,000
 * sites served within ANALYTICS_FLUSH_SECONDS, one flush upserts about 400,000 rollup rows
 * and keeps PostgreSQL busy for 4–6 s (bench:sites, docs/scaling.md). Flushed every 10 s,
 * that is half of a database core spent on analytics. Waiting in proportion to the last
 * flush bounds that share; the counts of the longer wait go into the same rows (one per
 * project, path and hour), so the next flush costs about the same, not more.
 */

/** The share of the time the flusher may keep a database connection busy. */
export const FLUSH_DUTY = 0.1;
/** The longest wait, whatever a flush took: a crash loses at most this much more than ANALYTICS_FLUSH_SECONDS. */
export const MAX_FLUSH_PAUSE_MS = 120_000;

/**
 * When the timer may flush again after a flush that started at `startedMs` and ended at
 * `endedMs` (a monotonic clock): never before the timer's own interval, and no sooner than
 * the flush took, times (1 / FLUSH_DUTY - 1), up to MAX_FLUSH_PAUSE_MS.
 */
export function nextFlushAt(startedMs: number, endedMs: number): number {
  const took = Math.max(0, endedMs - startedMs);
  return endedMs + Math.min(took * (1 / FLUSH_DUTY - 1), MAX_FLUSH_PAUSE_MS);
}
