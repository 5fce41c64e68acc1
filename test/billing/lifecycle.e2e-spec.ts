import Stripe from 'stripe';

import { BillingSweeper } from '../../src/billing/billing-sweeper.service';
import { PaymentProvider } from '../../src/billing/payment-provider';
import { Clock } from '../../src/common/time';
import { OutboxService } from '../../src/outbox/outbox.service';
import { SitePauses } from '../../src/quotas/site-pauses.service';
import { startTestApp, type TestApp } from '../helpers/app';
import { addMember, bearer, registerUser } from '../helpers/identity';
import { linkIn, type ReceivedMail, startSmtpServer, type TestSmtpServer } from '../helpers/smtp';
import { lazyDeploy, newTenant, type Tenant, workspace } from './billing-helpers';
import { FakeStripe } from './fake-stripe';

/**
 * The subscription lifecycle of issue 31 as Stripe drives it: events signed by the real
 * SDK (`webhooks.generateTestHeaderString`) posted to POST /billing/stripe/webhook, the
 * subscriptions they name read back from the Stripe stand-in (test/billing/fake-stripe.ts),
 * mails caught by a real SMTP server, time moved with the app's Clock.
 */
const SECRET = 'whsec_lifecycleTestSecret123';
const PLANS = { free: { projects: 1 }, pro: { projects: 3 } };
const DAY = 24 * 3_600_000;
const T0 = new Date('2030-01-20T10:00:00.000Z');

