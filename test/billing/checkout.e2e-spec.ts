import { Clock } from '../../src/common/time';
import { startTestApp, type TestApp } from '../helpers/app';
import { addMember, bearer, createApiToken, registerUser } from '../helpers/identity';
import { activate, newTenant, type Tenant, workspace } from './billing-helpers';
import { FakeStripe } from './fake-stripe';

/**
 * Prices, Stripe Checkout and the customer portal (issue 31): the plan table with its
 * prices, and the Checkout and portal sessions the real `stripe` SDK asks the stand-in
 * (test/billing/fake-stripe.ts) for: which price, which customer, the workspace on the
 * session and on its subscription, the URLs back to the dashboard, the idempotency key.
 * Putting the plan in force once Checkout is paid is the webhook's (lifecycle.e2e-spec.ts).
 */
const PLANS = { team: { prices: { year: { amount: 120000, currency: 'EUR' } } } };
const NOW = new Date('2030-01-15T10:20:00.000Z');

describe('Prices, Checkout and the portal with the Stripe provider (e2e)', () => {
  let t: TestApp;
  const stripe = new FakeStripe();

  beforeAll(async () => {
    const { port } = await stripe.start();
    t = await startTestApp({ env: { ...stripe.env(port), PLANS_JSON: JSON.stringify(PLANS) } });
  });
  afterAll(async () => {
    await t?.close();
    await stripe.stop();
  });
  beforeEach(() => jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => new Date(NOW)));
  afterEach(() => {
    jest.restoreAllMocks();
    stripe.failing = false;
  });

  const checkout = (session: { accessToken: string }, body: object) => t.http().post('/billing/checkout').set(bearer(session.accessToken)).send(body);
  const portal = (session: { accessToken: string }, body: object) => t.http().post('/billing/portal').set(bearer(session.accessToken)).send(body);
  const billingPage = (workspaceId: string) => `${t.config.apiBaseUrl}/app/w/${workspaceId}/billing`;
  const customerOf = async (tenant: Tenant): Promise<string | undefined> =>
    (await t.dataSource.query('SELECT customer_ref FROM billing_customers WHERE workspace_id = $1', [tenant.workspaceId]))[0]?.customer_ref;
  const paths = (calls: { method: string; path: string }[]) => calls.map((c) => `${c.method} ${c.path}`);
  const fetchPage = async (url: string) => {
    const res = await fetch(url);
    return { status: res.status, type: res.headers.get('content-type'), html: await res.text() };
  };

  it('GET /billing/plans shows each paid tier’s price per interval (minor units, lower-case ISO 4217), the operator’s overrides applied', async () => {
    const a = await newTenant(t);
    const res = await t.http().get('/billing/plans').set(bearer(a.owner.accessToken)).expect(200);
    expect(res.body.hostedBilling).toBe(true);
    expect(res.body.data.map((p: { tier: string; prices: unknown }) => [p.tier, p.prices])).toEqual([
      ['free', null],
      ['pro', { month: { amount: 1900, currency: 'usd' }, year: { amount: 19000, currency: 'usd' } }],
      ['team', { month: { amount: 9900, currency: 'usd' }, year: { amount: 120000, currency: 'eur' } }],
    ]);
  });

  it('POST /billing/checkout: a subscription-mode Checkout Session for the workspace’s customer, the tier’s price, the workspace on it, URLs back to billing', async () => {
    const a = await newTenant(t);
    const mark = stripe.calls.length;
    const res = await checkout(a.owner, { workspaceId: a.workspaceId, tier: 'team', interval: 'year' }).expect(200);
    const calls = stripe.since(mark);
    expect(paths(calls)).toEqual(['POST /v1/customers', 'POST /v1/checkout/sessions']);
    const customerId = await customerOf(a);
    expect(customerId).toMatch(/^cus_fake/);
    expect(calls[0].form).toEqual({ name: expect.any(String), email: a.owner.email, 'metadata[workspace_id]': a.workspaceId });
    const [, session] = calls;
    expect(session.form).toEqual({
      mode: 'subscription',
      customer: customerId,
      'line_items[0][price]': 'price_teamYear',
      'line_items[0][quantity]': '1',
      client_reference_id: a.workspaceId,
      'metadata[workspace_id]': a.workspaceId,
      'metadata[tier]': 'team',
      'metadata[interval]': 'year',
      'subscription_data[metadata][workspace_id]': a.workspaceId,
      'subscription_data[metadata][tier]': 'team',
      'subscription_data[metadata][interval]': 'year',
      success_url: `${billingPage(a.workspaceId)}?checkout=success`,
      cancel_url: `${billingPage(a.workspaceId)}?checkout=canceled`,
    });
    const hour = Math.floor(NOW.getTime() / 3_600_000);
    expect(session.idempotencyKey).toBe(`statichost-checkout-${a.workspaceId}-team-year-1-0-${hour}`);
    expect(session.authorization).toBe('Bearer sk_test_statichostFake123');
    // The answer is the session's URL, a page of the stand-in that links back to the dashboard.
    expect(res.body).toEqual({ url: expect.stringMatching(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/checkout/cs_test_fake\\d+$`)) });
    const page = await fetchPage(res.body.url);
    expect(page).toMatchObject({ status: 200, type: 'text/html; charset=utf-8' });
    expect(page.html).toContain(`href="${billingPage(a.workspaceId)}?checkout=canceled"`);
    // Nothing is in force until Stripe says it is paid.
    expect((await workspace(t, a)).plan).toBe('free');
    expect(await t.dataSource.query('SELECT 1 FROM subscriptions WHERE workspace_id = $1', [a.workspaceId])).toEqual([]);
  });

  const sessionOf = (url: string) => new URL(url).pathname.split('/').pop()!;
  const openCheckout = async (tenant: Tenant): Promise<string | null> =>
    (await t.dataSource.query('SELECT open_checkout_ref FROM billing_customers WHERE workspace_id = $1', [tenant.workspaceId]))[0]?.open_checkout_ref ?? null;

  it('reuses the customer, and a repeat within the hour carries the same idempotency key (one Checkout for a double click)', async () => {
    const a = await newTenant(t);
    const first = await checkout(a.owner, { workspaceId: a.workspaceId, tier: 'pro', interval: 'month' }).expect(200);
    const mark = stripe.calls.length;
    const repeat = await checkout(a.owner, { workspaceId: a.workspaceId, tier: 'pro', interval: 'month' }).expect(200);
    expect(repeat.body.url).toBe(first.body.url);
    jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => new Date(NOW.getTime() + 3_600_000));
    const later = await checkout(a.owner, { workspaceId: a.workspaceId, tier: 'pro', interval: 'month' }).expect(200);
    const calls = stripe.since(mark);
    // The repeat is the same session; an hour later a new one, and the first is closed before it is made.
    const firstId = sessionOf(first.body.url);
    expect(paths(calls)).toEqual([
      'POST /v1/checkout/sessions',
      `GET /v1/checkout/sessions/${firstId}`,
      `POST /v1/checkout/sessions/${firstId}/expire`,
      'POST /v1/checkout/sessions',
    ]);
    const hour = Math.floor(NOW.getTime() / 3_600_000);
    // The second key counts the Checkout closed before it.
    expect(calls.filter((c) => c.path === '/v1/checkout/sessions').map((c) => c.idempotencyKey)).toEqual([
      `statichost-checkout-${a.workspaceId}-pro-month-1-0-${hour}`,
      `statichost-checkout-${a.workspaceId}-pro-month-1-1-${hour + 1}`,
    ]);
    expect(new Set(calls.filter((c) => c.path === '/v1/checkout/sessions').map((c) => c.form.customer))).toEqual(new Set([await customerOf(a)]));
    expect(await openCheckout(a)).toBe(sessionOf(later.body.url));
  });

  it('closes the Checkout handed out before when another starts: two open Checkouts (two tabs, two plans) can never both be paid', async () => {
    const a = await newTenant(t);
    const pro = await checkout(a.owner, { workspaceId: a.workspaceId, tier: 'pro', interval: 'month' }).expect(200);
    const team = await checkout(a.owner, { workspaceId: a.workspaceId, tier: 'team', interval: 'year' }).expect(200);
    expect(stripe.checkoutSessions.get(sessionOf(pro.body.url))!.status).toBe('expired');
    expect(stripe.checkoutSessions.get(sessionOf(team.body.url))!.status).toBe('open');
    expect(await openCheckout(a)).toBe(sessionOf(team.body.url));
    // Back to the first plan within the hour: the team Checkout is closed in its turn, and the
    // payer gets a new open session, not Stripe's replay of the pro one closed a moment ago.
    const again = await checkout(a.owner, { workspaceId: a.workspaceId, tier: 'pro', interval: 'month' }).expect(200);
    expect(stripe.checkoutSessions.get(sessionOf(team.body.url))!.status).toBe('expired');
    expect(sessionOf(again.body.url)).not.toBe(sessionOf(pro.body.url));
    expect(stripe.checkoutSessions.get(sessionOf(again.body.url))!.status).toBe('open');
    // A double click on it is that same open session.
    const repeat = await checkout(a.owner, { workspaceId: a.workspaceId, tier: 'pro', interval: 'month' }).expect(200);
    expect(repeat.body.url).toBe(again.body.url);
    expect(stripe.checkoutSessions.get(sessionOf(again.body.url))!.status).toBe('open');
  });

  it('answers 409 subscription_exists when the Checkout before was paid and its webhook has not come yet, starting no second one', async () => {
    const a = await newTenant(t);
    const paid = await checkout(a.owner, { workspaceId: a.workspaceId, tier: 'pro', interval: 'month' }).expect(200);
    const { form } = stripe.checkoutSessions.get(sessionOf(paid.body.url))!;
    const subId = stripe.addSubscription({ customer: form.customer, price: form['line_items[0][price]'], metadata: { workspace_id: a.workspaceId } });
    stripe.payCheckout(sessionOf(paid.body.url), subId);
    const mark = stripe.calls.length;
    const res = await checkout(a.owner, { workspaceId: a.workspaceId, tier: 'team', interval: 'month' }).expect(409);
    expect(res.body.code).toBe('subscription_exists');
    expect(res.body.message).toContain('has been paid');
    expect(paths(stripe.since(mark))).toEqual([`GET /v1/checkout/sessions/${sessionOf(paid.body.url)}`, `GET /v1/subscriptions/${subId}`]);
    expect(await openCheckout(a)).toBe(sessionOf(paid.body.url));

    // Its webhook never came, and the subscription it started has ended since: the next Checkout goes ahead.
    stripe.updateSubscription(subId, { status: 'canceled' });
    const next = await checkout(a.owner, { workspaceId: a.workspaceId, tier: 'team', interval: 'month' }).expect(200);
    expect(stripe.checkoutSessions.get(sessionOf(next.body.url))!.status).toBe('open');
    expect(await openCheckout(a)).toBe(sessionOf(next.body.url));
  });

  it('answers 502 when the Checkout before cannot be closed, and starts no other', async () => {
    const a = await newTenant(t);
    const first = await checkout(a.owner, { workspaceId: a.workspaceId, tier: 'pro', interval: 'month' }).expect(200);
    stripe.failing = true;
    const mark = stripe.calls.length;
    const res = await checkout(a.owner, { workspaceId: a.workspaceId, tier: 'team', interval: 'month' }).expect(502);
    expect(res.body.code).toBe('payment_provider_unavailable');
    // Only reads of it (the SDK retries a failed read): nothing closed, nothing made.
    expect(new Set(paths(stripe.since(mark)))).toEqual(new Set([`GET /v1/checkout/sessions/${sessionOf(first.body.url)}`]));
    expect(stripe.checkoutSessions.get(sessionOf(first.body.url))!.status).toBe('open');
    expect(await openCheckout(a)).toBe(sessionOf(first.body.url));
  });

  it('answers 409 for the plan already paid for (already_on_plan) or beside another running one (subscription_exists), asking Stripe nothing', async () => {
    const a = await newTenant(t);
    await t
      .http()
      .post('/billing/payment-methods')
      .set(bearer(a.owner.accessToken))
      .send({ workspaceId: a.workspaceId, paymentMethodToken: 'pm_1Running' })
      .expect(201);
    await activate(t, a.owner, a.workspaceId, 'pro', 'month').expect(200);
    const mark = stripe.calls.length;
    const same = await checkout(a.owner, { workspaceId: a.workspaceId, tier: 'pro', interval: 'month' }).expect(409);
    expect(same.body).toMatchObject({ statusCode: 409, code: 'already_on_plan' });
    expect(same.body.message).toContain('already on the pro plan billed every month');
    expect(same.body.message).toContain('POST /billing/portal');
    const other = await checkout(a.owner, { workspaceId: a.workspaceId, tier: 'team', interval: 'year' }).expect(409);
    expect(other.body).toMatchObject({ statusCode: 409, code: 'subscription_exists' });
    expect(other.body.message).toContain('change it to team every year in the billing portal (POST /billing/portal) or with POST /billing/activate-plan');
    // A failed renewal still counts as paying: the card is fixed in the portal, not with a second subscription.
    await t.dataSource.query(`UPDATE subscriptions SET status = 'past_due', past_due_since = $2 WHERE workspace_id = $1`, [a.workspaceId, NOW]);
    const pastDue = await checkout(a.owner, { workspaceId: a.workspaceId, tier: 'team', interval: 'month' }).expect(409);
    expect(pastDue.body.message).toContain('(its last payment failed)');
    expect(stripe.since(mark)).toEqual([]);
  });

  it('starts Checkout again once a cancelled plan has run out', async () => {
    const a = await newTenant(t);
    await t
      .http()
      .post('/billing/payment-methods')
      .set(bearer(a.owner.accessToken))
      .send({ workspaceId: a.workspaceId, paymentMethodToken: 'pm_1Lapsing' })
      .expect(201);
    await activate(t, a.owner, a.workspaceId, 'pro', 'month').expect(200);
    await t.http().post('/billing/cancel').set(bearer(a.owner.accessToken)).send({ workspaceId: a.workspaceId }).expect(200);
    await checkout(a.owner, { workspaceId: a.workspaceId, tier: 'pro', interval: 'month' }).expect(409);
    const [{ current_period_end: end }] = await t.dataSource.query('SELECT current_period_end FROM subscriptions WHERE workspace_id = $1', [a.workspaceId]);
    jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => new Date(new Date(end).getTime() + 1000));
    const mark = stripe.calls.length;
    await checkout(a.owner, { workspaceId: a.workspaceId, tier: 'pro', interval: 'month' }).expect(200);
    expect(paths(stripe.since(mark))).toEqual(['POST /v1/checkout/sessions']);
  });

  it('POST /billing/portal: a portal session for the workspace’s customer that returns to the billing page', async () => {
    const a = await newTenant(t);
    const mark = stripe.calls.length;
    const res = await portal(a.owner, { workspaceId: a.workspaceId }).expect(200);
    const calls = stripe.since(mark);
    // The customer is created on first use, as for a payment method or Checkout.
    expect(paths(calls)).toEqual(['POST /v1/customers', 'POST /v1/billing_portal/sessions']);
    expect(calls[1].form).toEqual({ customer: await customerOf(a), return_url: billingPage(a.workspaceId) });
    expect(res.body).toEqual({ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/portal\/bps_fake\d+$/) });
    const page = await fetchPage(res.body.url);
    expect(page.status).toBe(200);
    expect(page.html).toContain(`href="${billingPage(a.workspaceId)}"`);
    const again = stripe.calls.length;
    await portal(a.owner, { workspaceId: a.workspaceId }).expect(200);
    expect(paths(stripe.since(again))).toEqual(['POST /v1/billing_portal/sessions']);
  });

  it.each([
    [{ tier: 'free', interval: 'month' }, 'tier: must be one of: pro, team'],
    [{ tier: 'gold', interval: 'month' }, 'tier: must be one of: pro, team'],
    [{ tier: 'pro', interval: 'week' }, 'interval: must be one of: month, year'],
    [{ tier: 'pro' }, 'interval: must be one of: month, year'],
    [{ tier: 'pro', interval: 'month', priceId: 'price_cheap' }, 'property priceId should not exist'],
    [{ tier: 'pro', interval: 'month', workspaceId: 'ws_nope' }, 'workspaceId: must be a workspace id'],
  ])('answers 400 for %j naming the field, and asks Stripe nothing', async (body, message) => {
    const a = await newTenant(t);
    const mark = stripe.calls.length;
    const res = await checkout(a.owner, { workspaceId: a.workspaceId, ...body }).expect(400);
    expect(JSON.stringify(res.body.message)).toContain(message);
    expect(stripe.since(mark)).toEqual([]);
    expect(await customerOf(a)).toBeUndefined();
  });

  it('is the owners’: an admin gets 403 owner_required, an API token 403, another workspace 403; portal likewise', async () => {
    const a = await newTenant(t);
    const admin = await registerUser(t);
    await addMember(t, a.owner, admin, 'admin');
    const stranger = await registerUser(t);
    const token = await createApiToken(t, a.owner, { scopes: ['admin', 'deploy', 'read'] });
    const body = { workspaceId: a.workspaceId, tier: 'pro', interval: 'month' };
    const mark = stripe.calls.length;
    expect((await checkout(admin, body).expect(403)).body.code).toBe('owner_required');
    expect((await portal(admin, { workspaceId: a.workspaceId }).expect(403)).body.code).toBe('owner_required');
    expect((await checkout({ accessToken: token.token }, body).expect(403)).body.code).toBe('wrong_credential_kind');
    expect((await portal(stranger, { workspaceId: a.workspaceId }).expect(403)).body.code).toBe('not_a_member');
    await t.http().post('/billing/checkout').send(body).expect(401);
    expect(stripe.since(mark)).toEqual([]);
  });

  it('answers 502 when Stripe fails, and leaves the plan as it was', async () => {
    const a = await newTenant(t);
    await portal(a.owner, { workspaceId: a.workspaceId }).expect(200);
    stripe.failing = true;
    const res = await checkout(a.owner, { workspaceId: a.workspaceId, tier: 'pro', interval: 'month' }).expect(502);
    expect(res.body).toMatchObject({ code: 'payment_provider_unavailable' });
    expect(res.body.message).toContain('could not start Checkout');
    expect((await portal(a.owner, { workspaceId: a.workspaceId }).expect(502)).body.message).toContain('could not open the billing portal');
    expect((await workspace(t, a)).plan).toBe('free');
  });
});

describe('Checkout and the portal with the local provider (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { PLANS_JSON: undefined } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers 409 hosted_billing_unavailable naming POST /billing/activate-plan, and changes nothing; the plan table says so', async () => {
    const a = await newTenant(t);
    const res = await t
      .http()
      .post('/billing/checkout')
      .set(bearer(a.owner.accessToken))
      .send({ workspaceId: a.workspaceId, tier: 'pro', interval: 'month' })
      .expect(409);
    expect(res.body).toMatchObject({ statusCode: 409, code: 'hosted_billing_unavailable' });
    expect(res.body.message).toContain('PAYMENT_PROVIDER=stripe');
    expect(res.body.message).toContain('POST /billing/activate-plan');
    const portal = await t.http().post('/billing/portal').set(bearer(a.owner.accessToken)).send({ workspaceId: a.workspaceId }).expect(409);
    expect(portal.body).toMatchObject({ code: 'hosted_billing_unavailable' });
    expect(portal.body.message).toContain('POST /billing/activate-plan');
    expect(await t.dataSource.query('SELECT 1 FROM billing_customers WHERE workspace_id = $1', [a.workspaceId])).toEqual([]);
    const plans = await t.http().get('/billing/plans').set(bearer(a.owner.accessToken)).expect(200);
    expect(plans.body.hostedBilling).toBe(false);
    expect(plans.body.data[1]).toMatchObject({ tier: 'pro', prices: { month: { amount: 1900, currency: 'usd' }, year: { amount: 19000, currency: 'usd' } } });
  });
});
