import { createHash } from 'node:crypto';

import type { Clock } from '../common/time';
import type { Interval, PaidTier } from '../quotas/plans';
import { addIntervals, periodEndAt } from '../quotas/quota';
import {
  type AttachedPaymentMethod,
  type CardDetails,
  type CheckoutOutcome,
  type CurrentSubscription,
  type HostedSession,
  PaymentProvider,
  PaymentProviderError,
  type ProviderEvent,
  type ProviderSubscription,
  type ProviderSubscriptionState,
} from './payment-provider';

/** Payment method tokens as a dashboard gets them from a card form (Stripe.js style): `pm_` and up to 200 letters, digits or `_`. */
export const PAYMENT_METHOD_TOKEN = /^pm_[A-Za-z0-9_]{1,200}$/;

export function paymentMethodTokenProblem(token: string): string | null {
  return PAYMENT_METHOD_TOKEN.test(token) ? null : 'paymentMethodToken must be a payment method id such as "pm_1Pq…" (pm_ followed by letters, digits or _)';
}

/**
 * Stripe's well-known test payment methods, recognised so a local installation
 * shows the same brand and last four digits a Stripe test account would.
 */
const TEST_CARDS: Record<string, Pick<CardDetails, 'brand' | 'last4'>> = {
  pm_card_visa: { brand: 'visa', last4: '4242' },
  pm_card_visa_debit: { brand: 'visa', last4: '5556' },
  pm_card_mastercard: { brand: 'mastercard', last4: '4444' },
  pm_card_amex: { brand: 'amex', last4: '8431' },
  pm_card_discover: { brand: 'discover', last4: '1117' },
};

/**
 * The self-hosting default: accepts any well-formed token, remembers nothing but
 * its digest, and charges nothing. Periods run from activation by the calendar.
 */
export class LocalPaymentProvider extends PaymentProvider {
  readonly name = 'local' as const;

  constructor(private readonly clock: Clock) {
    super();
  }

  tokenProblem(token: string): string | null {
    return paymentMethodTokenProblem(token);
  }

  refOf(token: string): string {
    return `local_${createHash('sha256').update(token).digest('hex').slice(0, 32)}`;
  }

  async createCustomer(): Promise<string | null> {
    return null;
  }

  async attachPaymentMethod(_customerRef: string | null, token: string): Promise<AttachedPaymentMethod> {
    const known = TEST_CARDS[token];
    return { ref: this.refOf(token), card: { brand: known?.brand ?? null, last4: known?.last4 ?? null, expMonth: null, expYear: null } };
  }

  async detachPaymentMethod(): Promise<void> {}

  async subscribe(input: { interval: Interval }): Promise<ProviderSubscription> {
    return this.freshPeriod(input.interval);
  }

  async changeSubscription(current: CurrentSubscription, _tier: PaidTier, interval: Interval): Promise<ProviderSubscription> {
    // A new interval starts a new period now; a new tier alone keeps the period running.
    if (interval !== current.interval) return this.freshPeriod(interval);
    return { ref: null, itemRef: null, periodAnchor: current.periodAnchor, currentPeriodEnd: periodEndAt(current.periodAnchor, interval, this.clock.now()) };
  }

  async cancelAtPeriodEnd(current: CurrentSubscription): Promise<ProviderSubscription> {
    return {
      ref: null,
      itemRef: null,
      periodAnchor: current.periodAnchor,
      currentPeriodEnd: periodEndAt(current.periodAnchor, current.interval, this.clock.now()),
    };
  }

  /** Nothing is billed here, so no usage is reported. */
  reportUsage(): Promise<void> {
    return Promise.resolve();
  }

  private freshPeriod(interval: Interval): ProviderSubscription {
    const now = this.clock.now();
    return { ref: null, itemRef: null, periodAnchor: now, currentPeriodEnd: addIntervals(now, interval, 1) };
  }

  /** No hosted pages here: BillingService answers 409 before asking (hostedBilling is false); this is the backstop. */
  async createCheckoutSession(): Promise<HostedSession> {
    throw new PaymentProviderError('unsupported', 'The local payment provider has no hosted Checkout');
  }

  async expireCheckoutSession(): Promise<CheckoutOutcome> {
    throw new PaymentProviderError('unsupported', 'The local payment provider has no hosted Checkout');
  }

  async createPortalSession(): Promise<HostedSession> {
    throw new PaymentProviderError('unsupported', 'The local payment provider has no billing portal');
  }

  // Issue 31: the local provider sends no events and keeps no subscriptions of its own.

  verifyEvent(): ProviderEvent {
    // The webhook route answers 404 before it gets here (BillingWebhookService).
    throw new Error('The local payment provider sends no webhook events');
  }

  async retrieveSubscription(): Promise<ProviderSubscriptionState | null> {
    return null;
  }

  async customerOfCharge(): Promise<string | null> {
    return null;
  }
}
