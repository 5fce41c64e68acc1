/**
 * Pure quota and billing-period rules: what counts, when a month starts, what a
 * 402 says. The services feed them numbers read under the workspace lock.
 */
import { formatBytes } from '../../packages/shared/format-bytes';
import { type ApiError } from '../common/errors';
import { parseTtl, type Ttl, ttlWithin } from '../shared/ttl';
import { billingError } from './billing.errors';
import type { Interval, PlanLimits, QuotaName, Tier } from './plans';

/** First instant of the calendar month (UTC) that contains `now`. */
export function monthStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

/** First instant of the next calendar month (UTC): when the monthly count starts again. */
export function nextMonthStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

/** `YYYY-MM-DD` of a month's first day, the key of the monthly usage row. */
export function monthKey(now: Date): string {
  return monthStart(now).toISOString().slice(0, 10);
}

function quotaExceeded(
  quota: QuotaName,
  plan: Tier,
  limit: number | string,
  usage: number | string,
  message: string,
  extra: Record<string, unknown> = {},
): ApiError {
  return billingError('quota_exceeded', message, { quota, limit, usage, plan, ...extra });
}

const upgrade = (plan: Tier) => (plan === 'team' ? 'ask the operator for a larger plan' : 'upgrade the plan (POST /billing/activate-plan)');

/** null when one more project fits, else the 402 to throw. */
export function projectQuotaError(plan: Tier, limits: PlanLimits, projects: number): ApiError | null {
  if (limits.projects === null || projects < limits.projects) return null;
  return quotaExceeded(
    'projects',
    plan,
    limits.projects,
    projects,
    `The ${plan} plan allows ${limits.projects} project${limits.projects === 1 ? '' : 's'} per workspace and this workspace has ${projects}. Delete a project or ${upgrade(plan)}.`,
  );
}

/** null when one more deployment fits in this calendar month, else the 402 to throw. */
export function deploymentQuotaError(plan: Tier, limits: PlanLimits, deploymentsThisMonth: number, now: Date): ApiError | null {
  const limit = limits.deploymentsPerMonth;
  if (limit === null || deploymentsThisMonth < limit) return null;
  const resetsAt = nextMonthStart(now).toISOString();
  return quotaExceeded(
    'deploymentsPerMonth',
    plan,
    limit,
    deploymentsThisMonth,
    `The ${plan} plan allows ${limit} deployment${limit === 1 ? '' : 's'} per calendar month (UTC) and this workspace has made ${deploymentsThisMonth} this month. The count starts again at ${resetsAt}; or ${upgrade(plan)}.`,
    { resetsAt },
  );
}

/** null when the workspace's storage after the deploy (`used` + `added`) fits, else the 402 to throw. */
export function storageQuotaError(plan: Tier, limits: PlanLimits, used: number, added: number): ApiError | null {
  const limit = limits.storageBytes;
  if (limit === null || used + added <= limit) return null;
  if (used > limit) {
    return quotaExceeded(
      'storageBytes',
      plan,
      limit,
      used,
      `This workspace stores ${formatBytes(used)} in live and archived deployments and the ${plan} plan allows ${formatBytes(limit)}: ` +
        `its sites keep serving, but deploys are paused until it fits. Delete deployments or projects you no longer need, or ${upgrade(plan)}.`,
      { additional: added },
    );
  }
  return quotaExceeded(
    'storageBytes',
    plan,
    limit,
    used,
    `This deployment adds ${formatBytes(added)} of new files to the ${formatBytes(used)} this workspace already stores in live and archived deployments; ` +
      `the ${plan} plan allows ${formatBytes(limit)}. Deploy fewer or smaller files, delete projects you no longer need, or ${upgrade(plan)}.`,
    { additional: added },
  );
}

/** null when one more build may be queued or run beside the `active` ones of the workspace, else the 402 to throw. */
export function concurrentBuildQuotaError(plan: Tier, limits: PlanLimits, active: number): ApiError | null {
  const limit = limits.concurrentBuilds;
  if (limit === null || active < limit) return null;
  return quotaExceeded(
    'concurrentBuilds',
    plan,
    limit,
    active,
    `The ${plan} plan allows ${limit} build${limit === 1 ? '' : 's'} queued or running at once per workspace and this workspace has ${active}. Wait for one to finish, cancel one, or ${upgrade(plan)}.`,
  );
}

/** Whole minutes of `ms`, rounded up: a build of 10 s counts as a minute, as hosts bill them. */
export function buildMinutes(ms: number): number {
  return Math.ceil(ms / 60_000);
}

/** null when the workspace has build minutes left this calendar month, else the 402 to throw. */
export function buildMinutesQuotaError(plan: Tier, limits: PlanLimits, minutesThisMonth: number, now: Date): ApiError | null {
  const limit = limits.buildMinutesPerMonth;
  if (limit === null || minutesThisMonth < limit) return null;
  const resetsAt = nextMonthStart(now).toISOString();
  return quotaExceeded(
    'buildMinutesPerMonth',
    plan,
    limit,
    minutesThisMonth,
    `The ${plan} plan allows ${limit} build minute${limit === 1 ? '' : 's'} per calendar month (UTC) and this workspace's builds have used ${minutesThisMonth} this month. The count starts again at ${resetsAt}; or ${upgrade(plan)}.`,
    { resetsAt },
  );
}

/**
 * null while the workspace's sites have served less than the plan's monthly bandwidth,
 * else the 402 a deploy gets (issue 31: over a metered limit, deploys are refused; the
 * sites keep serving unless the spend cap pauses them).
 */
