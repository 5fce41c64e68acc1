import { formatAnalytics, type ProjectAnalytics } from './analytics';

const point = (time: string, n: number) => ({
  time,
  pageViews: n,
  visitors: n ? 1 : 0,
  requests: n,
  bytes: n * 1000,
  status4xx: 0,
  status5xx: 0,
  botRequests: 0,
});

describe('formatAnalytics', () => {
  const base: ProjectAnalytics = {
    projectId: 'proj_x',
    from: '2026-11-21T00:00:00.000Z',
    to: '2026-11-24T00:00:00.000Z',
    interval: 'day',
    totals: { pageViews: 12, visitors: 3, requests: 20, bytes: 2048, status4xx: 1, status5xx: 0, botRequests: 2 },
    series: [point('2026-11-21T00:00:00.000Z', 0), point('2026-11-22T00:00:00.000Z', 5), point('2026-11-23T00:00:00.000Z', 7)],
    topPages: [{ path: '/', pageViews: 9 }],
    topReferrers: [{ host: 'news.ycombinator.com', pageViews: 4 }],
    topNotFound: [{ path: '/old', requests: 1 }],
    funnel: { gateType: 'none', gateViews: 0, wrongPasswords: 0, unlocks: 0, emailsCaptured: 0, unlockRate: null },
  };

  it('prints totals, the lists and the days with traffic', () => {
    const out = formatAnalytics(base);
    expect(out).toContain('2026-11-21 00:00 → 2026-11-24 00:00 UTC, by day');
    expect(out).toContain('Page views 12   Visitors 3   Requests 20   Sent 2 KB');
    expect(out).toMatch(/PAGE\s+VIEWS\n\/\s+9/);
    expect(out).toMatch(/news\.ycombinator\.com\s+4/);
    expect(out).toMatch(/\/old\s+1/);
    expect(out).toContain('2026-11-22');
    expect(out).not.toContain('2026-11-21  '); // a day without traffic is left out
    expect(out).not.toContain('Gate');
  });

  it('prints the gate funnel with its rate', () => {
    const out = formatAnalytics({ ...base, funnel: { gateType: 'email', gateViews: 8, wrongPasswords: 0, unlocks: 2, emailsCaptured: 2, unlockRate: 0.25 } });
    expect(out).toContain('Gate (email): 8 views → 2 unlocks (25.0 %), 2 emails');
  });
});
