import type Stripe from 'stripe';

import { invoiceOf, providerEventOf, subscriptionStateOf, subscriptionStatusOf, tierOfPrice } from './stripe-events';

const prices = { pro: { month: 'price_pm', year: 'price_py' }, team: { month: 'price_tm', year: 'price_ty' } };
const event = (type: string, object: object) => ({ id: 'evt_1', object: 'event', type, created: 1_900_000_000, data: { object } }) as unknown as Stripe.Event;
const sub = (fields: object = {}) =>
  ({
    id: 'sub_1',
    object: 'subscription',
    customer: 'cus_1',
    status: 'active',
    cancel_at_period_end: false,
    metadata: { workspace_id: 'ws_1' },
    trial_end: null,
    created: 1_800_000_000,
    items: { data: [{ id: 'si_1', price: { id: 'price_ty' }, current_period_start: 1_800_000_000, current_period_end: 1_831_536_000 }] },
    ...fields,
  }) as unknown as Stripe.Subscription;

describe('Stripe objects read into billing’s terms', () => {
  it('knows the tier and interval of the configured prices only', () => {
    expect(tierOfPrice(prices, 'price_tm')).toEqual({ tier: 'team', interval: 'month' });
    expect(tierOfPrice(prices, 'price_other')).toBeNull();
    expect(tierOfPrice(prices, undefined)).toBeNull();
  });

  it('reads Stripe’s statuses as active, past_due, canceled or not yet paid', () => {
    expect(['active', 'trialing'].map((s) => subscriptionStatusOf(s))).toEqual(['active', 'active']);
    expect(['past_due', 'unpaid'].map((s) => subscriptionStatusOf(s))).toEqual(['past_due', 'past_due']);
    expect(['canceled', 'incomplete_expired', 'paused'].map((s) => subscriptionStatusOf(s))).toEqual(['canceled', 'canceled', 'canceled']);
    expect(subscriptionStatusOf('incomplete')).toBe('incomplete');
  });

  it('reads a subscription’s period from its item', () => {
    expect(subscriptionStateOf(sub({ status: 'trialing', trial_end: 1_800_100_000 }), prices)).toEqual({
      ref: 'sub_1',
      itemRef: 'si_1',
      customerRef: 'cus_1',
      workspaceId: 'ws_1',
      status: 'active',
      tier: 'team',
      interval: 'year',
      cancelAtPeriodEnd: false,
      periodAnchor: new Date(1_800_000_000_000),
      currentPeriodEnd: new Date(1_831_536_000_000),
      trialEnd: new Date(1_800_100_000_000),
    });
  });

  it('finds the customer, subscription and workspace each event names', () => {
    const checkout = providerEventOf(
      event('checkout.session.completed', { object: 'checkout.session', customer: 'cus_1', subscription: 'sub_1', client_reference_id: 'ws_9', metadata: {} }),
    );
    expect(checkout).toMatchObject({ id: 'evt_1', type: 'checkout.session.completed', customerRef: 'cus_1', subscriptionRef: 'sub_1', workspaceId: 'ws_9' });
    expect(checkout.createdAt).toEqual(new Date(1_900_000_000_000));
    expect(providerEventOf(event('customer.subscription.deleted', sub()))).toMatchObject({
      subscriptionRef: 'sub_1',
      customerRef: 'cus_1',
      workspaceId: 'ws_1',
    });
    const invoice = {
      object: 'invoice',
      id: 'in_1',
      customer: 'cus_1',
      number: 'A-1',
      status: 'paid',
      amount_due: 1900,
      amount_paid: 1900,
      currency: 'usd',
      period_start: 1,
      period_end: 2,
      hosted_invoice_url: null,
      parent: { type: 'subscription_details', subscription_details: { subscription: 'sub_1', metadata: { workspace_id: 'ws_1' } } },
    };
    expect(providerEventOf(event('invoice.paid', invoice))).toMatchObject({
      subscriptionRef: 'sub_1',
      workspaceId: 'ws_1',
      invoice: { ref: 'in_1', status: 'paid' },
    });
    expect(providerEventOf(event('charge.dispute.created', { object: 'dispute', id: 'dp_1', charge: 'ch_1' }))).toMatchObject({
      chargeRef: 'ch_1',
      customerRef: null,
    });
    expect(providerEventOf(event('payment_method.detached', { object: 'payment_method', id: 'pm_1', customer: null }))).toMatchObject({
      paymentMethodRef: 'pm_1',
    });
    expect(providerEventOf(event('product.created', { object: 'product', id: 'prod_1' }))).toMatchObject({
      customerRef: null,
      subscriptionRef: null,
      invoice: null,
    });
  });

  it('shows an invoice status it does not know as still open', () => {
    const read = invoiceOf({
      id: 'in_2',
      status: 'something_new',
      amount_due: 1,
      amount_paid: 0,
      currency: 'eur',
      period_start: 1,
      period_end: 2,
    } as unknown as Stripe.Invoice);
    expect(read).toMatchObject({ status: 'open', number: null, hostedInvoiceUrl: null, currency: 'eur' });
  });
});

describe('providerEventOf on a verified body that is no readable event', () => {
  it.each([
    ['an array', [1, 2], 'not a JSON object'],
    ['no id', { type: 'invoice.paid', created: 1, data: { object: {} } }, 'no id'],
    ['no type', { id: 'evt_1', created: 1, data: { object: {} } }, 'no type'],
    ['no created', { id: 'evt_1', type: 'invoice.paid', data: { object: {} } }, 'no created time'],
    ['no data', { id: 'evt_1', type: 'invoice.paid', created: 1 }, 'no data.object'],
    ['a null object', { id: 'evt_1', type: 'invoice.paid', created: 1, data: { object: null } }, 'no data.object'],
    [
      'an invoice without its period',
      { id: 'evt_1', type: 'invoice.paid', created: 1, data: { object: { object: 'invoice', id: 'in_1', amount_due: 1, amount_paid: 1, currency: 'usd' } } },
      'no period_start',
    ],
  ])('%s: MalformedEventError naming what is missing', (_, body, message) => {
    expect(() => providerEventOf(body)).toThrow(expect.objectContaining({ name: 'MalformedEventError', message: expect.stringContaining(message) }));
  });
});