export function bandwidthQuotaError(plan: Tier, limits: PlanLimits, bytesThisMonth: number, now: Date): ApiError | null {
  const limit = limits.bandwidthBytesPerMonth;
  if (limit === null || bytesThisMonth < limit) return null;
  const resetsAt = nextMonthStart(now).toISOString();
  return quotaExceeded(
    'bandwidthBytesPerMonth',
    plan,
    limit,
    bytesThisMonth,
    `This workspace's sites have served ${formatBytes(bytesThisMonth)} this calendar month (UTC); the ${plan} plan includes ${formatBytes(limit)}. ` +
      `The sites keep serving, but deploys are refused until the count starts again at ${resetsAt}; or ${upgrade(plan)}.`,
    { resetsAt },
  );
}

/**
 * The plan's longest TTL. Plan limits are operator configuration, checked when the
 * plans are loaded (plans.ts) and kept as the text the API shows; parsed here for the comparison.
 */
function maxTtlOf(limits: PlanLimits): Ttl | null {
  return limits.maxTtl === null ? null : parseTtl(limits.maxTtl);
}

/** null when the plan allows `ttl`, else the 402 to throw. `field` names the input (`ttl`, `default_ttl`). */
export function ttlQuotaError(plan: Tier, limits: PlanLimits, ttl: Ttl, field: string): ApiError | null {
  const max = maxTtlOf(limits);
  if (max === null || ttlWithin(ttl, max)) return null;
  const what = ttl.ms === null ? `${field} "forever" (never expiring)` : `${field} "${ttl.text}"`;
  return quotaExceeded(
    'maxTtl',
    plan,
    max.text,
    ttl.text,
    `${what} is longer than the ${plan} plan allows: deployments may live up to ${max.text}. Choose a ttl of ${max.text} or less, or ${upgrade(plan)}.`,
  );
}

/**
 * The TTL a deployment gets when the request names none: the project's default,
 * shortened to the plan's maximum (a project set up on a larger plan keeps
 * deploying after a downgrade instead of failing on a setting nobody sent).
 */
export function defaultTtlWithin(projectDefault: Ttl, limits: PlanLimits): Ttl {
  const max = maxTtlOf(limits);
  return max === null || ttlWithin(projectDefault, max) ? projectDefault : max;
}

/** `anchor` plus `count` intervals, in UTC; a month from Jan 31 ends on the last day of February. */
export function addIntervals(anchor: Date, interval: Interval, count: number): Date {
  const months = interval === 'month' ? count : count * 12;
  const y = anchor.getUTCFullYear();
  const m = anchor.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  const d = new Date(anchor.getTime());
  d.setUTCFullYear(y, m, Math.min(anchor.getUTCDate(), lastDay));
  return d;
}

/** The end of the billing period running at `now` for a subscription anchored at `anchor`. */
export function periodEndAt(anchor: Date, interval: Interval, now: Date): Date {
  // Counted from the anchor each time, so short months do not drift the billing day.
  let k = 1;
  while (addIntervals(anchor, interval, k) <= now) k++;
  return addIntervals(anchor, interval, k);
}

export interface PlanState {
  plan: Tier;
  subscription: {
    status: 'active' | 'past_due' | 'canceled';
    cancelAtPeriodEnd: boolean;
    currentPeriodEnd: Date;
    /** When the failed renewal happened (`past_due` only). */
    pastDueSince: Date | null;
  } | null;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** The end of a `past_due` subscription's grace: its plan stays in force until then while the provider retries. */
export function graceEndsAt(pastDueSince: Date, graceDays: number): Date {
  return new Date(pastDueSince.getTime() + graceDays * DAY_MS);
}

/**
 * The tier that applies at `now`. The workspace row holds the tier; a subscription stops
 * counting the moment it ends, even before the sweeper writes `free` back: cancelled (at
 * the provider or at its period's end) once the period paid for is over, `past_due` once
 * `graceDays` have passed since the failed renewal.
 */
export function effectiveTier(state: PlanState, now: Date, graceDays: number): Tier {
  const s = state.subscription;
  if (!s) return state.plan;
  if (s.status === 'active' && s.cancelAtPeriodEnd && s.currentPeriodEnd <= now) return 'free';
  if (s.status === 'past_due' && s.pastDueSince && graceEndsAt(s.pastDueSince, graceDays) <= now) return 'free';
  if (s.status === 'canceled' && s.currentPeriodEnd <= now) return 'free';
  return state.plan;
}

/**
 * For a deploy, once the plan is smaller than what the workspace already has (back on
 * free after a paid plan, say): the 402 for the first limit it is over, else null.
 * Nothing is deleted; the sites keep serving; deploys wait until it fits or pays again.
 * Deployments per month and storage have their own checks (they count the deploy itself).
 */
export function overLimitDeployError(plan: Tier, limits: PlanLimits, usage: { projects: number }): ApiError | null {
  if (limits.projects !== null && usage.projects > limits.projects) {
    const extra = usage.projects - limits.projects;
    return quotaExceeded(
      'projects',
      plan,
      limits.projects,
      usage.projects,
      `The ${plan} plan allows ${limits.projects} project${limits.projects === 1 ? '' : 's'} per workspace and this workspace has ${usage.projects}: ` +
        `its sites keep serving, but deploys are paused until it fits. Delete ${extra} project${extra === 1 ? '' : 's'} or ${upgrade(plan)}.`,
    );
  }
  return null;
}
