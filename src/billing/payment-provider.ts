import type { Interval, PaidTier } from '../quotas/plans';
import type { InvoiceStatus, PaymentProviderName } from './billing.entities';

export interface CardDetails {
  brand: string | null;
  last4: string | null;
  expMonth: number | null;
  expYear: number | null;
}

export interface AttachedPaymentMethod {
  /** The provider's reference, stored instead of the token. */
  ref: string;
  card: CardDetails;
}

export interface ProviderSubscription {
  /** null for a provider that keeps no subscriptions of its own (local). */
  ref: string | null;
  itemRef: string | null;
  /** When the period now running starts counting (activation or an interval change). */
  periodAnchor: Date;
  currentPeriodEnd: Date;
}

export interface CurrentSubscription {
  ref: string | null;
  itemRef: string | null;
  tier: PaidTier;
  interval: Interval;
  periodAnchor: Date;
  currentPeriodEnd: Date;
}

/**
 * A subscription as the provider says it is now: re-read for every event about it, so
 * events arriving late or out of order apply the current state, never an old one.
 */
/** What became of a Checkout Session closed before another starts (PaymentProvider.expireCheckoutSession). */
export type CheckoutOutcome = { status: 'expired' } | { status: 'completed'; subscriptionRef: string | null };

export interface ProviderSubscriptionState {
  ref: string;
  itemRef: string | null;
  customerRef: string | null;
  /** `metadata.workspace_id`, set by us (activation, Checkout's `subscription_data`). */
  workspaceId: string | null;
  /**
   * Read into our states: `active` (Stripe's active and trialing), `past_due` (past_due,
   * unpaid), `canceled` (canceled, incomplete_expired, paused: no paid plan running), or
   * `incomplete` (its first payment is not made yet: nothing to apply).
   */
  status: 'active' | 'past_due' | 'canceled' | 'incomplete';
  /** null: a price this installation does not sell (no STRIPE_PRICE_* names it). */
  tier: PaidTier | null;
  interval: Interval | null;
  cancelAtPeriodEnd: boolean;
  periodAnchor: Date;
  currentPeriodEnd: Date;
  trialEnd: Date | null;
}

/** A provider invoice, as mirrored into billing_invoices. */
export interface ProviderInvoice {
  ref: string;
  number: string | null;
  status: InvoiceStatus;
  amountDue: number;
  amountPaid: number;
  currency: string;
  periodStart: Date;
  periodEnd: Date;
  hostedInvoiceUrl: string | null;
}

/** A verified provider event, reduced to what billing acts on (src/billing/stripe-events.ts reads Stripe's). */
export interface ProviderEvent {
  /** e.g. `evt_…`: the ledger's key. */
  id: string;
  type: string;
  createdAt: Date;
  customerRef: string | null;
  subscriptionRef: string | null;
  /** The workspace the event names itself (`metadata.workspace_id`, Checkout's `client_reference_id`). */
  workspaceId: string | null;
  invoice: ProviderInvoice | null;
  /** The payment method of `payment_method.detached`. */
  paymentMethodRef: string | null;
  /** The charge of `charge.dispute.created`, whose customer is the disputing one. */
  chargeRef: string | null;
  /** The Checkout Session of a `checkout.session.*` event. */
  checkoutSessionRef: string | null;
}

/** The webhook's signature does not verify (wrong secret, altered body, too old): nothing is read from it. */
export class WebhookSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookSignatureError';
  }
}

/** A verified delivery whose body is not an event billing can read (no id, type, time or object): answered 400, nothing recorded. */
export class MalformedEventError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedEventError';
  }
}

/** Why the provider refused; BillingService turns each into the HTTP answer. */
export type PaymentProviderErrorKind =
  /** The token is not a payment method the provider knows (400). */
  | 'invalid_payment_method'
  /** The card was declined or needs the customer present (402). */
  | 'declined'
  /** The provider could not be reached or failed (502); nothing was changed on our side. */
  | 'unavailable'
  /** The provider has no such feature (the local provider has no hosted Checkout or portal): 409. */
  | 'unsupported';

export interface CheckoutSessionInput {
  workspaceId: string;
  customerRef: string | null;
  tier: PaidTier;
  interval: Interval;
  /** Where the payer lands after paying, and after giving up: the dashboard's billing page. */
  successUrl: string;
  cancelUrl: string;
  /** Same key, same session: a double click opens one Checkout, not two. */
  idempotencyKey: string;
}

