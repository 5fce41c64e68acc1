import { Logger } from '@nestjs/common';
import Stripe from 'stripe';

import type { Interval, PaidTier } from '../quotas/plans';
import { paymentMethodTokenProblem } from './local-payment.provider';
import {
  type AttachedPaymentMethod,
  type CheckoutOutcome,
  type CheckoutSessionInput,
  type CurrentSubscription,
  type HostedSession,
  PaymentProvider,
  PaymentProviderError,
  type ProviderEvent,
  type ProviderSubscription,
  type ProviderSubscriptionState,
  WebhookSignatureError,
} from './payment-provider';
import { providerEventOf, subscriptionStateOf } from './stripe-events';

export interface StripeSettings {
  secretKey: string;
  /** Price ids by tier and interval, e.g. prices.pro.month = "price_…". */
  prices: Record<PaidTier, Record<Interval, string>>;
  /** Only for tests against a stand-in server; unset means api.stripe.com over https. */
  host?: string;
  port?: number;
  protocol?: 'http' | 'https';
}

type Subscription = Stripe.Subscription;

/**
 * Stripe: one customer per workspace, payment methods attached to it (the newest
 * is the customer's invoice default), one subscription with one item whose price
 * is the tier and interval, charged off-session. `error_if_incomplete` makes a
 * declined first payment an error instead of a subscription left `incomplete`.
 */
export class StripePaymentProvider extends PaymentProvider {
  readonly name = 'stripe' as const;
  private readonly stripe: Stripe;
  private readonly logger = new Logger(StripePaymentProvider.name);

  constructor(private readonly settings: StripeSettings) {
    super();
    this.stripe = new Stripe(settings.secretKey, {
      host: settings.host,
      port: settings.port,
      protocol: settings.protocol,
      maxNetworkRetries: 2,
      timeout: 20_000,
      telemetry: false,
      appInfo: { name: 'statichost' },
    });
  }

  tokenProblem(token: string): string | null {
    return paymentMethodTokenProblem(token);
  }

  refOf(token: string): string {
    return token;
  }

  async createCustomer(workspace: { id: string; name: string }, email: string): Promise<string> {
    const customer = await this.call('create the customer', () =>
      this.stripe.customers.create(
        { name: workspace.name, email, metadata: { workspace_id: workspace.id } },
        { idempotencyKey: `statichost-customer-${workspace.id}` },
      ),
    );
    return customer.id;
  }

  async attachPaymentMethod(customerRef: string | null, token: string): Promise<AttachedPaymentMethod> {
    const customer = this.requireCustomer(customerRef);
    const method = await this.call('attach the payment method', () => this.stripe.paymentMethods.attach(token, { customer }), 'invalid_payment_method');
    await this.call('make the payment method the default', () =>
      this.stripe.customers.update(customer, { invoice_settings: { default_payment_method: method.id } }),
    );
    const card = method.card;
    return {
      ref: method.id,
      card: { brand: card?.brand ?? null, last4: card?.last4 ?? null, expMonth: card?.exp_month ?? null, expYear: card?.exp_year ?? null },
    };
  }

  async detachPaymentMethod(customerRef: string | null, ref: string, nextDefault: string | null): Promise<void> {
    const customer = this.requireCustomer(customerRef);
    if (nextDefault) {
      await this.call('change the default payment method', () =>
        this.stripe.customers.update(customer, { invoice_settings: { default_payment_method: nextDefault } }),
      );
    }
    await this.call('detach the payment method', () => this.stripe.paymentMethods.detach(ref));
  }

  async subscribe(input: {
    workspaceId: string;
    customerRef: string | null;
    tier: PaidTier;
    interval: Interval;
    idempotencyKey: string;
  }): Promise<ProviderSubscription> {
    const customer = this.requireCustomer(input.customerRef);
    const subscription = await this.call('start the subscription', () =>
      this.stripe.subscriptions.create(
        {
          customer,
          items: [{ price: this.price(input.tier, input.interval) }],
          off_session: true,
          payment_behavior: 'error_if_incomplete',
          metadata: { workspace_id: input.workspaceId, tier: input.tier, interval: input.interval },
        },
        { idempotencyKey: input.idempotencyKey },
      ),
    );
    return this.toProvider(subscription);
  }

