import type { Interval, PaidTier } from '../quotas/plans';
import type { PaymentProviderName } from './billing.entities';

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

  /** A hosted page where the customer changes cards, reads invoices or cancels; it links back to `returnUrl`. */
  abstract createPortalSession(input: { customerRef: string | null; returnUrl: string }): Promise<HostedSession>;
}
