import fc from 'fast-check';

import { parseTtl } from '../shared/ttl';
import { DEFAULT_PLANS } from './plans';
import {
  addIntervals,
  buildMinutes,
  buildMinutesQuotaError,
  concurrentBuildQuotaError,
  defaultTtlWithin,
  deploymentQuotaError,
  effectiveTier,
  monthKey,
  monthStart,
  nextMonthStart,
  overLimitDeployError,
  periodEndAt,
  projectQuotaError,
  storageQuotaError,
  ttlQuotaError,
} from './quota';

const free = DEFAULT_PLANS.free;
const team = DEFAULT_PLANS.team;
const d = (s: string) => new Date(s);

describe('calendar months (UTC)', () => {
  it('start on the first at midnight UTC, whatever the local zone', () => {
    expect(monthStart(d('2025-03-31T23:59:59.999Z')).toISOString()).toBe('2025-03-01T00:00:00.000Z');
    expect(nextMonthStart(d('2025-12-15T00:00:00.000Z')).toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(monthKey(d('2025-04-01T00:00:00.000Z'))).toBe('2025-04-01');
    expect(monthKey(d('2025-03-31T23:59:59.999Z'))).toBe('2025-03-01');
  });
});

describe('quota errors', () => {
  it('let the last project in, then answer 402 with the numbers', () => {
    expect(projectQuotaError('free', free, 2)).toBeNull();
    const err = projectQuotaError('free', free, 3)!;
    expect(err.getStatus()).toBe(402);
    expect(err.body()).toEqual({
      statusCode: 402,
      error: 'Payment Required',
      code: 'quota_exceeded',
      quota: 'projects',
      limit: 3,
      usage: 3,
      plan: 'free',
      message: 'The free plan allows 3 projects per workspace and this workspace has 3. Delete a project or upgrade the plan (POST /billing/activate-plan).',
    });
    expect(projectQuotaError('team', team, 10_000)).toBeNull();
  });

  it('say when the monthly deployment count starts again', () => {
    expect(deploymentQuotaError('free', free, 9, d('2025-05-20T10:00:00Z'))).toBeNull();
    const body = deploymentQuotaError('free', free, 10, d('2025-05-20T10:00:00Z'))!.body();
    expect(body).toMatchObject({ quota: 'deploymentsPerMonth', limit: 10, usage: 10, resetsAt: '2025-06-01T00:00:00.000Z' });
    expect(body.message).toContain('10 deployments per calendar month (UTC)');
  });

  it('refuse a build past the concurrent builds, and say so', () => {
    expect(concurrentBuildQuotaError('free', free, 0)).toBeNull();
    const body = concurrentBuildQuotaError('free', free, 1)!.body();
    expect(body).toMatchObject({ statusCode: 402, code: 'quota_exceeded', quota: 'concurrentBuilds', limit: 1, usage: 1, plan: 'free' });
    expect(body.message).toContain('1 build queued or running at once');
  });

  it('count build minutes rounded up, and say when they start again', () => {
    expect([0, 1, 60_000, 60_001].map(buildMinutes)).toEqual([0, 1, 1, 2]);
    expect(buildMinutesQuotaError('free', free, 299, d('2025-05-20T10:00:00Z'))).toBeNull();
    const body = buildMinutesQuotaError('free', free, 300, d('2025-05-20T10:00:00Z'))!.body();
    expect(body).toMatchObject({ quota: 'buildMinutesPerMonth', limit: 300, usage: 300, resetsAt: '2025-06-01T00:00:00.000Z' });
  });

  it('count storage after the deploy, and allow reaching the limit exactly', () => {
    const limit = free.storageBytes!;
    expect(storageQuotaError('free', free, limit - 10, 10)).toBeNull();
    const body = storageQuotaError('free', free, limit - 10, 11)!.body();
    expect(body).toMatchObject({ quota: 'storageBytes', limit, usage: limit - 10, additional: 11, plan: 'free' });
    expect(body.message).toContain('the free plan allows 500 MB');
  });

  it('refuse a ttl longer than the plan’s, and forever on a finite plan', () => {
    expect(ttlQuotaError('free', free, parseTtl('7d'), 'ttl')).toBeNull();
    expect(ttlQuotaError('free', free, parseTtl('168h'), 'ttl')).toBeNull();
    expect(ttlQuotaError('free', free, parseTtl('169h'), 'ttl')!.body()).toMatchObject({ quota: 'maxTtl', limit: '7d', usage: '169h' });
    expect(ttlQuotaError('free', free, parseTtl('forever'), 'default_ttl')!.message).toMatch(
      /^default_ttl "forever" \(never expiring\) is longer than the free plan allows/,
    );
    expect(ttlQuotaError('pro', DEFAULT_PLANS.pro, parseTtl('forever'), 'ttl')).toBeNull();
  });

  it('send a team workspace to the operator rather than to an upgrade', () => {
    expect(storageQuotaError('team', team, team.storageBytes!, 1)!.message).toContain('ask the operator');
  });
});

describe('defaultTtlWithin', () => {
  it('shortens a project default the plan no longer allows', () => {
    expect(defaultTtlWithin(parseTtl('30d'), free).text).toBe('7d');
    expect(defaultTtlWithin(parseTtl('forever'), free).text).toBe('7d');
    expect(defaultTtlWithin(parseTtl('1d'), free).text).toBe('1d');
    expect(defaultTtlWithin(parseTtl('forever'), team).text).toBe('forever');
  });
});

describe('billing periods', () => {
  it('add months in UTC, ending short months on their last day', () => {
    expect(addIntervals(d('2025-01-31T12:00:00Z'), 'month', 1).toISOString()).toBe('2025-02-28T12:00:00.000Z');
    expect(addIntervals(d('2024-01-31T12:00:00Z'), 'month', 1).toISOString()).toBe('2024-02-29T12:00:00.000Z');
    expect(addIntervals(d('2025-01-31T12:00:00Z'), 'month', 2).toISOString()).toBe('2025-03-31T12:00:00.000Z');
    expect(addIntervals(d('2024-02-29T00:00:00Z'), 'year', 1).toISOString()).toBe('2025-02-28T00:00:00.000Z');
    expect(addIntervals(d('2025-11-15T00:00:00Z'), 'month', 3).toISOString()).toBe('2026-02-15T00:00:00.000Z');
  });

  it('find the period running now, counted from the anchor so the billing day does not drift', () => {
    const anchor = d('2025-01-31T00:00:00Z');
    expect(periodEndAt(anchor, 'month', d('2025-02-01T00:00:00Z')).toISOString()).toBe('2025-02-28T00:00:00.000Z');
    expect(periodEndAt(anchor, 'month', d('2025-03-01T00:00:00Z')).toISOString()).toBe('2025-03-31T00:00:00.000Z');
    expect(periodEndAt(anchor, 'year', d('2026-06-01T00:00:00Z')).toISOString()).toBe('2027-01-31T00:00:00.000Z');
  });

  it('always end after now and at most one interval later', () => {
    fc.assert(
      fc.property(
        fc.date({ min: d('2000-01-01T00:00:00Z'), max: d('2090-01-01T00:00:00Z'), noInvalidDate: true }),
        fc.integer({ min: 0, max: 5000 * 24 * 3600 * 1000 }),
        fc.constantFrom('month' as const, 'year' as const),
        (anchor, offset, interval) => {
          const now = new Date(anchor.getTime() + offset);
          const end = periodEndAt(anchor, interval, now);
          expect(end.getTime()).toBeGreaterThan(now.getTime());
          const days = interval === 'month' ? 31 : 366;
          expect(end.getTime() - now.getTime()).toBeLessThanOrEqual(days * 24 * 3600 * 1000);
        },
      ),
    );
  });
});

describe('effectiveTier', () => {
  const end = d('2025-02-01T00:00:00Z');
  const sub = (cancelAtPeriodEnd: boolean) => ({ status: 'active' as const, cancelAtPeriodEnd, currentPeriodEnd: end, pastDueSince: null });
  it('keeps a cancelled plan until its period ends, then is free', () => {
    expect(effectiveTier({ plan: 'pro', subscription: sub(true) }, d('2025-01-31T23:59:59.999Z'), 7)).toBe('pro');
    expect(effectiveTier({ plan: 'pro', subscription: sub(true) }, end, 7)).toBe('free');
    expect(effectiveTier({ plan: 'pro', subscription: sub(false) }, d('2030-01-01T00:00:00Z'), 7)).toBe('pro');
    expect(effectiveTier({ plan: 'team', subscription: null }, end, 7)).toBe('team');
  });

  it('keeps a past_due plan for the grace days after the failed renewal, then is free', () => {
    const since = d('2025-02-01T10:00:00Z');
    const pastDue = { status: 'past_due' as const, cancelAtPeriodEnd: false, currentPeriodEnd: d('2025-03-01T00:00:00Z'), pastDueSince: since };
    expect(effectiveTier({ plan: 'pro', subscription: pastDue }, d('2025-02-08T09:59:59.999Z'), 7)).toBe('pro');
    expect(effectiveTier({ plan: 'pro', subscription: pastDue }, d('2025-02-08T10:00:00Z'), 7)).toBe('free');
    expect(effectiveTier({ plan: 'pro', subscription: pastDue }, d('2025-02-02T10:00:00Z'), 1)).toBe('free');
  });

  it('keeps a subscription ended at the provider until the period paid for is over', () => {
    const canceled = { status: 'canceled' as const, cancelAtPeriodEnd: false, currentPeriodEnd: end, pastDueSince: null };
    expect(effectiveTier({ plan: 'team', subscription: canceled }, d('2025-01-20T00:00:00Z'), 7)).toBe('team');
    expect(effectiveTier({ plan: 'team', subscription: canceled }, end, 7)).toBe('free');
  });
});

describe('overLimitDeployError', () => {
  it('refuses deploys while the workspace has more projects than the plan allows, saying how to fit', () => {
    expect(overLimitDeployError('free', free, { projects: free.projects! })).toBeNull();
    expect(overLimitDeployError('team', team, { projects: 1000 })).toBeNull();
    const error = overLimitDeployError('free', { ...free, projects: 1 }, { projects: 3 });
    expect(error?.getStatus()).toBe(402);
    expect(error?.body()).toMatchObject({ code: 'quota_exceeded', quota: 'projects', limit: 1, usage: 3, plan: 'free' });
    expect(error!.body().message).toContain('deploys are paused until it fits. Delete 2 projects or upgrade the plan');
  });

  it('says storage is already over the limit rather than counting what the deploy adds', () => {
    const error = storageQuotaError('free', { ...free, storageBytes: 1024 }, 4096, 0);
    expect(error!.body().message).toContain('This workspace stores 4 KB in live and archived deployments and the free plan allows 1 KB');
  });
});
