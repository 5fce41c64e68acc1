import { startTestApp, type TestApp } from '../helpers/app';
import { bearer } from '../helpers/identity';
import { activate, newTenant, tally, type Tenant, workspace } from './billing-helpers';
import { FakeStripe } from './fake-stripe';

/**
 * The Stripe adapter, through the real `stripe` SDK, against a stand-in for the
 * Stripe endpoints it calls on 127.0.0.1 (test/billing/fake-stripe.ts): these
 * tests pin the requests the adapter makes and how their answers are handled.
 * Whether real Stripe accepts exactly these requests is not verified here (see
 * README, "Billing").
 */
describe('Billing with the Stripe provider (e2e)', () => {
  let t: TestApp;
  const stripe = new FakeStripe();

  beforeAll(async () => {
    const { port } = await stripe.start();
    t = await startTestApp({ env: stripe.env(port) });
  });
  afterAll(async () => {
    await t?.close();
    await stripe.stop();
  });
  afterEach(() => {
    stripe.failing = false;
  });

  const save = (tenant: Tenant, paymentMethodToken: string) =>
    t.http().post('/billing/payment-methods').set(bearer(tenant.owner.accessToken)).send({ workspaceId: tenant.workspaceId, paymentMethodToken });
  const subscriptionRow = async (tenant: Tenant) => (await t.dataSource.query('SELECT * FROM subscriptions WHERE workspace_id = $1', [tenant.workspaceId]))[0];
  const paths = (calls: { method: string; path: string }[]) => calls.map((c) => `${c.method} ${c.path}`);

  it('saves a payment method: creates the customer once, attaches the method and makes it the default', async () => {
    const a = await newTenant(t);
    const mark = stripe.calls.length;
    const res = await save(a, 'pm_1FirstCard').expect(201);
    expect(res.body).toMatchObject({ provider: 'stripe', brand: 'visa', last4: '4242', expMonth: 12, expYear: 2034, isDefault: true });
    const calls = stripe.since(mark);
    expect(paths(calls)).toEqual([
      'POST /v1/customers',
      'POST /v1/payment_methods/pm_1FirstCard/attach',
      expect.stringMatching(/^POST \/v1\/customers\/cus_fake\d+$/),
    ]);
    const [customer, attach, update] = calls;
    expect(customer.form).toEqual({ name: expect.any(String), email: a.owner.email, 'metadata[workspace_id]': a.workspaceId });
    expect(customer.idempotencyKey).toBe(`statichost-customer-${a.workspaceId}`);
    expect(customer.authorization).toBe('Bearer sk_test_statichostFake123');
    expect(customer.stripeVersion).toMatch(/^\d{4}-\d{2}-\d{2}/);
    const customerId = update.path.split('/').pop();
    expect(attach.form).toEqual({ customer: customerId });
    expect(update.form).toEqual({ 'invoice_settings[default_payment_method]': 'pm_1FirstCard' });
    // The second method reuses the customer.
    const mark2 = stripe.calls.length;
    await save(a, 'pm_1SecondCard').expect(201);
    expect(paths(stripe.since(mark2))).toEqual(['POST /v1/payment_methods/pm_1SecondCard/attach', `POST /v1/customers/${customerId}`]);
    const [row] = await t.dataSource.query('SELECT customer_ref FROM billing_customers WHERE workspace_id = $1', [a.workspaceId]);
    expect(row.customer_ref).toBe(customerId);
  });

  it('answers 400 invalid_payment_method for a method Stripe does not know, and stores nothing', async () => {
    const a = await newTenant(t);
    const res = await save(a, 'pm_missing123').expect(400);
    expect(res.body).toMatchObject({ code: 'invalid_payment_method', providerCode: 'resource_missing' });
    expect(res.body.message).toContain("No such payment_method: 'pm_missing123'");
    expect(await t.dataSource.query('SELECT 1 FROM payment_methods WHERE workspace_id = $1', [a.workspaceId])).toEqual([]);
    // A malformed token never reaches Stripe.
    const mark = stripe.calls.length;
    await save(a, 'card 4242').expect(400);
    expect(stripe.since(mark)).toEqual([]);
  });

  it('activates with an off-session subscription, exactly once however often it is asked', async () => {
    const a = await newTenant(t);
    await save(a, 'pm_1GoodCard').expect(201);
    const mark = stripe.calls.length;
    const results = await Promise.all(Array.from({ length: 5 }, () => activate(t, a.owner, a.workspaceId, 'pro', 'month')));
    expect(tally(results)).toEqual({ 200: 5 });
    expect(results[0].body).toEqual({ success: true, tier: 'pro', status: 'active' });
    const calls = stripe.since(mark);
    expect(paths(calls)).toEqual(['POST /v1/subscriptions']);
    const [{ customer_ref: customerId }] = await t.dataSource.query('SELECT customer_ref FROM billing_customers WHERE workspace_id = $1', [a.workspaceId]);
    expect(calls[0].form).toEqual({
      customer: customerId,
      'items[0][price]': 'price_proMonth',
      off_session: 'true',
      payment_behavior: 'error_if_incomplete',
      'metadata[workspace_id]': a.workspaceId,
      'metadata[tier]': 'pro',
      'metadata[interval]': 'month',
    });
    expect(calls[0].idempotencyKey).toBe(`statichost-subscription-${a.workspaceId}-1`);
    const row = await subscriptionRow(a);
    expect(row).toMatchObject({
      provider: 'stripe',
      provider_subscription_ref: expect.stringMatching(/^sub_fake/),
      provider_item_ref: expect.stringMatching(/^si_fake/),
      tier: 'pro',
      interval: 'month',
    });
    // The period is Stripe's, not computed here.
    expect(new Date(row.current_period_end).getTime()).toBe((stripe.now + 31 * 86400) * 1000);
    expect((await workspace(t, a)).plan).toBe('pro');
  });

  it('changes the price of the running subscription, and cancels it at the period’s end', async () => {
    const a = await newTenant(t);
    await save(a, 'pm_1ChangeCard').expect(201);
    await activate(t, a.owner, a.workspaceId, 'pro', 'month').expect(200);
    const { provider_subscription_ref: subId, provider_item_ref: itemId } = await subscriptionRow(a);

    let mark = stripe.calls.length;
    await activate(t, a.owner, a.workspaceId, 'team', 'year').expect(200);
    const [change] = stripe.since(mark);
    expect(`${change.method} ${change.path}`).toBe(`POST /v1/subscriptions/${subId}`);
    expect(change.form).toEqual({
      'items[0][id]': itemId,
      'items[0][price]': 'price_teamYear',
      cancel_at_period_end: 'false',
      off_session: 'true',
      payment_behavior: 'error_if_incomplete',
      proration_behavior: 'always_invoice',
      'metadata[tier]': 'team',
      'metadata[interval]': 'year',
    });
    expect((await workspace(t, a)).plan).toBe('team');

    mark = stripe.calls.length;
    const cancelled = await t.http().post('/billing/cancel').set(bearer(a.owner.accessToken)).send({ workspaceId: a.workspaceId }).expect(200);
    const [cancel] = stripe.since(mark);
    expect(`${cancel.method} ${cancel.path}`).toBe(`POST /v1/subscriptions/${subId}`);
    expect(cancel.form).toEqual({ cancel_at_period_end: 'true' });
    expect(cancelled.body).toMatchObject({
      tier: 'team',
      interval: 'year',
      status: 'active',
      cancelAtPeriodEnd: true,
      provider: 'stripe',
      currentPeriodEnd: new Date((stripe.now + 365 * 86400) * 1000).toISOString(),
    });
  });

  it('answers 402 payment_failed when the card is declined, and leaves the workspace on free', async () => {
    const a = await newTenant(t);
    await save(a, 'pm_card_chargeDeclined').expect(201);
    const res = await activate(t, a.owner, a.workspaceId, 'pro', 'month').expect(402);
    expect(res.body).toMatchObject({ statusCode: 402, code: 'payment_failed', providerCode: 'generic_decline' });
    expect(res.body.message).toContain('Your card was declined.');
    expect((await workspace(t, a)).plan).toBe('free');
    expect(await subscriptionRow(a)).toBeUndefined();
    // Nothing counted either: the next attempt uses the same idempotency key.
    await save(a, 'pm_1BetterCard').expect(201);
    const mark = stripe.calls.length;
    await activate(t, a.owner, a.workspaceId, 'pro', 'month').expect(200);
    expect(stripe.since(mark)[0].idempotencyKey).toBe(`statichost-subscription-${a.workspaceId}-1`);
  });

  it('answers 502 when Stripe fails, and changes nothing', async () => {
    const a = await newTenant(t);
    await save(a, 'pm_1WillFail').expect(201);
    stripe.failing = true;
    const res = await activate(t, a.owner, a.workspaceId, 'pro', 'month').expect(502);
    expect(res.body).toMatchObject({ statusCode: 502, code: 'payment_provider_unavailable' });
    expect(res.body.message).toContain('could not start the subscription');
    expect((await workspace(t, a)).plan).toBe('free');
    expect(await subscriptionRow(a)).toBeUndefined();
    // The SDK retried (maxNetworkRetries: 2) with one idempotency key before giving up.
    const attempts = stripe.calls.filter((c) => c.path === '/v1/subscriptions' && c.form['metadata[workspace_id]'] === a.workspaceId);
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts.map((c) => c.idempotencyKey)).size).toBe(1);
  });

  it('detaches a removed method, first making the next newest the default', async () => {
    const a = await newTenant(t);
    const older = await save(a, 'pm_1OlderCard').expect(201);
    const newer = await save(a, 'pm_1NewerCard').expect(201);
    const [{ customer_ref: customerId }] = await t.dataSource.query('SELECT customer_ref FROM billing_customers WHERE workspace_id = $1', [a.workspaceId]);
    let mark = stripe.calls.length;
    await t.http().delete(`/billing/payment-methods/${newer.body.id}`).set(bearer(a.owner.accessToken)).expect(204);
    let calls = stripe.since(mark);
    expect(paths(calls)).toEqual([`POST /v1/customers/${customerId}`, 'POST /v1/payment_methods/pm_1NewerCard/detach']);
    expect(calls[0].form).toEqual({ 'invoice_settings[default_payment_method]': 'pm_1OlderCard' });
    mark = stripe.calls.length;
    await t.http().delete(`/billing/payment-methods/${older.body.id}`).set(bearer(a.owner.accessToken)).expect(204);
    calls = stripe.since(mark);
    expect(paths(calls)).toEqual(['POST /v1/payment_methods/pm_1OlderCard/detach']);
  });
});
