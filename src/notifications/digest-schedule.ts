import { DAY_MS, HOUR_MS } from '../common/time';

/**
 * The daily digest goes out at `hour`:00 UTC with everything that arrived before then:
 * the latest such moment at or before `now`. One fixed hour for everyone keeps the job a
 * single query (no per-person state), and a job that was down catches up on its next run.
 */
export function dailyCutoff(now: Date, hour: number): Date {
  const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS + hour * HOUR_MS;
  return new Date(today <= now.getTime() ? today : today - DAY_MS);
}

/**
 * An immediate digest waits `windowSeconds` after its first item, so a burst of leads
 * (a launch, a newsletter) is one mail rather than one each: due once its oldest item
 * was created at or before this.
 */
export function immediateBefore(now: Date, windowSeconds: number): Date {
  return new Date(now.getTime() - windowSeconds * 1000);
}