  async changeSubscription(current: CurrentSubscription, tier: PaidTier, interval: Interval): Promise<ProviderSubscription> {
    const subscription = await this.call('change the subscription', () =>
      this.stripe.subscriptions.update(this.requireRef(current), {
        items: [{ id: current.itemRef ?? undefined, price: this.price(tier, interval) }],
        cancel_at_period_end: false,
        off_session: true,
        payment_behavior: 'error_if_incomplete',
        // An upgrade is charged now for the rest of the period, not at the next invoice.
        proration_behavior: 'always_invoice',
        metadata: { tier, interval },
      }),
    );
    return this.toProvider(subscription);
  }

  async cancelAtPeriodEnd(current: CurrentSubscription): Promise<ProviderSubscription> {
    const subscription = await this.call('cancel the subscription', () =>
      this.stripe.subscriptions.update(this.requireRef(current), { cancel_at_period_end: true }),
    );
    return this.toProvider(subscription);
  }

  private price(tier: PaidTier, interval: Interval): string {
    return this.settings.prices[tier][interval];
  }

  private requireCustomer(customerRef: string | null): string {
    // BillingService creates the customer before anything else; a missing one is our bug.
    if (!customerRef) throw new Error('Stripe customer missing for this workspace');
    return customerRef;
  }

  private requireRef(current: CurrentSubscription): string {
    if (!current.ref) throw new Error('Stripe subscription id missing for this workspace');
    return current.ref;
  }

  private toProvider(subscription: Subscription): ProviderSubscription {
    // Since API version 2025-03-31 the period lives on the items; there is one.
    const item = subscription.items.data[0];
    if (!item) throw new PaymentProviderError('unavailable', `Stripe returned subscription ${subscription.id} without items`);
    return {
      ref: subscription.id,
      itemRef: item.id,
      periodAnchor: new Date(item.current_period_start * 1000),
      currentPeriodEnd: new Date(item.current_period_end * 1000),
    };
  }

  async reportUsage(input: { customerRef: string; eventName: string; value: number; identifier: string; timestamp: Date }): Promise<void> {
    await this.call('record the usage', () =>
      this.stripe.billing.meterEvents.create({
        event_name: input.eventName,
        payload: { stripe_customer_id: input.customerRef, value: String(input.value) },
        identifier: input.identifier,
        timestamp: Math.floor(input.timestamp.getTime() / 1000),
      }),
    );
  }

  /**
   * Runs one Stripe call and turns its failure into a PaymentProviderError: a card
   * problem (HTTP 402) is `declined`; a 400/404 on the payment method itself is
   * `invalid_payment_method` when `badRequestKind` says so; the rest is
   * `unavailable` and logged, since it is the operator's to fix (key, price ids)
   * or Stripe's.
   */
  private async call<T>(what: string, run: () => Promise<T>, badRequestKind?: 'invalid_payment_method'): Promise<T> {
    try {
      return await run();
    } catch (err) {
      if (!(err instanceof Stripe.errors.StripeError)) throw err;
      const status = err.statusCode;
      if (status === 402) throw new PaymentProviderError('declined', err.message, err.decline_code ?? err.code);
      if (badRequestKind && (status === 400 || status === 404)) throw new PaymentProviderError(badRequestKind, err.message, err.code);
      this.logger.error(`Stripe could not ${what}: ${err.type} ${status ?? ''} ${err.code ?? ''} ${err.message} (request ${err.requestId ?? 'none'})`);
      throw new PaymentProviderError('unavailable', `The payment provider could not ${what}`, err.code);
    }
  }

  override readonly hostedBilling = true;