/** A page of the provider's own where the customer pays (Checkout) or manages billing (portal). */
export interface HostedSession {
  id: string;
  url: string;
}

export class PaymentProviderError extends Error {
  constructor(
    readonly kind: PaymentProviderErrorKind,
    message: string,
    /** The provider's own code (e.g. Stripe's `card_declined`), for the response and the logs. */
    readonly providerCode?: string,
  ) {
    super(message);
    this.name = 'PaymentProviderError';
  }
}

/**
 * Where money is taken. `local` (the self-hosting default) checks a token's shape
 * and charges nothing; `stripe` uses Stripe customers, payment methods and
 * off-session subscriptions. Adapters keep no state: BillingService stores what
 * they return.
 */
export abstract class PaymentProvider {
  abstract readonly name: PaymentProviderName;

  /** A reason the token is malformed (400 before any call is made), or null. */
  abstract tokenProblem(token: string): string | null;

  /** The reference a token will be stored under, to spot a method saved twice. */
  abstract refOf(token: string): string;

  /** Creates the workspace's customer; null when the provider has no customers. */
  abstract createCustomer(workspace: { id: string; name: string }, email: string): Promise<string | null>;

  /** Attaches the payment method to the customer and makes it the one charged from now on. */
  abstract attachPaymentMethod(customerRef: string | null, token: string): Promise<AttachedPaymentMethod>;

  /** Removes a payment method; `nextDefault` (the newest remaining one) is charged from now on. */
  abstract detachPaymentMethod(customerRef: string | null, ref: string, nextDefault: string | null): Promise<void>;

  /** Starts a subscription charged off-session to the customer's default payment method. */
  abstract subscribe(input: {
    workspaceId: string;
    customerRef: string | null;
    tier: PaidTier;
    interval: Interval;
    /** Same key, same subscription: a retry never starts a second one. */
    idempotencyKey: string;
  }): Promise<ProviderSubscription>;

  /** Moves a running subscription to another tier or interval and lifts a scheduled cancellation. */
  abstract changeSubscription(current: CurrentSubscription, tier: PaidTier, interval: Interval): Promise<ProviderSubscription>;

  /** Schedules the end of the subscription at the end of the period now running. */
  abstract cancelAtPeriodEnd(current: CurrentSubscription): Promise<ProviderSubscription>;

  /**
   * Issue 31, metering: reports `value` units of `eventName`'s meter for the customer (the
   * bandwidth overage). `identifier` is the same for a retry of the same report, so the
   * provider counts it once. A provider that bills nothing (local) does nothing.
   */
  abstract reportUsage(input: { customerRef: string; eventName: string; value: number; identifier: string; timestamp: Date }): Promise<void>;
  /** Whether payments go through the provider's own pages (Checkout and the portal); the local provider has none. */
  readonly hostedBilling: boolean = false;

  /** A hosted page where the customer pays for `tier` every `interval`, which starts the subscription. */
  abstract createCheckoutSession(input: CheckoutSessionInput): Promise<HostedSession>;

  /**
   * Closes a Checkout Session so it can no longer be paid: `expired` when it is closed (now
   * or before, or unknown to the provider), `completed` when it was paid first, with the
   * subscription it started.
   */
  abstract expireCheckoutSession(ref: string): Promise<CheckoutOutcome>;

  /** A hosted page where the customer changes cards, reads invoices or cancels; it links back to `returnUrl`. */
  abstract createPortalSession(input: { customerRef: string | null; returnUrl: string }): Promise<HostedSession>;

  // Issue 31, the subscription lifecycle (webhooks).

  /** Verifies a webhook delivery's signature over its raw bytes and reads the event; WebhookSignatureError when it does not verify. */
  abstract verifyEvent(payload: Buffer, signature: string, secret: string): ProviderEvent;

  /** The subscription as it is now; null when the provider has none by that reference (or keeps no subscriptions). */
  abstract retrieveSubscription(ref: string): Promise<ProviderSubscriptionState | null>;

  /** The customer a charge was made to (a dispute names only its charge); null when unknown. */
  abstract customerOfCharge(chargeRef: string): Promise<string | null>;
}