describe('The subscription lifecycle through Stripe webhooks (e2e)', () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  const stripe = new FakeStripe();
  const signer = new Stripe('sk_test_signerOnly');
  let seq = 0;

  beforeAll(async () => {
    const { port } = await stripe.start();
    smtp = await startSmtpServer();
    t = await startTestApp({
      env: { ...stripe.env(port), STRIPE_WEBHOOK_SECRET: SECRET, SMTP_URL: smtp.url, PLANS_JSON: JSON.stringify(PLANS), BILLING_GRACE_DAYS: '7' },
    });
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await t?.close();
    await stripe.stop();
    await smtp?.close();
  });
  afterEach(() => jest.restoreAllMocks());

  const moveClockTo = (at: Date) => jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => new Date(at));
  const seconds = (at: Date) => Math.floor(at.getTime() / 1000);

  /** A Stripe event as Stripe posts it. */
  const event = (type: string, object: object, created = T0) => ({
    id: `evt_lifecycle${++seq}`,
    object: 'event',
    type,
    created: seconds(created),
    api_version: '2026-10-28.endive',
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    data: { object },
  });
  const deliver = (evt: object, secret = SECRET) => {
    const payload = JSON.stringify(evt);
    return t
      .http()
      .post('/billing/stripe/webhook')
      .set('Content-Type', 'application/json')
      .set('Stripe-Signature', signer.webhooks.generateTestHeaderString({ payload, secret }))
      .send(payload);
  };
  const subscription = async (tenant: Tenant) =>
    (await t.http().get('/billing/subscription').query({ workspaceId: tenant.workspaceId }).set(bearer(tenant.owner.accessToken)).expect(200)).body;
  const invoices = async (tenant: Tenant) =>
    (await t.http().get('/billing/invoices').query({ workspaceId: tenant.workspaceId }).set(bearer(tenant.owner.accessToken)).expect(200)).body;
  const ledger = async () => Number((await t.dataSource.query('SELECT count(*) AS n FROM billing_events'))[0].n);
  /** Sends what the outbox holds, and returns the mails to `to` that arrived. */
  const mailsTo = async (to: string): Promise<ReceivedMail[]> => {
    await t.app.get(OutboxService).runOnce();
    return smtp.received.filter((m) => m.rcptTo.includes(to) && /plan|Payment|trial/.test(m.parsed.subject ?? ''));
  };
  const file = (content: string) => [{ path: 'index.html', content }];

  /** What area "checkout" sets up: a Stripe customer and subscription naming the workspace, then the completed Checkout Session. */
  async function checkout(tenant: Tenant, price = 'price_proMonth') {
    const customer = stripe.addCustomer();
    const subId = stripe.addSubscription({ customer, price, metadata: { workspace_id: tenant.workspaceId } });
    const session = {
      id: `cs_test${++seq}`,
      object: 'checkout.session',
      mode: 'subscription',
      status: 'complete',
      customer,
      subscription: subId,
      client_reference_id: tenant.workspaceId,
      metadata: { workspace_id: tenant.workspaceId },
    };
    return { customer, subId, session };
  }
  const invoice = (customer: string, subId: string, tenant: Tenant, fields: Record<string, unknown>) => ({
    id: `in_test${++seq}`,
    object: 'invoice',
    customer,
    number: `LIFE-${seq}`,
    status: 'open',
    amount_due: 1900,
    amount_paid: 0,
    currency: 'usd',
    period_start: seconds(T0),
    period_end: seconds(new Date(T0.getTime() + 31 * DAY)),
    hosted_invoice_url: `https://invoice.stripe.test/i/${seq}`,
    parent: { type: 'subscription_details', subscription_details: { subscription: subId, metadata: { workspace_id: tenant.workspaceId } } },
    ...fields,
  });

  it('checkout.session.completed activates the plan of the Checkout’s subscription, and remembers its customer', async () => {
    const a = await newTenant(t);
    const { customer, session } = await checkout(a);
    const res = await deliver(event('checkout.session.completed', session)).expect(200);
    expect(res.body).toEqual({ received: true });
    expect(await subscription(a)).toMatchObject({
      tier: 'pro',
      interval: 'month',
      status: 'active',
      provider: 'stripe',
      cancelAtPeriodEnd: false,
      pastDueSince: null,
      graceEndsAt: null,
      disputed: false,
    });
    expect((await workspace(t, a)).plan).toBe('pro');
    const [row] = await t.dataSource.query('SELECT customer_ref FROM billing_customers WHERE workspace_id = $1', [a.workspaceId]);
    expect(row.customer_ref).toBe(customer);
    const [evt] = await t.dataSource.query('SELECT type, workspace_id FROM billing_events WHERE workspace_id = $1', [a.workspaceId]);
    expect(evt).toEqual({ type: 'checkout.session.completed', workspace_id: a.workspaceId });
  });

  it('a plan bought through our POST /billing/checkout: active by the webhook, no second Checkout, and activate-plan changes it without a card saved here', async () => {
    moveClockTo(T0);
    const a = await newTenant(t);
    const owner = bearer(a.owner.accessToken);
    const started = await t.http().post('/billing/checkout').set(owner).send({ workspaceId: a.workspaceId, tier: 'pro', interval: 'month' }).expect(200);
    const sessionId = new URL(started.body.url).pathname.split('/').pop()!;
    const { form } = stripe.checkoutSessions.get(sessionId)!;
    // Paid on Stripe's page: Stripe makes the subscription from the session (its price, its subscription_data) and tells us.
    const subId = stripe.addSubscription({
      customer: form.customer,
      price: form['line_items[0][price]'],
      metadata: { workspace_id: form['subscription_data[metadata][workspace_id]'] },
    });
    const session = {
      id: sessionId,
      object: 'checkout.session',
      mode: 'subscription',
      status: 'complete',
      customer: form.customer,
      subscription: subId,
      client_reference_id: form.client_reference_id,
      metadata: { workspace_id: form['metadata[workspace_id]'] },
    };
    stripe.payCheckout(sessionId);
    await deliver(event('checkout.session.completed', session)).expect(200);
    expect(await subscription(a)).toMatchObject({ tier: 'pro', interval: 'month', status: 'active', provider: 'stripe' });
    // Paid and told: no Checkout of the workspace is left open for a next one to close.
    expect(
      (await t.dataSource.query('SELECT open_checkout_ref FROM billing_customers WHERE workspace_id = $1', [a.workspaceId]))[0].open_checkout_ref,
    ).toBeNull();

    const second = await t.http().post('/billing/checkout').set(owner).send({ workspaceId: a.workspaceId, tier: 'team', interval: 'month' }).expect(409);
    expect(second.body).toMatchObject({ code: 'subscription_exists' });
    expect(second.body.message).toContain('POST /billing/activate-plan');
    // As that answer says: the running subscription (paid with the card given to Stripe's Checkout) changes tier.
    const changed = await t.http().post('/billing/activate-plan').set(owner).send({ workspaceId: a.workspaceId, tier: 'team', interval: 'month' });
    expect(changed.status).toBe(200);
    expect(await subscription(a)).toMatchObject({ tier: 'team', interval: 'month', status: 'active' });
    expect(stripe.subscriptionObject(subId)).toMatchObject({
      items: { data: [expect.objectContaining({ price: expect.objectContaining({ id: 'price_teamMonth' }) })] },
    });
  });

  it('a failed renewal: past_due with a mail and the plan kept; grace over: free, projects kept, deploys 402; paid again: active', async () => {
    moveClockTo(T0);
    const a = await newTenant(t);
    const { customer, subId, session } = await checkout(a);
    await deliver(event('checkout.session.completed', session, T0)).expect(200);
    await lazyDeploy(t, a, `one-${a.workspaceId.slice(-8)}`, file('one')).expect(201);
    await lazyDeploy(t, a, `two-${a.workspaceId.slice(-8)}`, file('two')).expect(201);

    // The renewal fails: Stripe marks the subscription past_due and sends invoice.payment_failed.
    const failedAt = new Date(T0.getTime() + DAY);
    moveClockTo(failedAt);
    stripe.updateSubscription(subId, { status: 'past_due' });
    const failed = invoice(customer, subId, a, { status: 'open', attempt_count: 1 });
    const failedEvent = event('invoice.payment_failed', failed, failedAt);
    await deliver(failedEvent).expect(200);
    const graceEnd = new Date(failedAt.getTime() + 7 * DAY);
    expect(await subscription(a)).toMatchObject({
      tier: 'pro',
      status: 'past_due',
      pastDueSince: failedAt.toISOString(),
      graceEndsAt: graceEnd.toISOString(),
    });
    expect((await workspace(t, a)).plan).toBe('pro');
    await lazyDeploy(t, a, `two-${a.workspaceId.slice(-8)}`, file('two again')).expect(201);
    const [mail] = await mailsTo(a.owner.email);
    expect(mail.parsed.subject).toContain('Payment failed');
    expect(mail.parsed.text).toContain(`keeps its pro plan until ${graceEnd.toISOString().slice(0, 10)}`);
    expect(linkIn(mail, t.config.apiBaseUrl).pathname).toBe(`/app/w/${a.workspaceId}/billing`);
    expect((await invoices(a)).data).toEqual([
      {
        id: expect.stringMatching(/^inv_/),
        number: failed.number,
        status: 'open',
        amountDue: 1900,
        amountPaid: 0,
        currency: 'usd',
        periodStart: T0.toISOString(),
        periodEnd: new Date(T0.getTime() + 31 * DAY).toISOString(),
        hostedInvoiceUrl: failed.hosted_invoice_url,
        createdAt: failedAt.toISOString(),
      },
    ]);

    // No plan change while a payment is owed: it would be written as active and the grace forgotten.
    const owner = bearer(a.owner.accessToken);
    const mark = stripe.calls.length;
    const change = await t.http().post('/billing/activate-plan').set(owner).send({ workspaceId: a.workspaceId, tier: 'team', interval: 'month' }).expect(409);
    expect(change.body).toMatchObject({ code: 'subscription_exists' });
    expect(change.body.message).toContain('POST /billing/portal');
    expect(stripe.since(mark)).toEqual([]);
    expect(await subscription(a)).toMatchObject({ tier: 'pro', status: 'past_due', pastDueSince: failedAt.toISOString(), graceEndsAt: graceEnd.toISOString() });

    // Stripe retries and fails again: no second mail, the grace still runs from the first failure.
    await deliver(event('invoice.payment_failed', { ...failed, attempt_count: 2 }, new Date(failedAt.getTime() + 3 * DAY))).expect(200);
    expect((await subscription(a)).pastDueSince).toBe(failedAt.toISOString());
    expect(await mailsTo(a.owner.email)).toHaveLength(1);

    // Grace over: free at once, the sweeper writes it and mails the owners; nothing deleted, deploys refused.
    moveClockTo(new Date(graceEnd.getTime() - 1));
    expect((await workspace(t, a)).plan).toBe('pro');
    moveClockTo(graceEnd);
    expect((await workspace(t, a)).plan).toBe('free');
    expect((await t.app.get(BillingSweeper).runOnce()).subscriptionsEnded).toBeGreaterThanOrEqual(1);
    expect(await subscription(a)).toMatchObject({ tier: 'free', status: 'canceled', pastDueSince: null, graceEndsAt: null });
    const projects = await t.dataSource.query('SELECT slug FROM projects WHERE workspace_id = $1', [a.workspaceId]);
    expect(projects).toHaveLength(2);
    const refused = await lazyDeploy(t, a, `one-${a.workspaceId.slice(-8)}`, file('one again')).expect(402);
    expect(refused.body).toMatchObject({ code: 'quota_exceeded', quota: 'projects', plan: 'free', limit: 1, usage: 2 });
    expect(refused.body.message).toContain('deploys are paused until it fits. Delete 1 project or upgrade the plan');
    const back = (await mailsTo(a.owner.email))[1];
    expect(back.parsed.subject).toContain('is back on the free plan');
    expect(back.parsed.text).toContain('2 projects (the free plan allows 1)');
    expect(back.parsed.text).toContain('Your sites keep serving; deploys are paused');

    // The owner updates the card in the portal; Stripe's retry succeeds: invoice.paid.
    const paidAt = new Date(graceEnd.getTime() + DAY);
    moveClockTo(paidAt);
    stripe.updateSubscription(subId, { status: 'active' });
    await deliver(event('invoice.paid', { ...failed, status: 'paid', amount_paid: 1900 }, paidAt)).expect(200);
    expect(await subscription(a)).toMatchObject({ tier: 'pro', status: 'active', pastDueSince: null });
    expect((await workspace(t, a)).plan).toBe('pro');
    await lazyDeploy(t, a, `one-${a.workspaceId.slice(-8)}`, file('one again')).expect(201);
    expect((await invoices(a)).data).toEqual([expect.objectContaining({ number: failed.number, status: 'paid', amountPaid: 1900 })]);

    // A redelivery of an event already handled: 200, nothing done.
    const before = await ledger();
    const replay = await deliver(failedEvent).expect(200);
    expect(replay.body).toEqual({ received: true, duplicate: true });
    expect(await ledger()).toBe(before);
    expect((await subscription(a)).status).toBe('active');
    expect(await mailsTo(a.owner.email)).toHaveLength(2);
  });

  it('out of order: a late payment_failed does not undo invoice.paid, a late checkout does not revive a deleted subscription', async () => {
    moveClockTo(T0);
    const a = await newTenant(t);
    const { customer, subId, session } = await checkout(a);
    const completed = event('checkout.session.completed', session, T0);
    const failed = invoice(customer, subId, a, { status: 'open' });
    const failedEvent = event('invoice.payment_failed', failed, new Date(T0.getTime() + 1000));
    const paidEvent = event('invoice.paid', { ...failed, status: 'paid', amount_paid: 1900 }, new Date(T0.getTime() + 2000));
    // Stripe has the subscription active again (the retry succeeded) by the time anything arrives.
    // Marked uncollectible by Stripe's dunning before the retry paid it; that event comes last of all.
    const uncollectibleEvent = event('invoice.payment_failed', { ...failed, status: 'uncollectible' }, new Date(T0.getTime() + 1500));
    await deliver(completed).expect(200);
    await deliver(paidEvent).expect(200);
    await deliver(failedEvent).expect(200);
    await deliver(uncollectibleEvent).expect(200);
    expect(await subscription(a)).toMatchObject({ tier: 'pro', status: 'active', pastDueSince: null });
    expect((await invoices(a)).data).toEqual([expect.objectContaining({ status: 'paid', amountPaid: 1900 })]);
    expect(await mailsTo(a.owner.email)).toEqual([]);

    // Deleted at Stripe; the deletion arrives before the (much delayed) checkout.session.completed of another delivery.
    const b = await newTenant(t);
    const late = await checkout(b);
    stripe.updateSubscription(late.subId, { status: 'canceled', end: seconds(T0) });
    await deliver(event('customer.subscription.deleted', stripe.subscriptionObject(late.subId), T0)).expect(200);
    await deliver(event('checkout.session.completed', late.session, new Date(T0.getTime() - 60_000))).expect(200);
    expect(await subscription(b)).toMatchObject({ tier: 'free', status: 'none' });
    expect((await workspace(t, b)).plan).toBe('free');
  });

  it('two deliveries whose reads of Stripe cross: the older read, committed last, does not bring the plan back', async () => {
    moveClockTo(T0);
    const a = await newTenant(t);
    const { subId, session } = await checkout(a);
    await deliver(event('checkout.session.completed', session, T0)).expect(200);
    expect((await workspace(t, a)).plan).toBe('pro');

    // The first delivery reads the subscription (active), then stalls before its transaction.
    const provider = t.app.get(PaymentProvider);
    const read = provider.retrieveSubscription.bind(provider);
    let stalled!: () => void;
    const stall = new Promise<void>((resolve) => (stalled = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    jest.spyOn(provider, 'retrieveSubscription').mockImplementationOnce(async (ref) => {
      const state = await read(ref);
      stalled();
      await released;
      return state;
    });
    const first = deliver(event('customer.subscription.updated', stripe.subscriptionObject(subId), T0)).then((res) => res);
    await stall;
    // Meanwhile Stripe ends it, and that delivery reads and commits first.
    stripe.updateSubscription(subId, { status: 'canceled', end: seconds(T0) });
    await deliver(event('customer.subscription.deleted', stripe.subscriptionObject(subId), T0)).expect(200);
    expect((await workspace(t, a)).plan).toBe('free');
    release();
    expect((await first).status).toBe(200);
    expect((await workspace(t, a)).plan).toBe('free');
    expect(await subscription(a)).toMatchObject({ tier: 'free', status: 'canceled' });
  });

  it('a stale event that first shows past_due does not start the grace before the renewal that failed', async () => {
    moveClockTo(T0);
    const a = await newTenant(t);
    const { subId, session } = await checkout(a);
    await deliver(event('checkout.session.completed', session, T0)).expect(200);
    // The renewal a month later fails; a customer.subscription.updated of two days before (its
    // delivery failed then, Stripe retries it now) is the first event to arrive.
    const renewedAt = new Date(T0.getTime() + 31 * DAY);
    const now = new Date(renewedAt.getTime() + 60_000);
    moveClockTo(now);
    stripe.updateSubscription(subId, { status: 'past_due', start: seconds(renewedAt), end: seconds(new Date(renewedAt.getTime() + 30 * DAY)) });
    await deliver(event('customer.subscription.updated', stripe.subscriptionObject(subId), new Date(renewedAt.getTime() - 2 * DAY))).expect(200);
    expect(await subscription(a)).toMatchObject({
      status: 'past_due',
      pastDueSince: renewedAt.toISOString(),
      graceEndsAt: new Date(renewedAt.getTime() + 7 * DAY).toISOString(),
    });
  });

  it('grace over and swept: a further failed retry of Stripe does not give the plan back for another grace', async () => {
    moveClockTo(T0);
    const a = await newTenant(t);
    const { customer, subId, session } = await checkout(a);
    await deliver(event('checkout.session.completed', session, T0)).expect(200);
    const failedAt = new Date(T0.getTime() + DAY);
    moveClockTo(failedAt);
    stripe.updateSubscription(subId, { status: 'past_due' });
    const failed = invoice(customer, subId, a, { status: 'open', attempt_count: 1 });
    await deliver(event('invoice.payment_failed', failed, failedAt)).expect(200);
    const graceEnd = new Date(failedAt.getTime() + 7 * DAY);
    moveClockTo(graceEnd);
    await t.app.get(BillingSweeper).runOnce();
    expect((await workspace(t, a)).plan).toBe('free');

    // Stripe's retries go on past our grace (its schedule is its own); the subscription is still past_due there.
    const retriedAt = new Date(graceEnd.getTime() + 2 * DAY);
    moveClockTo(retriedAt);
    await deliver(event('invoice.payment_failed', { ...failed, attempt_count: 4 }, retriedAt)).expect(200);
    expect(await subscription(a)).toMatchObject({ tier: 'free', status: 'canceled', pastDueSince: null, graceEndsAt: null });
    expect((await workspace(t, a)).plan).toBe('free');
    const subjects = (await mailsTo(a.owner.email)).map((m) => m.parsed.subject);
    expect(subjects.filter((s) => s?.includes('Payment failed'))).toHaveLength(1);

    // Paid at last: active again, as before.
    stripe.updateSubscription(subId, { status: 'active' });
    await deliver(event('invoice.paid', { ...failed, status: 'paid', amount_paid: 1900 }, retriedAt)).expect(200);
    expect(await subscription(a)).toMatchObject({ tier: 'pro', status: 'active' });
    expect((await workspace(t, a)).plan).toBe('pro');
  });

  it('grace over while Stripe still retries the old subscription: no second one through Checkout or activate-plan until Stripe ends it', async () => {
    moveClockTo(T0);
    const a = await newTenant(t);
    const owner = bearer(a.owner.accessToken);
    const { customer, subId, session } = await checkout(a);
    await deliver(event('checkout.session.completed', session, T0)).expect(200);
    const failedAt = new Date(T0.getTime() + DAY);
    moveClockTo(failedAt);
    stripe.updateSubscription(subId, { status: 'past_due' });
    await deliver(event('invoice.payment_failed', invoice(customer, subId, a, { status: 'open' }), failedAt)).expect(200);
    moveClockTo(new Date(failedAt.getTime() + 7 * DAY));
    await t.app.get(BillingSweeper).runOnce();
    expect((await workspace(t, a)).plan).toBe('free');

    // Stripe still retries the first subscription: a second one would charge the workspace twice once a retry succeeds.
    const mark = stripe.calls.length;
    const refused = await t.http().post('/billing/checkout').set(owner).send({ workspaceId: a.workspaceId, tier: 'pro', interval: 'month' }).expect(409);
    expect(refused.body).toMatchObject({ code: 'subscription_exists' });
    expect(refused.body.message).toContain('POST /billing/portal');
    expect(stripe.since(mark).map((c) => `${c.method} ${c.path}`)).not.toContain('POST /v1/checkout/sessions');
    // Nor through activate-plan with a card saved here.
    await t.http().post('/billing/payment-methods').set(owner).send({ workspaceId: a.workspaceId, paymentMethodToken: 'pm_card_visa' }).expect(201);
    const again = await t.http().post('/billing/activate-plan').set(owner).send({ workspaceId: a.workspaceId, tier: 'pro', interval: 'month' }).expect(409);
    expect(again.body).toMatchObject({ code: 'subscription_exists' });
    expect(stripe.since(mark).map((c) => `${c.method} ${c.path}`)).not.toContain('POST /v1/subscriptions');

    // Stripe gives up and cancels it: a fresh Checkout may start.
    stripe.updateSubscription(subId, { status: 'canceled' });
    await t.http().post('/billing/checkout').set(owner).send({ workspaceId: a.workspaceId, tier: 'pro', interval: 'month' }).expect(200);
  });

  it('past_due past its grace counts as free for the spend cap before the sweeper runs', async () => {
    moveClockTo(T0);
    const a = await newTenant(t);
    const { customer, subId, session } = await checkout(a);
    await deliver(event('checkout.session.completed', session, T0)).expect(200);
    await t.http().put('/billing/spend-cap').set(bearer(a.owner.accessToken)).send({ workspaceId: a.workspaceId, pauseSitesAtLimit: true }).expect(200);
    // 200 GB this month: past free's 100 GB, well within pro's 1 TB.
    await t.dataSource.query('INSERT INTO workspace_monthly_usage (workspace_id, month, bandwidth_bytes) VALUES ($1, $2, $3)', [
      a.workspaceId,
      '2030-01-01',
      String(200 * 1024 ** 3),
    ]);
    const pauses = t.app.get(SitePauses);
    await pauses.refresh();
    expect(pauses.isPaused(a.workspaceId)).toBe(false);

    const failedAt = new Date(T0.getTime() + DAY);
    moveClockTo(failedAt);
    stripe.updateSubscription(subId, { status: 'past_due' });
    await deliver(event('invoice.payment_failed', invoice(customer, subId, a, { status: 'open' }), failedAt)).expect(200);
    // Grace over, the sweeper not yet run: the plan in force is free, so the cap pauses the sites.
    moveClockTo(new Date(failedAt.getTime() + 7 * DAY));
    expect((await t.http().get('/billing/usage').query({ workspaceId: a.workspaceId }).set(bearer(a.owner.accessToken)).expect(200)).body).toMatchObject({
      plan: 'free',
      spendCap: { pauseSitesAtLimit: true, sitesPaused: true },
    });
    await pauses.refresh();
    expect(pauses.isPaused(a.workspaceId)).toBe(true);
    // The sweeper ends it; the mail names the month's bandwidth among what no longer fits (deploys wait for it too).
    await t.app.get(BillingSweeper).runOnce();
    const back = (await mailsTo(a.owner.email)).find((m) => m.parsed.subject?.includes('is back on the free plan'));
    expect(back?.parsed.text).toContain('200 GB served this month (the free plan includes 100 GB a month)');
    expect(back?.parsed.text).not.toContain('Everything it has fits the free plan');
  });

  it('mirrors invoices without going back: a late invoice.created (draft) after invoice.finalized leaves it open', async () => {
    moveClockTo(T0);
    const a = await newTenant(t);
    const { customer, subId, session } = await checkout(a);
    await deliver(event('checkout.session.completed', session)).expect(200);
    const finalized = invoice(customer, subId, a, { status: 'open', amount_due: 1900 });
    await deliver(event('invoice.finalized', finalized, new Date(T0.getTime() + 2000))).expect(200);
    await deliver(event('invoice.created', { ...finalized, status: 'draft', number: null, amount_due: 0, hosted_invoice_url: null }, T0)).expect(200);
    expect((await invoices(a)).data).toEqual([expect.objectContaining({ number: finalized.number, status: 'open', amountDue: 1900 })]);
  });

  it('acts once on an event delivered several times at once', async () => {
    moveClockTo(T0);
    const a = await newTenant(t);
    const { customer, subId, session } = await checkout(a);
    await deliver(event('checkout.session.completed', session)).expect(200);
    stripe.updateSubscription(subId, { status: 'past_due' });
    const failed = event('invoice.payment_failed', invoice(customer, subId, a, { status: 'open' }));
    const answers = await Promise.all([1, 2, 3].map(() => deliver(failed)));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(answers.filter((r) => r.body.duplicate === true)).toHaveLength(2);
    expect(await t.dataSource.query('SELECT type FROM billing_events WHERE provider_event_id = $1', [failed.id])).toEqual([{ type: 'invoice.payment_failed' }]);
    expect(await mailsTo(a.owner.email)).toHaveLength(1);
    expect((await invoices(a)).data).toHaveLength(1);
  });

  it('refuses a forged signature (400) and changes nothing', async () => {
    const a = await newTenant(t);
    const { session } = await checkout(a);
    const before = await ledger();
    const forged = await deliver(event('checkout.session.completed', session), 'whsec_notTheSecret').expect(400);
    expect(forged.body).toMatchObject({ statusCode: 400, code: 'invalid_signature' });
    expect(forged.body.message).toContain('STRIPE_WEBHOOK_SECRET');
    // Signed, then altered.
    const payload = JSON.stringify(event('checkout.session.completed', session));
    const header = signer.webhooks.generateTestHeaderString({ payload, secret: SECRET });
    const altered = payload.replace(a.workspaceId, (await newTenant(t)).workspaceId);
    await t.http().post('/billing/stripe/webhook').set('Content-Type', 'application/json').set('Stripe-Signature', header).send(altered).expect(400);
    // No signature at all.
    const missing = await t.http().post('/billing/stripe/webhook').set('Content-Type', 'application/json').send(payload).expect(400);
    expect(missing.body.message).toContain('Stripe-Signature header is missing');
    expect(await ledger()).toBe(before);
    expect((await workspace(t, a)).plan).toBe('free');
    expect(await subscription(a)).toMatchObject({ status: 'none' });
  });

  it('refuses a captured delivery replayed after the tolerance (400), a body over 1 MB (413) and a signed body that is no event (400), recording nothing', async () => {
    const a = await newTenant(t);
    const { session } = await checkout(a);
    const before = await ledger();
    const payload = JSON.stringify(event('checkout.session.completed', session));
    // Signed by Stripe ten minutes ago (the SDK's tolerance is five): someone replays what they captured.
    const old = signer.webhooks.generateTestHeaderString({ payload, secret: SECRET, timestamp: Math.floor(Date.now() / 1000) - 600 });
    const stale = await t.http().post('/billing/stripe/webhook').set('Content-Type', 'application/json').set('Stripe-Signature', old).send(payload).expect(400);
    expect(stale.body).toMatchObject({ code: 'invalid_signature' });
    expect(stale.body.message).not.toContain(SECRET);
    const huge = JSON.stringify({ ...event('checkout.session.completed', session), padding: 'x'.repeat(1024 * 1024) });
    const tooLarge = await deliver(JSON.parse(huge)).expect(413);
    expect(tooLarge.body).toMatchObject({ code: 'payload_too_large' });
    for (const notAnEvent of [
      { id: 'evt_shapeless', type: 'invoice.paid', created: 1 },
      { id: 'evt_nulldata', type: 'invoice.paid', created: 1, data: null },
      [1, 2],
    ]) {
      const res = await deliver(notAnEvent as object);
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'invalid_signature' });
    }
    expect(await ledger()).toBe(before);
    expect(await subscription(a)).toMatchObject({ status: 'none' });
  });

  it('cancellation at period end: kept until then, free after, the owners told', async () => {
    moveClockTo(T0);
    const a = await newTenant(t);
    const { subId, session } = await checkout(a, 'price_teamYear');
    await deliver(event('checkout.session.completed', session)).expect(200);
    expect(await subscription(a)).toMatchObject({ tier: 'team', interval: 'year', status: 'active' });
    // Cancelled in the portal: customer.subscription.updated with cancel_at_period_end.
    stripe.updateSubscription(subId, { cancelAtPeriodEnd: true });
    await deliver(event('customer.subscription.updated', stripe.subscriptionObject(subId))).expect(200);
    const { items } = stripe.subscriptionObject(subId) as { items: { data: { current_period_end: number }[] } };
    const end = new Date(items.data[0].current_period_end * 1000);
    expect(await subscription(a)).toMatchObject({ tier: 'team', status: 'active', cancelAtPeriodEnd: true, currentPeriodEnd: end.toISOString() });
    moveClockTo(new Date(end.getTime() - 1));
    expect((await workspace(t, a)).plan).toBe('team');
    // The period ends: Stripe deletes the subscription.
    moveClockTo(end);
    stripe.updateSubscription(subId, { status: 'canceled' });
    await deliver(event('customer.subscription.deleted', stripe.subscriptionObject(subId), end)).expect(200);
    expect(await subscription(a)).toMatchObject({ tier: 'free', status: 'canceled' });
    expect((await t.dataSource.query('SELECT plan FROM workspaces WHERE id = $1', [a.workspaceId]))[0].plan).toBe('free');
    const [mail] = await mailsTo(a.owner.email);
    expect(mail.parsed.subject).toContain('is back on the free plan');
    expect(mail.parsed.text).toContain('The team plan was cancelled and its paid period is over');
    expect(mail.parsed.text).toContain('Everything it has fits the free plan');
  });

  it('a dispute flags the workspace for the operator: disputed in the subscription, a warning in the log', async () => {
    const a = await newTenant(t);
    const { customer, session } = await checkout(a);
    await deliver(event('checkout.session.completed', session)).expect(200);
    const charge = stripe.addCharge(customer);
    await deliver(
      event('charge.dispute.created', { id: `dp_test${++seq}`, object: 'dispute', charge, amount: 1900, currency: 'usd', reason: 'fraudulent' }),
    ).expect(200);
    expect(await subscription(a)).toMatchObject({ disputed: true, status: 'active' });
    const warning = t.logs.find((line) => line.includes(`workspace ${a.workspaceId}: Stripe reports a dispute`));
    expect(warning && JSON.parse(warning)).toMatchObject({ level: 'warn' });
  });

  it('trial ending mails the owners; a card removed in the portal leaves the payment methods', async () => {
    const a = await newTenant(t);
    // A card saved through the API (the adapter attaches it to the workspace's customer).
    const saved = await t
      .http()
      .post('/billing/payment-methods')
      .set(bearer(a.owner.accessToken))
      .send({ workspaceId: a.workspaceId, paymentMethodToken: 'pm_1PortalRemoves' })
      .expect(201);
    const [{ customer_ref: customer }] = await t.dataSource.query('SELECT customer_ref FROM billing_customers WHERE workspace_id = $1', [a.workspaceId]);
    const subId = stripe.addSubscription({ customer, price: 'price_proMonth', metadata: { workspace_id: a.workspaceId } });
    const trialEnd = new Date(T0.getTime() + 3 * DAY);
    stripe.updateSubscription(subId, { status: 'trialing', trialEnd: seconds(trialEnd) });
    moveClockTo(T0);
    await deliver(event('customer.subscription.trial_will_end', stripe.subscriptionObject(subId))).expect(200);
    expect(await subscription(a)).toMatchObject({ tier: 'pro', status: 'active' });
    const [mail] = await mailsTo(a.owner.email);
    expect(mail.parsed.subject).toContain('trial of');
    expect(mail.parsed.text).toContain(`ends at ${trialEnd.toISOString().slice(0, 10)} 10:00 UTC`);

    await deliver(event('payment_method.detached', { id: 'pm_1PortalRemoves', object: 'payment_method', customer: null, type: 'card' })).expect(200);
    const list = await t.http().get('/billing/payment-methods').query({ workspaceId: a.workspaceId }).set(bearer(a.owner.accessToken)).expect(200);
    expect(list.body.data.map((m: { id: string }) => m.id)).not.toContain(saved.body.id);
  });

  it('GET /billing/invoices is for owners', async () => {
    const a = await newTenant(t);
    const admin = await registerUser(t);
    await addMember(t, a.owner, admin, 'admin');
    const res = await t.http().get('/billing/invoices').query({ workspaceId: a.workspaceId }).set(bearer(admin.accessToken)).expect(403);
    expect(res.body.code).toBe('owner_required');
    expect(await invoices(a)).toEqual({ data: [], meta: { total: 0, page: 1, limit: 20, totalPages: 0 } });
  });
});