  /**
   * A Checkout Session in subscription mode for the workspace's customer. The workspace id
   * rides on the session (`client_reference_id`, metadata) and on the subscription it
   * starts (`subscription_data.metadata`), so the webhook finds the workspace from either.
   */
  async createCheckoutSession(input: CheckoutSessionInput): Promise<HostedSession> {
    const customer = this.requireCustomer(input.customerRef);
    const metadata = { workspace_id: input.workspaceId, tier: input.tier, interval: input.interval };
    const session = await this.call('start Checkout', () =>
      this.stripe.checkout.sessions.create(
        {
          mode: 'subscription',
          customer,
          line_items: [{ price: this.price(input.tier, input.interval), quantity: 1 }],
          client_reference_id: input.workspaceId,
          metadata,
          subscription_data: { metadata },
          success_url: input.successUrl,
          cancel_url: input.cancelUrl,
        },
        { idempotencyKey: input.idempotencyKey },
      ),
    );
    if (!session.url) throw new PaymentProviderError('unavailable', `Stripe returned Checkout session ${session.id} without a URL`);
    return { id: session.id, url: session.url };
  }

  /**
   * Read first: only an open session can be expired, and one paid in the meantime makes the
   * expiry fail, after which a second read tells which way it went.
   */
  async expireCheckoutSession(ref: string): Promise<CheckoutOutcome> {
    const before = await this.checkoutStatus(ref);
    if (before.status !== 'open') return before;
    try {
      await this.stripe.checkout.sessions.expire(ref);
      return { status: 'expired' };
    } catch (err) {
      if (!(err instanceof Stripe.errors.StripeError) || err.statusCode !== 400) return this.call('close a Checkout', () => Promise.reject(err));
      const after = await this.checkoutStatus(ref);
      if (after.status === 'open') return this.call('close a Checkout', () => Promise.reject(err));
      return after;
    }
  }

  private async checkoutStatus(ref: string): Promise<CheckoutOutcome | { status: 'open' }> {
    try {
      const session = await this.stripe.checkout.sessions.retrieve(ref);
      if (session.status === 'complete')
        return { status: 'completed', subscriptionRef: typeof session.subscription === 'string' ? session.subscription : (session.subscription?.id ?? null) };
      return session.status === 'open' ? { status: 'open' } : { status: 'expired' };
    } catch (err) {
      // Gone (another Stripe account's, or purged): nothing left to pay.
      if (err instanceof Stripe.errors.StripeError && err.statusCode === 404) return { status: 'expired' };
      return this.call('read a Checkout', () => Promise.reject(err));
    }
  }

  /** A Customer Portal session; what it offers (cards, invoices, cancelling, switching plans) is set in Stripe's dashboard. */
  async createPortalSession(input: { customerRef: string | null; returnUrl: string }): Promise<HostedSession> {
    const customer = this.requireCustomer(input.customerRef);
    const session = await this.call('open the billing portal', () => this.stripe.billingPortal.sessions.create({ customer, return_url: input.returnUrl }));
    return { id: session.id, url: session.url };
  }

  // Issue 31, the subscription lifecycle (webhooks).

  verifyEvent(payload: Buffer, signature: string, secret: string): ProviderEvent {
    let event: Stripe.Event;
    try {
      // The SDK's default tolerance (300 s): an old delivery replayed by someone else is refused.
      event = this.stripe.webhooks.constructEvent(payload, signature, secret);
    } catch (err) {
      if (err instanceof Stripe.errors.StripeSignatureVerificationError) throw new WebhookSignatureError(err.message);
      throw err;
    }
    return providerEventOf(event);
  }

  async retrieveSubscription(ref: string): Promise<ProviderSubscriptionState | null> {
    try {
      return subscriptionStateOf(await this.stripe.subscriptions.retrieve(ref), this.settings.prices);
    } catch (err) {
      if (err instanceof Stripe.errors.StripeError && err.statusCode === 404) return null;
      return this.call('read the subscription', () => Promise.reject(err));
    }
  }

  async customerOfCharge(chargeRef: string): Promise<string | null> {
    try {
      const charge = await this.stripe.charges.retrieve(chargeRef);
      return typeof charge.customer === 'string' ? charge.customer : (charge.customer?.id ?? null);
    } catch (err) {
      if (err instanceof Stripe.errors.StripeError && err.statusCode === 404) return null;
      return this.call('read the charge', () => Promise.reject(err));
    }
  }
}
