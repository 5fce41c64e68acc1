import { randomBytes } from 'node:crypto';

import { AnalyticsRecorder } from '../../src/analytics/analytics-recorder.service';
import { OverageReporter } from '../../src/billing/overage-reporter.service';
import { newId } from '../../src/common/ids';
import { Clock } from '../../src/common/time';
import { OutboxService } from '../../src/outbox/outbox.service';
import { QuotaService } from '../../src/quotas/quota.service';
import { SitePauses } from '../../src/quotas/site-pauses.service';
import { startTestApp, type TestApp } from '../helpers/app';
import { bearer } from '../helpers/identity';
import { site } from '../helpers/sites';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp';
import { lazyDeploy, newTenant, saveCard, type Tenant } from './billing-helpers';
import { FakeStripe } from './fake-stripe';

/** The page every test serves: 10 000 bytes of text that does not compress away. */
const PAGE = randomBytes(7500).toString('base64');
/** Free: about four reads of the page a month; pro: about two, then overage; team: unlimited. */
const FREE_LIMIT = 40_000;
const PRO_LIMIT = 20_000;
const PLANS = JSON.stringify({
  free: { projects: null, deploymentsPerMonth: null, storageBytes: null, maxTtl: null, bandwidthBytesPerMonth: FREE_LIMIT, buildMinutesPerMonth: 4 },
  pro: { bandwidthBytesPerMonth: PRO_LIMIT },
  team: { bandwidthBytesPerMonth: null },
});

/**
 * Issue 31, metering: bandwidth counted from the analytics pipeline's counters, the
 * 50/75/100 % alerts (mail to the owners over real SMTP), the spend cap pausing and
 * resuming sites, and overage reported to the Stripe stand-in as meter events, once.
 */
