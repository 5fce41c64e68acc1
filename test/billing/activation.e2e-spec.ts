import { AuditLogService } from '../../src/audit/audit-log.service';
import { BillingSweeper } from '../../src/billing/billing-sweeper.service';
import { Clock } from '../../src/common/time';
import { QuotaService } from '../../src/quotas/quota.service';
import { startTestApp, type TestApp } from '../helpers/app';
import { addMember, asUser, bearer, createApiToken, registerUser } from '../helpers/identity';
import { someoneWaits } from '../helpers/row-lock';
import { activate, createProject, newTenant, saveCard, tally, type Tenant, workspace } from './billing-helpers';

/**
 * Plan activation with the local payment provider (the self-hosting default):
 * who may activate, what it needs, and that the new limits apply at once.
 */
const PLANS = { free: { projects: 1 }, pro: { projects: 3 }, team: { projects: 5 } };
const DAY = 24 * 3_600_000;

describe('Billing with the local provider (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { PLANS_JSON: JSON.stringify(PLANS) } });
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await t?.close();
  });
  afterEach(() => jest.restoreAllMocks());

  const moveClockTo = (at: Date) => jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => new Date(at));
  const subscription = async (tenant: Tenant) =>
    (await t.http().get('/billing/subscription').query({ workspaceId: tenant.workspaceId }).set(bearer(tenant.owner.accessToken)).expect(200)).body;
  const subscriptionRow = async (tenant: Tenant) => (await t.dataSource.query('SELECT * FROM subscriptions WHERE workspace_id = $1', [tenant.workspaceId]))[0];

  describe('POST /billing/activate-plan', () => {
    it('activates at once with the saved payment method: 200 {success, tier, status}', async () => {
      const a = await newTenant(t);
      await saveCard(t, a);
      const res = await activate(t, a.owner, a.workspaceId, 'pro', 'month').expect(200);
      expect(res.body).toEqual({ success: true, tier: 'pro', status: 'active' });
      expect((await workspace(t, a)).plan).toBe('pro');
      expect(await subscription(a)).toEqual({
        workspaceId: a.workspaceId,
        tier: 'pro',
        interval: 'month',
        status: 'active',
        cancelAtPeriodEnd: false,
        currentPeriodEnd: expect.any(String),
        provider: 'local',
        pastDueSince: null,
        graceEndsAt: null,
        disputed: false,
      });
    });

    it('answers 402 payment_method_required when no payment method is saved, and changes nothing', async () => {
      const a = await newTenant(t);
      const res = await activate(t, a.owner, a.workspaceId, 'pro').expect(402);
      expect(res.body).toMatchObject({ statusCode: 402, error: 'Payment Required', code: 'payment_method_required' });
      expect(res.body.message).toContain('POST /billing/payment-methods');
      expect((await workspace(t, a)).plan).toBe('free');
      expect(await subscriptionRow(a)).toBeUndefined();
    });

    it('is idempotent: repeating it changes nothing, and ten at once make one subscription', async () => {
      const a = await newTenant(t);
      await saveCard(t, a);
      const results = await Promise.all(Array.from({ length: 10 }, () => activate(t, a.owner, a.workspaceId, 'team', 'year')));
      expect(tally(results)).toEqual({ 200: 10 });
      for (const r of results) expect(r.body).toEqual({ success: true, tier: 'team', status: 'active' });
      const before = await subscriptionRow(a);
      await activate(t, a.owner, a.workspaceId, 'team', 'year').expect(200);
      expect(await subscriptionRow(a)).toEqual(before);
      const [customer] = await t.dataSource.query('SELECT subscriptions_started FROM billing_customers WHERE workspace_id = $1', [a.workspaceId]);
      expect(customer.subscriptions_started).toBe(1);
    });

    it('needs a JWT: an API token, even an admin one, gets 403', async () => {
      const a = await newTenant(t);
      await saveCard(t, a);
      const token = await createApiToken(t, a.owner, { scopes: ['admin', 'deploy', 'read', 'delete'] });
      const res = await t
        .http()
        .post('/billing/activate-plan')
        .set(bearer(token.token))
        .send({ workspaceId: a.workspaceId, tier: 'pro', interval: 'month' })
        .expect(403);
      expect(res.body.code).toBe('wrong_credential_kind');
      await t.http().post('/billing/activate-plan').send({ workspaceId: a.workspaceId, tier: 'pro', interval: 'month' }).expect(401);
      expect((await workspace(t, a)).plan).toBe('free');
    });

    it('is for the workspace’s owners: admins and viewers get 403 owner_required, others 403 not_a_member', async () => {
      const a = await newTenant(t);
      await saveCard(t, a);
      const admin = await registerUser(t);
      const viewer = await registerUser(t);
      const stranger = await registerUser(t);
      await addMember(t, a.owner, admin, 'admin');
      await addMember(t, a.owner, viewer, 'viewer');
      for (const member of [admin, viewer]) {
        const res = await activate(t, member, a.workspaceId, 'pro').expect(403);
        expect(res.body).toMatchObject({ code: 'owner_required' });
      }
      const res = await activate(t, stranger, a.workspaceId, 'pro').expect(403);
      expect(res.body).toMatchObject({ code: 'not_a_member', message: `You are not a member of workspace ${a.workspaceId}` });
      // A workspace that does not exist looks the same as one the caller is not in.
      expect((await activate(t, stranger, 'ws_000000000000000000000000', 'pro').expect(403)).body.code).toBe('not_a_member');
      expect((await workspace(t, a)).plan).toBe('free');
      // A second owner may.
      const coOwner = await registerUser(t);
      await addMember(t, a.owner, coOwner, 'owner');
      await activate(t, coOwner, a.workspaceId, 'pro').expect(200);
    });

    it('refuses an X-Workspace-Id that names another workspace than the body', async () => {
      const a = await newTenant(t);
      const b = await newTenant(t);
      await addMember(t, b.owner, a.owner, 'owner');
      const res = await t
        .http()
        .post('/billing/activate-plan')
        .set(asUser(a.owner, b.workspaceId))
        .send({ workspaceId: a.workspaceId, tier: 'pro', interval: 'month' })
        .expect(403);
      expect(res.body.code).toBe('workspace_mismatch');
    });

    it.each([
      [{ tier: 'free', interval: 'month' }, 'tier: must be one of: pro, team'],
      [{ tier: 'enterprise', interval: 'month' }, 'tier: must be one of: pro, team'],
      [{ tier: 'pro', interval: 'week' }, 'interval: must be one of: month, year'],
      [{ tier: 'pro' }, 'interval: must be one of: month, year'],
      [{ interval: 'month' }, 'tier: must be one of: pro, team'],
      [{ tier: 'pro', interval: 'month', workspaceId: 'acme' }, 'workspaceId: must be a workspace id (ws_'],
      [{ tier: 'pro', interval: 'month', plan: 'team' }, 'plan: property plan should not exist'],
    ])('answers 400 for %j', async (body, message) => {
      const a = await newTenant(t);
      const res = await t
        .http()
        .post('/billing/activate-plan')
        .set(bearer(a.owner.accessToken))
        .send({ workspaceId: a.workspaceId, ...body })
        .expect(400);
      expect(res.body.message).toContain(message);
    });

    it('puts new limits in force on the very next request', async () => {
      const a = await newTenant(t);
      await createProject(t, a, { name: 'one' }).expect(201);
      expect((await createProject(t, a, { name: 'two' }).expect(402)).body).toMatchObject({ plan: 'free', limit: 1 });
      await saveCard(t, a);
      await activate(t, a.owner, a.workspaceId, 'pro').expect(200);
      await createProject(t, a, { name: 'two' }).expect(201);
      await createProject(t, a, { name: 'three' }).expect(201);
      expect((await createProject(t, a, { name: 'four' }).expect(402)).body).toMatchObject({ plan: 'pro', limit: 3 });
      await activate(t, a.owner, a.workspaceId, 'team').expect(200);
      await createProject(t, a, { name: 'four' }).expect(201);
      // Down to pro with 4 projects: nothing is deleted, the next create is refused.
      await activate(t, a.owner, a.workspaceId, 'pro').expect(200);
      expect((await createProject(t, a, { name: 'five' }).expect(402)).body).toMatchObject({ plan: 'pro', limit: 3, usage: 4 });
    });

    it('changes tier and interval of a running subscription; a new interval starts a new period', async () => {
      const start = new Date('2030-01-31T10:00:00.000Z');
      moveClockTo(start);
      const a = await newTenant(t);
      await saveCard(t, a);
      await activate(t, a.owner, a.workspaceId, 'pro', 'month').expect(200);
      expect((await subscription(a)).currentPeriodEnd).toBe('2030-02-28T10:00:00.000Z');
      moveClockTo(new Date('2030-02-10T00:00:00.000Z'));
      await activate(t, a.owner, a.workspaceId, 'team', 'month').expect(200);
      expect(await subscription(a)).toMatchObject({ tier: 'team', interval: 'month', currentPeriodEnd: '2030-02-28T10:00:00.000Z' });
      await activate(t, a.owner, a.workspaceId, 'team', 'year').expect(200);
      expect(await subscription(a)).toMatchObject({ tier: 'team', interval: 'year', currentPeriodEnd: '2031-02-10T00:00:00.000Z' });
      // A monthly plan renews by itself: later, the period shown is the one running then.
      await activate(t, a.owner, a.workspaceId, 'pro', 'month').expect(200);
      moveClockTo(new Date('2030-05-01T00:00:00.000Z'));
      expect(await subscription(a)).toMatchObject({ tier: 'pro', status: 'active', currentPeriodEnd: '2030-05-10T00:00:00.000Z' });
    });
  });

  describe('beside deploys', () => {
    it('a plan change waits for a deploy of the workspace instead of deadlocking with it', async () => {
      const a = await newTenant(t);
      await saveCard(t, a);
      await activate(t, a.owner, a.workspaceId, 'pro', 'month').expect(200);
      // A deploy in the middle of its transaction: it holds the plan's row (QuotaService.lock)
      // and writes its audit entry next. The plan change wrote its own entry first and then
      // waited for the row: each waited for the other, and PostgreSQL ended one (a 500).
      const deploy = t.dataSource.createQueryRunner();
      await deploy.connect();
      await deploy.startTransaction();
      try {
        await t.app.get(QuotaService).lock(deploy.manager, a.workspaceId);
        const change = activate(t, a.owner, a.workspaceId, 'team', 'month').then((res) => res);
        await someoneWaits(t);
        await t.app.get(AuditLogService).record(deploy.manager, {
          workspaceId: a.workspaceId,
          action: 'deployment.created',
          target: { type: 'deployment', id: 'dep_underlock', label: 'under lock' },
        });
        await deploy.commitTransaction();
        const res = await change;
        expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { success: true, tier: 'team', status: 'active' } });
      } finally {
        if (deploy.isTransactionActive) await deploy.rollbackTransaction();
        await deploy.release();
      }
      expect((await workspace(t, a)).plan).toBe('team');
    });
  });

  describe('beside a provider’s event', () => {
    it('the sweeper ending a lapsed plan waits for a webhook changing the same subscription instead of deadlocking with it', async () => {
      const a = await newTenant(t);
      await saveCard(t, a);
      await activate(t, a.owner, a.workspaceId, 'pro', 'month').expect(200);
      await t.dataSource.query(
        `UPDATE subscriptions SET cancel_at_period_end = true, current_period_end = now() - interval '1 minute' WHERE workspace_id = $1`,
        [a.workspaceId],
      );
      // A provider's webhook in the middle of its transaction: it holds the workspace's row
      // (BillingRepository.lock) and writes the subscription next. The sweeper updated the
      // subscription first and then the workspace's plan: each waited for the other.
      const webhook = t.dataSource.createQueryRunner();
      await webhook.connect();
      await webhook.startTransaction();
      try {
        await webhook.query('SELECT 1 FROM workspaces WHERE id = $1 FOR NO KEY UPDATE', [a.workspaceId]);
        const sweep = t.app.get(BillingSweeper).runOnce();
        sweep.catch(() => undefined);
        await someoneWaits(t);
        await webhook.query('UPDATE subscriptions SET updated_at = now() WHERE workspace_id = $1', [a.workspaceId]);
        await webhook.commitTransaction();
        expect((await sweep).subscriptionsEnded).toBeGreaterThanOrEqual(1);
      } finally {
        if (webhook.isTransactionActive) await webhook.rollbackTransaction();
        await webhook.release();
      }
      expect((await workspace(t, a)).plan).toBe('free');
      expect(await subscriptionRow(a)).toMatchObject({ status: 'canceled' });
    });
  });

  describe('POST /billing/cancel and GET /billing/subscription', () => {
    it('keeps the plan until the period’s end, then returns the workspace to free', async () => {
      const start = new Date('2030-03-15T00:00:00.000Z');
      moveClockTo(start);
      const a = await newTenant(t);
      await saveCard(t, a);
      await activate(t, a.owner, a.workspaceId, 'pro', 'month').expect(200);
      await createProject(t, a, { name: 'one' }).expect(201);
      await createProject(t, a, { name: 'two' }).expect(201);

      const res = await t.http().post('/billing/cancel').set(bearer(a.owner.accessToken)).send({ workspaceId: a.workspaceId }).expect(200);
      expect(res.body).toEqual({
        workspaceId: a.workspaceId,
        tier: 'pro',
        interval: 'month',
        status: 'active',
        cancelAtPeriodEnd: true,
        currentPeriodEnd: '2030-04-15T00:00:00.000Z',
        provider: 'local',
        pastDueSince: null,
        graceEndsAt: null,
        disputed: false,
      });
      // Cancelling again is harmless.
      expect((await t.http().post('/billing/cancel').set(bearer(a.owner.accessToken)).send({ workspaceId: a.workspaceId }).expect(200)).body).toEqual(res.body);

      moveClockTo(new Date('2030-04-14T23:59:59.999Z'));
      expect((await workspace(t, a)).plan).toBe('pro');
      await createProject(t, a, { name: 'three' }).expect(201);

      moveClockTo(new Date('2030-04-15T00:00:00.000Z'));
      // In force at once, before the sweeper has written anything.
      expect((await workspace(t, a)).plan).toBe('free');
      expect((await createProject(t, a, { name: 'four' }).expect(402)).body).toMatchObject({ plan: 'free', limit: 1, usage: 3 });
      expect(await subscription(a)).toEqual({
        workspaceId: a.workspaceId,
        tier: 'free',
        interval: null,
        status: 'canceled',
        cancelAtPeriodEnd: false,
        currentPeriodEnd: '2030-04-15T00:00:00.000Z',
        provider: 'local',
        pastDueSince: null,
        graceEndsAt: null,
        disputed: false,
      });
      expect((await t.app.get(BillingSweeper).runOnce()).subscriptionsEnded).toBeGreaterThanOrEqual(1);
      expect((await t.dataSource.query('SELECT plan FROM workspaces WHERE id = $1', [a.workspaceId]))[0].plan).toBe('free');
      expect((await subscriptionRow(a)).status).toBe('canceled');
      // With nothing running, cancel has nothing to do.
      const again = await t.http().post('/billing/cancel').set(bearer(a.owner.accessToken)).send({ workspaceId: a.workspaceId }).expect(409);
      expect(again.body.code).toBe('no_subscription');
      // And a new activation starts a new subscription.
      await activate(t, a.owner, a.workspaceId, 'pro').expect(200);
      expect(await subscription(a)).toMatchObject({ tier: 'pro', status: 'active', currentPeriodEnd: '2030-05-15T00:00:00.000Z' });
    });

    it('resumes a cancelled plan when it is activated again before the period ends', async () => {
      const a = await newTenant(t);
      await saveCard(t, a);
      await activate(t, a.owner, a.workspaceId, 'pro').expect(200);
      await t.http().post('/billing/cancel').set(bearer(a.owner.accessToken)).send({ workspaceId: a.workspaceId }).expect(200);
      await activate(t, a.owner, a.workspaceId, 'pro').expect(200);
      expect(await subscription(a)).toMatchObject({ tier: 'pro', status: 'active', cancelAtPeriodEnd: false });
      moveClockTo(new Date(Date.now() + 400 * DAY));
      expect((await workspace(t, a)).plan).toBe('pro');
    });

    it('answers 409 no_subscription on the free plan; shows status none', async () => {
      const a = await newTenant(t);
      expect((await t.http().post('/billing/cancel').set(bearer(a.owner.accessToken)).send({ workspaceId: a.workspaceId }).expect(409)).body.code).toBe(
        'no_subscription',
      );
      expect(await subscription(a)).toEqual({
        workspaceId: a.workspaceId,
        tier: 'free',
        interval: null,
        status: 'none',
        cancelAtPeriodEnd: false,
        currentPeriodEnd: null,
        provider: null,
        pastDueSince: null,
        graceEndsAt: null,
        disputed: false,
      });
    });

    it('lets any member read the subscription, only owners cancel', async () => {
      const a = await newTenant(t);
      await saveCard(t, a);
      await activate(t, a.owner, a.workspaceId, 'pro').expect(200);
      const viewer = await registerUser(t);
      await addMember(t, a.owner, viewer, 'viewer');
      const seen = await t.http().get('/billing/subscription').query({ workspaceId: a.workspaceId }).set(bearer(viewer.accessToken)).expect(200);
      expect(seen.body.tier).toBe('pro');
      expect((await t.http().post('/billing/cancel').set(bearer(viewer.accessToken)).send({ workspaceId: a.workspaceId }).expect(403)).body.code).toBe(
        'owner_required',
      );
      const stranger = await registerUser(t);
      expect((await t.http().get('/billing/subscription').query({ workspaceId: a.workspaceId }).set(bearer(stranger.accessToken)).expect(403)).body.code).toBe(
        'not_a_member',
      );
      await t.http().get('/billing/subscription').set(bearer(a.owner.accessToken)).expect(400);
    });
  });

  describe('POST /billing/stripe/webhook', () => {
    it('answers 404 stripe_webhook_not_configured on an installation with the local provider, whatever is sent', async () => {
      const res = await t
        .http()
        .post('/billing/stripe/webhook')
        .set('Content-Type', 'application/json')
        .set('Stripe-Signature', 't=1,v1=00')
        .send('{"id":"evt_1","object":"event","type":"invoice.paid"}')
        .expect(404);
      expect(res.body).toMatchObject({ code: 'stripe_webhook_not_configured' });
      expect(res.body.message).toContain('STRIPE_WEBHOOK_SECRET');
      expect(await t.dataSource.query('SELECT 1 FROM billing_events')).toEqual([]);
    });
  });

  describe('GET /billing/plans', () => {
    it('gives every signed-in user the plan table as this installation configures it; API tokens get 403', async () => {
      const tenant = await newTenant(t);
      const res = await t.http().get('/billing/plans').set(bearer(tenant.owner.accessToken)).expect(200);
      expect(res.body.data.map((p: { tier: string }) => p.tier)).toEqual(['free', 'pro', 'team']);
      // PLANS_JSON's cells, the rest from the defaults (unlimited is null).
      expect(res.body.data.map((p: { limits: { projects: number } }) => p.limits.projects)).toEqual([1, 3, 5]);
      expect(res.body.data[0].limits).toMatchObject({ deploymentsPerMonth: 10, storageBytes: 500 * 1024 * 1024, maxTtl: '7d' });
      expect(res.body.data[2].limits).toMatchObject({ deploymentsPerMonth: null, maxTtl: null });
      const refused = await t.http().get('/billing/plans').set(bearer(tenant.token));
      expect(refused.status).toBe(403);
      expect((await t.http().get('/billing/plans')).status).toBe(401);
    });
  });

  describe('payment methods', () => {
    const methods = (tenant: Tenant, session = tenant.owner) =>
      t.http().get('/billing/payment-methods').query({ workspaceId: tenant.workspaceId }).set(bearer(session.accessToken));

    it('saves a payment method and shows brand and last4, never the token', async () => {
      const a = await newTenant(t);
      const res = await saveCard(t, a, 'pm_card_visa');
      expect(res.body).toEqual({
        id: expect.stringMatching(/^pm_[0-9a-z]{24}$/),
        workspaceId: a.workspaceId,
        provider: 'local',
        brand: 'visa',
        last4: '4242',
        expMonth: null,
        expYear: null,
        isDefault: true,
        createdAt: expect.any(String),
      });
      const other = await saveCard(t, a, 'pm_1SecretLookingToken');
      expect(JSON.stringify(other.body)).not.toContain('SecretLookingToken');
      const rows = await t.dataSource.query('SELECT * FROM payment_methods WHERE workspace_id = $1', [a.workspaceId]);
      expect(JSON.stringify(rows)).not.toContain('SecretLookingToken');
      const list = await methods(a).expect(200);
      expect(list.body.meta).toEqual({ total: 2, page: 1, limit: 20, totalPages: 1 });
      expect(list.body.data.map((m: { id: string; isDefault: boolean }) => [m.id, m.isDefault])).toEqual([
        [other.body.id, true],
        [res.body.id, false],
      ]);
    });

    it('refuses a malformed token (400) and the same method twice (409)', async () => {
      const a = await newTenant(t);
      for (const token of ['4242424242424242', 'tok_visa', 'pm_', '']) {
        const res = await t
          .http()
          .post('/billing/payment-methods')
          .set(bearer(a.owner.accessToken))
          .send({ workspaceId: a.workspaceId, paymentMethodToken: token })
          .expect(400);
        expect(res.body.message).toContain('paymentMethodToken');
      }
      await t.http().post('/billing/payment-methods').set(bearer(a.owner.accessToken)).send({ workspaceId: a.workspaceId }).expect(400);
      await saveCard(t, a, 'pm_card_amex');
      const dup = await t
        .http()
        .post('/billing/payment-methods')
        .set(bearer(a.owner.accessToken))
        .send({ workspaceId: a.workspaceId, paymentMethodToken: 'pm_card_amex' })
        .expect(409);
      expect(dup.body.code).toBe('payment_method_exists');
      expect((await methods(a).expect(200)).body.meta.total).toBe(1);
    });

    it('is for owners only; another workspace’s method is a 404', async () => {
      const a = await newTenant(t);
      const saved = await saveCard(t, a);
      const admin = await registerUser(t);
      await addMember(t, a.owner, admin, 'admin');
      expect((await methods(a, admin).expect(403)).body.code).toBe('owner_required');
      expect(
        (
          await t
            .http()
            .post('/billing/payment-methods')
            .set(bearer(admin.accessToken))
            .send({ workspaceId: a.workspaceId, paymentMethodToken: 'pm_card_visa' })
            .expect(403)
        ).body.code,
      ).toBe('owner_required');
      expect((await t.http().delete(`/billing/payment-methods/${saved.body.id}`).set(bearer(admin.accessToken)).expect(403)).body.code).toBe('owner_required');
      const b = await newTenant(t);
      expect((await methods(a, b.owner).expect(403)).body.code).toBe('not_a_member');
      await t.http().delete(`/billing/payment-methods/${saved.body.id}`).set(bearer(b.owner.accessToken)).expect(404);
      const token = await createApiToken(t, a.owner, { scopes: ['admin'] });
      await t.http().get('/billing/payment-methods').query({ workspaceId: a.workspaceId }).set(bearer(token.token)).expect(403);
      expect((await methods(a).expect(200)).body.meta.total).toBe(1);
    });

    it('removes a method; the last one cannot go while a paid plan renews', async () => {
      const a = await newTenant(t);
      const first = await saveCard(t, a, 'pm_card_visa');
      const second = await saveCard(t, a, 'pm_card_mastercard');
      await activate(t, a.owner, a.workspaceId, 'pro').expect(200);
      await t.http().delete(`/billing/payment-methods/${second.body.id}`).set(bearer(a.owner.accessToken)).expect(204);
      await t.http().delete(`/billing/payment-methods/${second.body.id}`).set(bearer(a.owner.accessToken)).expect(404);
      expect((await methods(a).expect(200)).body.data).toEqual([expect.objectContaining({ id: first.body.id, isDefault: true })]);
      const last = await t.http().delete(`/billing/payment-methods/${first.body.id}`).set(bearer(a.owner.accessToken)).expect(409);
      expect(last.body.code).toBe('payment_method_required');
      await t.http().post('/billing/cancel').set(bearer(a.owner.accessToken)).send({ workspaceId: a.workspaceId }).expect(200);
      await t.http().delete(`/billing/payment-methods/${first.body.id}`).set(bearer(a.owner.accessToken)).expect(204);
      // Without a method, a new activation is refused.
      await activate(t, a.owner, a.workspaceId, 'team').expect(402);
    });
  });
});
