/**
 * Pure readings of Stripe's objects into billing's own terms (issue 31): which tier a
 * price is, what a Stripe subscription status means here, and what of an event billing
 * acts on. Types only from the SDK, so reading costs nothing at start-up.
 */
import type Stripe from 'stripe';

import type { Interval, PaidTier } from '../quotas/plans';
import type { InvoiceStatus } from './billing.entities';
import { MalformedEventError, type ProviderEvent, type ProviderInvoice, type ProviderSubscriptionState } from './payment-provider';

export type PriceTable = Record<PaidTier, Record<Interval, string>>;

const INVOICE_STATUSES: readonly string[] = ['draft', 'open', 'paid', 'uncollectible', 'void'];

/** The tier and interval a price id sells on this installation; null for a price it does not know. */
export function tierOfPrice(prices: PriceTable, priceId: string | null | undefined): { tier: PaidTier; interval: Interval } | null {
  for (const tier of Object.keys(prices) as PaidTier[]) {
    for (const interval of Object.keys(prices[tier]) as Interval[]) {
      if (prices[tier][interval] === priceId) return { tier, interval };
    }
  }
  return null;
}

/**
 * Stripe's status in our three states (plus `incomplete`: not paid yet, nothing to apply).
 * `trialing` runs the plan like `active`; `unpaid` (retries exhausted, kept open) is a
 * failed renewal like `past_due`, whose grace then ends it; `paused` and
 * `incomplete_expired` run no paid plan.
 */
export function subscriptionStatusOf(status: Stripe.Subscription.Status): ProviderSubscriptionState['status'] {
  switch (status) {
    case 'active':
    case 'trialing':
      return 'active';
    case 'past_due':
    case 'unpaid':
      return 'past_due';
    case 'incomplete':
      return 'incomplete';
    default:
      return 'canceled';
  }
}

const idOf = (value: string | { id: string } | null | undefined): string | null => (value == null ? null : typeof value === 'string' ? value : value.id);
const at = (seconds: number) => new Date(seconds * 1000);

export function subscriptionStateOf(sub: Stripe.Subscription, prices: PriceTable): ProviderSubscriptionState {
  // Since API version 2025-03-31 the period lives on the items; ours have one.
  const item = sub.items.data[0];
  const sold = tierOfPrice(prices, item?.price?.id);
  return {
    ref: sub.id,
    itemRef: item?.id ?? null,
    customerRef: idOf(sub.customer),
    workspaceId: sub.metadata?.workspace_id ?? null,
    status: subscriptionStatusOf(sub.status),
    tier: sold?.tier ?? null,
    interval: sold?.interval ?? null,
    cancelAtPeriodEnd: sub.cancel_at_period_end,
    periodAnchor: at(item?.current_period_start ?? sub.start_date ?? sub.created),
    currentPeriodEnd: at(item?.current_period_end ?? sub.ended_at ?? sub.created),
    trialEnd: sub.trial_end ? at(sub.trial_end) : null,
  };
}

export function invoiceOf(invoice: Stripe.Invoice): ProviderInvoice | null {
  if (!invoice.id) return null;
  return {
    ref: invoice.id,
    number: invoice.number ?? null,
    // A status Stripe adds later is shown as the nearest we know: still to be paid.
    status: (INVOICE_STATUSES.includes(invoice.status ?? '') ? invoice.status : 'open') as InvoiceStatus,
    amountDue: invoice.amount_due,
    amountPaid: invoice.amount_paid,
    currency: invoice.currency,
    periodStart: at(invoice.period_start),
    periodEnd: at(invoice.period_end),
    hostedInvoiceUrl: invoice.hosted_invoice_url ?? null,
  };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The signature proves who sent the bytes, not what they hold: a body without the fields read
 * here would otherwise fail later as a 500 (or write an invalid date). Throws MalformedEventError.
 */
function assertReadable(event: unknown): asserts event is Stripe.Event {
  if (!isObject(event)) throw new MalformedEventError('the body is not a JSON object');
  if (typeof event.id !== 'string' || event.id === '') throw new MalformedEventError('the event has no id');
  if (typeof event.type !== 'string') throw new MalformedEventError(`event ${event.id} has no type`);
  if (typeof event.created !== 'number' || !Number.isFinite(event.created)) throw new MalformedEventError(`event ${event.id} has no created time`);
  if (!isObject(event.data) || !isObject(event.data.object)) throw new MalformedEventError(`event ${event.id} has no data.object`);
  const object = event.data.object;
  if (object.object === 'invoice') {
    for (const field of ['amount_due', 'amount_paid', 'period_start', 'period_end']) {
      if (typeof object[field] !== 'number') throw new MalformedEventError(`event ${event.id}: the invoice has no ${field}`);
    }
    if (typeof object.currency !== 'string') throw new MalformedEventError(`event ${event.id}: the invoice has no currency`);
  }
}

/** What billing acts on in an event; the rest of Stripe's object is not kept. Throws MalformedEventError for a body that is no readable event. */
export function providerEventOf(event: unknown): ProviderEvent {
  assertReadable(event);
  const base: ProviderEvent = {
    id: event.id,
    type: event.type,
    createdAt: at(event.created),
    customerRef: null,
    subscriptionRef: null,
    workspaceId: null,
    invoice: null,
    paymentMethodRef: null,
    chargeRef: null,
    checkoutSessionRef: null,
  };
  const object = event.data.object as { object?: string };
  switch (object.object) {
    case 'checkout.session': {
      const session = object as Stripe.Checkout.Session;
      return {
        ...base,
        customerRef: idOf(session.customer),
        subscriptionRef: idOf(session.subscription),
        checkoutSessionRef: session.id,
        workspaceId: session.metadata?.workspace_id ?? session.client_reference_id ?? null,
      };
    }
    case 'subscription': {
      const sub = object as Stripe.Subscription;
      return { ...base, customerRef: idOf(sub.customer), subscriptionRef: sub.id, workspaceId: sub.metadata?.workspace_id ?? null };
    }
    case 'invoice': {
      const invoice = object as Stripe.Invoice;
      const details = invoice.parent?.subscription_details;
      return {
        ...base,
        customerRef: idOf(invoice.customer),
        subscriptionRef: idOf(details?.subscription),
        workspaceId: details?.metadata?.workspace_id ?? null,
        invoice: invoiceOf(invoice),
      };
    }
    case 'payment_method': {
      const method = object as Stripe.PaymentMethod;
      return { ...base, customerRef: idOf(method.customer), paymentMethodRef: method.id };
    }
    case 'customer': {
      const customer = object as Stripe.Customer;
      return { ...base, customerRef: customer.id, workspaceId: customer.metadata?.workspace_id ?? null };
    }
    case 'dispute': {
      const dispute = object as Stripe.Dispute;
      return { ...base, chargeRef: idOf(dispute.charge) };
    }
    default:
      return base;
  }
}