describe('Bandwidth, alerts and the spend cap (e2e)', () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let stripePort: number;
  const stripe = new FakeStripe();

  beforeAll(async () => {
    const { port } = await stripe.start();
    stripePort = port;
    smtp = await startSmtpServer();
    t = await startTestApp({
      env: {
        ...stripe.env(port),
        PLANS_JSON: PLANS,
        SMTP_URL: smtp.url,
        STRIPE_METER_EVENT_NAME: 'bandwidth_overage_bytes',
        ANALYTICS_FLUSH_SECONDS: '0',
        SPEND_CAP_REFRESH_SECONDS: '0',
        OVERAGE_REPORT_INTERVAL_SECONDS: '0',
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
    await stripe.stop();
  });
  afterEach(() => {
    jest.restoreAllMocks();
    stripe.failing = false;
  });

  const moveClockTo = (at: string) => jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => new Date(at));
  const flush = () => t.app.get(AnalyticsRecorder).flush();
  /** A read of the page without compression, so every read is the same number of bytes. */
  const read = (slug: string) => site(t, slug).get('/').set('Accept-Encoding', 'identity').set('User-Agent', 'MeteringTest/1.0');
  const readTimes = async (slug: string, n: number) => {
    for (let i = 0; i < n; i++) await read(slug).expect(200);
  };
  const published = async (tenant: Tenant) => {
    const slug = `metered-${randomBytes(4).toString('hex')}`;
    const res = await lazyDeploy(t, tenant, slug, [{ path: 'index.html', content: PAGE }]);
    if (res.status !== 201) throw new Error(`deploy: ${res.status} ${JSON.stringify(res.body)}`);
    return slug;
  };
  const usage = async (tenant: Tenant) =>
    (await t.http().get(`/billing/usage?workspaceId=${tenant.workspaceId}`).set(bearer(tenant.owner.accessToken)).expect(200)).body;
  const setCap = (tenant: Tenant, pauseSitesAtLimit: unknown) =>
    t.http().put('/billing/spend-cap').set(bearer(tenant.owner.accessToken)).send({ workspaceId: tenant.workspaceId, pauseSitesAtLimit });
  const bandwidthRow = async (tenant: Tenant) =>
    (await t.dataSource.query('SELECT month::text AS month, bandwidth_bytes FROM workspace_monthly_usage WHERE workspace_id = $1 ORDER BY month', [
      tenant.workspaceId,
    ])) as { month: string; bandwidth_bytes: string }[];

  it('counts the bytes of a known number of site reads exactly, per workspace and month, at the flush', async () => {
    moveClockTo('2030-01-31T20:00:00.000Z');
    const a = await newTenant(t);
    const slug = await published(a);
    await read(slug).expect(200);
    // Nothing is counted on the request path: only the flush writes it.
    expect(await bandwidthRow(a)).toEqual([{ month: '2030-01-01', bandwidth_bytes: '0' }]); // the deploy's count
    await flush();
    const [first] = await bandwidthRow(a);
    expect(first.month).toBe('2030-01-01');
    const one = Number(first.bandwidth_bytes);
    // The body and the headers of one answer.
    expect(one).toBeGreaterThan(PAGE.length);
    expect(one).toBeLessThan(PAGE.length + 2000);

    await readTimes(slug, 2);
    await flush();
    expect(Number((await bandwidthRow(a))[0].bandwidth_bytes)).toBe(3 * one);

    const body = await usage(a);
    expect(body.limits.bandwidthBytesPerMonth).toBe(FREE_LIMIT);
    expect(body.usage.bandwidthBytesPerMonth).toEqual({
      used: 3 * one,
      limit: FREE_LIMIT,
      resetsAt: '2030-02-01T00:00:00.000Z',
      percent: Math.round((3 * one * 1000) / FREE_LIMIT) / 10,
    });
    // Every item has its percentage; unlimited ones have null.
    expect(body.usage.projects).toEqual({ used: 1, limit: null, percent: null });
    expect(body.spendCap).toEqual({ pauseSitesAtLimit: false, sitesPaused: false });
    // The workspace page shows the same figures.
    const ws = (await t.http().get(`/workspaces/${a.workspaceId}`).set(bearer(a.owner.accessToken)).expect(200)).body;
    expect(ws.usage.bandwidthBytesPerMonth.used).toBe(3 * one);

    // A read in the next month counts in the next month.
    moveClockTo('2030-02-01T00:00:01.000Z');
    await read(slug).expect(200);
    await flush();
    expect(await bandwidthRow(a)).toEqual([
      { month: '2030-01-01', bandwidth_bytes: String(3 * one) },
      { month: '2030-02-01', bandwidth_bytes: String(one) },
    ]);
  });

  it('a flush that fails after adding the bandwidth counts nothing, and its retry counts each read once', async () => {
    moveClockTo('2030-01-15T12:00:00.000Z');
    const a = await newTenant(t);
    const slug = await published(a);
    await read(slug).expect(200);
    await flush();
    const one = Number((await bandwidthRow(a))[0].bandwidth_bytes);
    expect(one).toBeGreaterThan(0);

    await readTimes(slug, 3);
    // The database goes away after the bandwidth was added, before the flush's transaction commits.
    const quotas = t.app.get(QuotaService);
    const real = quotas.countBandwidth.bind(quotas);
    jest.spyOn(quotas, 'countBandwidth').mockImplementationOnce(async (m, served) => {
      await real(m, served);
      throw new Error('connection lost mid-flush');
    });
    await expect(flush()).rejects.toThrow('connection lost mid-flush');
    expect(Number((await bandwidthRow(a))[0].bandwidth_bytes)).toBe(one);
    // The next flush (the counters were put back) counts the three reads once.
    await flush();
    expect(Number((await bandwidthRow(a))[0].bandwidth_bytes)).toBe(4 * one);
    await flush();
    expect(Number((await bandwidthRow(a))[0].bandwidth_bytes)).toBe(4 * one);
  });

  it('announces 50, 75 and 100 % of the bandwidth limit once each: an event and a mail to the owner', async () => {
    moveClockTo('2030-03-05T08:00:00.000Z');
    const b = await newTenant(t);
    const slug = await published(b);
    const mailsTo = () => smtp.received.filter((m) => m.rcptTo.includes(b.owner.email) && m.parsed.subject!.includes('bandwidth'));
    const thresholds = async () =>
      (
        await t.dataSource.query(`SELECT percent FROM usage_thresholds WHERE workspace_id = $1 AND metric = 'bandwidthBytesPerMonth' ORDER BY percent`, [
          b.workspaceId,
        ])
      ).map((r: { percent: number }) => r.percent);

    // Each read is about 26 % of the limit: the 2nd passes 50 %, the 3rd 75 %, the 4th 100 %.
    for (const expected of [[], [50], [50, 75], [50, 75, 100]]) {
      await read(slug).expect(200);
      await flush();
      expect(await thresholds()).toEqual(expected);
    }
    // More reads past the limit, more flushes: nothing more.
    await readTimes(slug, 2);
    await flush();
    expect(await thresholds()).toEqual([50, 75, 100]);

    await t.app.get(OutboxService).runOnce();
    const mails = mailsTo();
    expect(mails.map((m) => /has used (\d+) % of its bandwidth this month$/.exec(m.parsed.subject!)?.[1]).sort()).toEqual(['100', '50', '75']);
    const full = mails.find((m) => m.parsed.subject!.includes('100 %'))!;
    expect(full.parsed.text).toContain('The spend cap is off: the sites keep serving');
    // A free plan is not billed for overage, and its deploys are refused past the limit.
    expect(full.parsed.text).not.toContain('overage');
    expect(full.parsed.text).toContain('New deploys are refused (402) until the month ends or the plan is upgraded');
    expect(full.parsed.text).toContain(`${t.config.apiBaseUrl}/app/w/${b.workspaceId}/billing`);
    expect(full.parsed.text).toContain('The count starts again at 2030-04-01T00:00:00.000Z');

    // Past the limit the sites keep serving (no cap), but deploys answer 402 naming the limit.
    await read(slug).expect(200);
    const refused = await lazyDeploy(t, b, slug, [{ path: 'index.html', content: 'new' }]).expect(402);
    expect(refused.body).toMatchObject({ code: 'quota_exceeded', quota: 'bandwidthBytesPerMonth', limit: FREE_LIMIT, resetsAt: '2030-04-01T00:00:00.000Z' });
    expect(refused.body.message).toContain('deploys are refused until the count starts again at 2030-04-01T00:00:00.000Z');
  });

  it('announces 50, 75 and 100 % of the build minutes as each finished build’s minutes are counted', async () => {
    moveClockTo('2030-03-06T08:00:00.000Z');
    const g = await newTenant(t);
    const slug = await published(g);
    const [{ id: projectId }] = await t.dataSource.query('SELECT id FROM projects WHERE slug = $1', [slug]);
    const quotas = t.app.get(QuotaService);
    const thresholds = async () =>
      (
        await t.dataSource.query(`SELECT percent FROM usage_thresholds WHERE workspace_id = $1 AND metric = 'buildMinutesPerMonth' ORDER BY percent`, [
          g.workspaceId,
        ])
      ).map((r: { percent: number }) => r.percent);
    // What the builder does as a build ends: its duration written, then its minutes counted in the same transaction.
    const finishBuild = (durationMs: number) =>
      t.dataSource.transaction(async (m) => {
        await m.query(
          `INSERT INTO builds (id, project_id, workspace_id, status, trigger, ref, created_by, started_at, finished_at, duration_ms)
           VALUES ($1, $2, $3, 'ready', 'manual', 'main', $4, $5, $5, $6)`,
          [newId('bld'), projectId, g.workspaceId, g.owner.userId, new Date('2030-03-06T08:00:00.000Z'), durationMs],
        );
        await quotas.countBuildMinutes(m, g.workspaceId, durationMs);
      });
    // The plan allows 4 minutes: 2 (rounded up from 90 s) is 50 %, 3 is 75 %, 4 is 100 %; a fifth announces nothing new.
    for (const [ms, expected] of [
      [90_000, [50]],
      [10_000, [50, 75]],
      [60_000, [50, 75, 100]],
      [60_000, [50, 75, 100]],
    ] as const) {
      await finishBuild(ms);
      expect(await thresholds()).toEqual(expected);
    }
    await t.app.get(OutboxService).runOnce();
    const subjects = smtp.received.filter((m) => m.rcptTo.includes(g.owner.email) && m.parsed.subject!.includes('build minutes')).map((m) => m.parsed.subject);
    expect(subjects).toHaveLength(3);
  });

  it('with the spend cap on, pauses every site of the workspace at the limit (503, Retry-After, a page), and resumes them when the cap is turned off or the plan upgraded', async () => {
    moveClockTo('2030-01-20T00:00:00.000Z');
    const c = await newTenant(t);
    const slug = await published(c);
    const other = await published(c);

    expect((await setCap(c, true).expect(200)).body).toEqual({ workspaceId: c.workspaceId, pauseSitesAtLimit: true, sitesPaused: false });
    await readTimes(slug, 3);
    await flush();
    await read(slug).expect(200); // under the limit still
    await flush();

    for (const s of [slug, other]) {
      const paused = await read(s).expect(503);
      // Twelve days to the next month.
      expect(paused.headers['retry-after']).toBe(String(12 * 86_400));
      expect(paused.headers['cache-control']).toBe('no-store');
      expect(paused.text).toContain('<h1>Site paused</h1>');
      expect(paused.text).toContain('paused by its owner&#39;s usage limit');
    }
    // The deployment's own preview address is paused too.
    await site(t, `${slug}--1`).get('/').expect(503);
    expect((await t.http().get(`/billing/spend-cap?workspaceId=${c.workspaceId}`).set(bearer(c.owner.accessToken)).expect(200)).body).toEqual({
      workspaceId: c.workspaceId,
      pauseSitesAtLimit: true,
      sitesPaused: true,
    });
    expect((await usage(c)).spendCap).toEqual({ pauseSitesAtLimit: true, sitesPaused: true });

    // The cap off: serving again at once.
    expect((await setCap(c, false).expect(200)).body).toEqual({ workspaceId: c.workspaceId, pauseSitesAtLimit: false, sitesPaused: false });
    await read(slug).expect(200);
    await setCap(c, true).expect(200);
    await read(slug).expect(503);

    // An upgrade to a plan without a bandwidth limit: serving again at the next refresh (every SPEND_CAP_REFRESH_SECONDS).
    await saveCard(t, c, 'pm_card_visa');
    await t
      .http()
      .post('/billing/activate-plan')
      .set(bearer(c.owner.accessToken))
      .send({ workspaceId: c.workspaceId, tier: 'team', interval: 'month' })
      .expect(200);
    await t.app.get(SitePauses).refresh();
    await read(slug).expect(200);
    expect((await usage(c)).spendCap).toEqual({ pauseSitesAtLimit: true, sitesPaused: false });
  });

  it('resumes paused sites when the next month starts, before any refresh', async () => {
    moveClockTo('2030-05-31T23:00:00.000Z');
    const d = await newTenant(t);
    const slug = await published(d);
    await setCap(d, true).expect(200);
    await readTimes(slug, 4);
    await flush();
    const paused = await read(slug).expect(503);
    expect(paused.headers['retry-after']).toBe('3600');
    moveClockTo('2030-06-01T00:00:00.000Z');
    await read(slug).expect(200);
  });

  it('pauses on another instance at its next refresh (SPEND_CAP_REFRESH_SECONDS), without a query per request', async () => {
    moveClockTo('2030-08-10T10:00:00.000Z');
    const b = await startTestApp({
      sibling: t,
      env: { ...stripe.env(stripePort), PLANS_JSON: PLANS, ANALYTICS_FLUSH_SECONDS: '0', SPEND_CAP_REFRESH_SECONDS: '0' },
    });
    try {
      jest.spyOn(b.app.get(Clock), 'now').mockImplementation(() => new Date('2030-08-10T10:00:00.000Z'));
      const h = await newTenant(t);
      const slug = await published(h);
      await setCap(h, true).expect(200);
      await readTimes(slug, 4);
      await flush();
      await read(slug).expect(503);
      // The other instance still serves until it reads the set again.
      await site(b, slug).get('/').expect(200);
      await b.app.get(SitePauses).refresh();
      await site(b, slug).get('/').expect(503);
    } finally {
      await b.close();
    }
  });

  it('reports overage past a paid plan’s limit to Stripe as meter events, each byte once, with an identifier a retry repeats', async () => {
    moveClockTo('2030-07-10T10:00:00.000Z');
    const e = await newTenant(t);
    await saveCard(t, e, 'pm_card_visa');
    await t
      .http()
      .post('/billing/activate-plan')
      .set(bearer(e.owner.accessToken))
      .send({ workspaceId: e.workspaceId, tier: 'pro', interval: 'month' })
      .expect(200);
    const [{ customer_ref: customer }] = await t.dataSource.query('SELECT customer_ref FROM billing_customers WHERE workspace_id = $1', [e.workspaceId]);
    const slug = await published(e);
    const reporter = t.app.get(OverageReporter);
    const mine = () => stripe.meterEvents.filter((ev) => ev.payload.stripe_customer_id === customer);
    const meterCalls = () => stripe.calls.filter((c) => c.path === '/v1/billing/meter_events' && c.form['payload[stripe_customer_id]'] === customer);

    // Under the limit: nothing to report.
    await read(slug).expect(200);
    await flush();
    await reporter.runOnce();
    expect(mine()).toEqual([]);

    await readTimes(slug, 2);
    await flush();
    const used = Number((await bandwidthRow(e))[0].bandwidth_bytes);
    const over = used - PRO_LIMIT;
    expect(over).toBeGreaterThan(0);
    await reporter.runOnce();
    expect(mine()).toEqual([
      {
        event_name: 'bandwidth_overage_bytes',
        identifier: `statichost-bandwidth-${e.workspaceId}-2030-07-01-${over}`,
        payload: { stripe_customer_id: customer, value: String(over) },
        timestamp: Date.parse('2030-07-10T10:00:00.000Z') / 1000,
      },
    ]);
    // Reported once: the next round sends nothing.
    await reporter.runOnce();
    expect(meterCalls()).toHaveLength(1);

    // More overage while Stripe fails: the same event is sent again on the next round, and counted once.
    await read(slug).expect(200);
    await flush();
    const over2 = Number((await bandwidthRow(e))[0].bandwidth_bytes) - PRO_LIMIT;
    stripe.failing = true;
    expect(await reporter.runOnce()).toMatchObject({ ran: true, reported: 0, failed: 1 });
    stripe.failing = false;
    // Bytes served meanwhile wait for the report in flight to go out first.
    await read(slug).expect(200);
    await flush();
    expect(await reporter.runOnce()).toMatchObject({ reported: 1, failed: 0 });
    const identifier2 = `statichost-bandwidth-${e.workspaceId}-2030-07-01-${over2}`;
    expect(
      new Set(
        meterCalls()
          .slice(1)
          .map((c) => c.form.identifier),
      ),
    ).toEqual(new Set([identifier2]));
    expect(mine().map((ev) => [ev.identifier, ev.payload.value])).toEqual([
      [`statichost-bandwidth-${e.workspaceId}-2030-07-01-${over}`, String(over)],
      [identifier2, String(over2 - over)],
    ]);
    // The bytes served while that report was in flight go out in the next round.
    await reporter.runOnce();
    const over3 = Number((await bandwidthRow(e))[0].bandwidth_bytes) - PRO_LIMIT;
    expect(
      mine()
        .map((ev) => Number(ev.payload.value))
        .reduce((x, y) => x + y, 0),
    ).toBe(over3);
  });

  it('bills overage against the plan in force when the bytes were served: a downgrade on the 1st does not bill last month against the smaller plan', async () => {
    moveClockTo('2030-09-10T10:00:00.000Z');
    const e = await newTenant(t);
    await saveCard(t, e, 'pm_card_visa');
    const activate = (tier: string) =>
      t.http().post('/billing/activate-plan').set(bearer(e.owner.accessToken)).send({ workspaceId: e.workspaceId, tier, interval: 'month' }).expect(200);
    await activate('team');
    const [{ customer_ref: customer }] = await t.dataSource.query('SELECT customer_ref FROM billing_customers WHERE workspace_id = $1', [e.workspaceId]);
    const slug = await published(e);
    // Past pro's limit, on team (no limit): no overage.
    await readTimes(slug, 3);
    await flush();
    expect(Number((await bandwidthRow(e))[0].bandwidth_bytes)).toBeGreaterThan(PRO_LIMIT);

    // On the 1st the owner moves to pro; September was served on team.
    moveClockTo('2030-10-01T08:00:00.000Z');
    await activate('pro');
    await t.app.get(OverageReporter).runOnce();
    expect(stripe.meterEvents.filter((ev) => ev.payload.stripe_customer_id === customer)).toEqual([]);
  });

  it('refuses a spend cap that is not a boolean (400) and an API token (403), and changes nothing', async () => {
    const f = await newTenant(t);
    const bad = await setCap(f, 'yes').expect(400);
    expect(bad.body.message).toContain('pauseSitesAtLimit');
    expect(bad.body.message).toContain('must be true or false');
    await t.http().put('/billing/spend-cap').set(bearer(f.token)).send({ workspaceId: f.workspaceId, pauseSitesAtLimit: true }).expect(403);
    expect(await t.dataSource.query('SELECT 1 FROM workspace_spend_caps WHERE workspace_id = $1', [f.workspaceId])).toEqual([]);
  });
});
