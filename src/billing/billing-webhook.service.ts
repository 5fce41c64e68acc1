import { Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

import { AuditLogService, type AuditTarget } from '../audit/audit-log.service';
import { newId } from '../common/ids';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { billingError } from '../quotas/billing.errors';
import { graceEndsAt } from '../quotas/quota';
import { WorkspacesRepository } from '../workspaces/workspaces.repository';
import { BillingRepository } from './billing.repository';
import { BillingMails } from './billing-mails';
import {
  MalformedEventError,
  PaymentProvider,
  PaymentProviderError,
  type ProviderEvent,
  type ProviderSubscriptionState,
  WebhookSignatureError,
} from './payment-provider';

/** The answer to a delivery: Stripe needs only a 2xx; `duplicate` tells a redelivery apart in its dashboard. */
export interface WebhookAnswer {
  received: true;
  duplicate?: true;
}

/** Events about a subscription: before acting, billing reads the subscription again from the provider. */
const SUBSCRIPTION_EVENTS = new Set([
  'checkout.session.completed',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'customer.subscription.trial_will_end',
  'invoice.paid',
  'invoice.payment_failed',
]);

/** What was read from the provider before the transaction (no network call holds a lock). */
interface Gathered {
  subscription: ProviderSubscriptionState | null;
  /** When the subscription's read began (database time): set with `subscription`. */
  readAt: Date | null;
  chargeCustomerRef: string | null;
}

/**
 * The Stripe webhook (issue 31): every event verified over its raw bytes, recorded once
 * in the ledger (billing_events) in the same transaction that acts on it, so a
 * redelivery changes nothing. Events arrive late, twice and out of order, so an event
 * about a subscription is never applied as it says: the subscription is read again from
 * Stripe and its state now is applied. A workspace therefore never goes back to an older
 * state (a `checkout.session.completed` delivered after the subscription was deleted
 * finds it deleted and activates nothing). Two deliveries whose reads cross (the first
 * read, then the state changes, the second reads and commits, then the first commits) are
 * applied in the order their reads began, not their commits: the older read is skipped.
 */
@Injectable()
export class BillingWebhookService {
  private readonly logger = new Logger(BillingWebhookService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly billing: BillingRepository,
    private readonly workspaces: WorkspacesRepository,
    private readonly provider: PaymentProvider,
    private readonly mails: BillingMails,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly audit: AuditLogService,
  ) {}

  async receive(payload: Buffer, signature: string | undefined): Promise<WebhookAnswer> {
    const secret = this.config.STRIPE_WEBHOOK_SECRET;
    if (this.provider.name !== 'stripe' || !secret) {
      throw billingError(
        'stripe_webhook_not_configured',
        'This installation takes no Stripe webhooks: it needs PAYMENT_PROVIDER=stripe and STRIPE_WEBHOOK_SECRET (see docs/billing.md)',
      );
    }
    if (!signature) throw billingError('invalid_signature', 'The Stripe-Signature header is missing: only Stripe can deliver to this endpoint');
    const event = this.verify(payload, signature, secret);
    // A redelivery reads nothing from Stripe; the ledger insert below is what decides.
    if (await this.billing.eventSeen(event.id)) return { received: true, duplicate: true };
    const gathered = await this.gather(event);
    const answer = await this.dataSource.transaction(async (m) => {
      const workspaceId = await this.workspaceOf(m, event, gathered);
      const fresh = await this.billing.recordEvent(m, {
        providerEventId: event.id,
        provider: this.provider.name,
        type: event.type,
        workspaceId,
        eventCreatedAt: event.createdAt,
        receivedAt: this.clock.now(),
      });
      if (!fresh) return { received: true, duplicate: true } as const;
      if (!workspaceId) {
        this.logger.log(`Stripe event ${event.id} (${event.type}) is about no workspace of this installation; recorded, nothing done`);
        return { received: true } as const;
      }
      await this.billing.lock(m, workspaceId);
      await this.act(m, workspaceId, event, gathered);
      return { received: true } as const;
    });
    return answer;
  }

  private verify(payload: Buffer, signature: string, secret: string): ProviderEvent {
    try {
      return this.provider.verifyEvent(payload, signature, secret);
    } catch (err) {
      if (err instanceof WebhookSignatureError) {
        throw billingError('invalid_signature', `The Stripe-Signature header does not verify against STRIPE_WEBHOOK_SECRET: ${err.message}`);
      }
      // Signed by Stripe yet not JSON: only a holder of the secret can send that.
      if (err instanceof SyntaxError) throw billingError('invalid_signature', `The signed body is not a JSON event: ${err.message}`);
      if (err instanceof MalformedEventError) throw billingError('invalid_signature', `The signed body is not a Stripe event: ${err.message}`);
      throw err;
    }
  }

  /** Provider reads, before any lock is taken; a failure answers 502 and Stripe delivers again later. */
  private async gather(event: ProviderEvent): Promise<Gathered> {
    try {
      let subscription: ProviderSubscriptionState | null = null;
      let readAt: Date | null = null;
      if (event.subscriptionRef && SUBSCRIPTION_EVENTS.has(event.type)) {
        // Taken before the read: Stripe's answer is at least as new as this moment.
        readAt = await this.billing.databaseNow();
        subscription = await this.provider.retrieveSubscription(event.subscriptionRef);
      }
      const chargeCustomerRef = event.type === 'charge.dispute.created' && event.chargeRef ? await this.provider.customerOfCharge(event.chargeRef) : null;
      return { subscription, readAt, chargeCustomerRef };
    } catch (err) {
      if (err instanceof PaymentProviderError) {
        throw billingError(
          'payment_provider_unavailable',
          `Could not read event ${event.id} back from Stripe (${err.message}); it is not recorded, so Stripe's retry will be handled`,
        );
      }
      throw err;
    }
  }

  /**
   * Our customer first (billing_customers.customer_ref), then the workspace the event or
   * its subscription names in its metadata (a Checkout that created its own customer);
   * null when neither is a workspace here.
   */
  private async workspaceOf(m: EntityManager, event: ProviderEvent, gathered: Gathered): Promise<string | null> {
    const provider = this.provider.name;
    for (const customerRef of [event.customerRef, gathered.chargeCustomerRef, gathered.subscription?.customerRef]) {
      if (!customerRef) continue;
      const workspaceId = await this.billing.workspaceOfCustomer(m, provider, customerRef);
      if (workspaceId) return workspaceId;
    }
    if (event.type === 'payment_method.detached' && event.paymentMethodRef) {
      const workspaceId = await this.billing.workspaceOfPaymentMethod(m, provider, event.paymentMethodRef);
      if (workspaceId) return workspaceId;
    }
    for (const named of [event.workspaceId, gathered.subscription?.workspaceId]) {
      if (named && (await this.billing.workspaceExists(m, named))) return named;
    }
    return null;
  }

  /** Who changed a workspace's billing when Stripe told us of it. */
  private recordStripe(m: EntityManager, workspaceId: string, action: string, target: AuditTarget, changes: string[] = []) {
    return this.audit.record(m, { workspaceId, action, actor: { type: 'system', id: null, label: 'stripe webhook' }, target, changes });
  }

  private async act(m: EntityManager, workspaceId: string, event: ProviderEvent, gathered: Gathered): Promise<void> {
    if (event.type === 'checkout.session.completed') {
      await this.rememberCustomer(m, workspaceId, event.customerRef ?? gathered.subscription?.customerRef ?? null);
      // Paid: its subscription is here now, so a new Checkout has nothing to close.
      if (event.checkoutSessionRef) await this.billing.clearOpenCheckout(m, workspaceId, event.checkoutSessionRef);
    }
    if (event.invoice) await this.mirrorInvoice(m, workspaceId, event);
    if (gathered.subscription) await this.applySubscription(m, workspaceId, event, gathered.subscription, gathered.readAt!);
    switch (event.type) {
      case 'customer.subscription.trial_will_end': {
        const sub = gathered.subscription;
        if (sub?.status === 'active' && sub.trialEnd && sub.tier) {
          await this.mails.send(m, workspaceId, 'billing_trial_ending', { tier: sub.tier, trialEndsAt: sub.trialEnd.toISOString() });
        }
        break;
      }
      case 'payment_method.detached': {
        if (event.paymentMethodRef) {
          await this.billing.deletePaymentMethodByRef(m, workspaceId, this.provider.name, event.paymentMethodRef);
          await this.recordStripe(m, workspaceId, 'payment_method.removed', { type: 'payment_method', id: null, label: event.paymentMethodRef });
        }
        break;
      }
      case 'charge.dispute.created': {
        await this.billing.markDisputed(m, workspaceId, event.createdAt);
        await this.recordStripe(m, workspaceId, 'subscription.disputed', { type: 'charge', id: event.chargeRef ?? null });
        this.logger.warn(`workspace ${workspaceId}: Stripe reports a dispute (chargeback) on charge ${event.chargeRef ?? 'unknown'}; flagged for the operator`);
        break;
      }
    }
  }

  /** A Checkout may have created the customer itself: remember it, so the next events find the workspace by it. */
  private async rememberCustomer(m: EntityManager, workspaceId: string, customerRef: string | null): Promise<void> {
    if (!customerRef) return;
    const existing = await this.billing.findCustomer(m, workspaceId);
    if (existing && existing.provider === this.provider.name && existing.customerRef === customerRef) return;
    await this.billing.saveCustomer(m, {
      workspaceId,
      provider: this.provider.name,
      customerRef,
      subscriptionsStarted: existing?.subscriptionsStarted ?? 0,
      createdAt: existing?.createdAt ?? this.clock.now(),
    });
  }

  private async mirrorInvoice(m: EntityManager, workspaceId: string, event: ProviderEvent): Promise<void> {
    const invoice = event.invoice!;
    await this.billing.upsertInvoice(m, {
      id: newId('inv'),
      workspaceId,
      provider: this.provider.name,
      providerRef: invoice.ref,
      number: invoice.number,
      status: invoice.status,
      amountDue: invoice.amountDue,
      amountPaid: invoice.amountPaid,
      currency: invoice.currency,
      periodStart: invoice.periodStart,
      periodEnd: invoice.periodEnd,
      hostedInvoiceUrl: invoice.hostedInvoiceUrl,
      createdAt: this.clock.now(),
    });
  }

  /**
   * Applies the subscription as Stripe has it now. Only the workspace's own subscription
   * (or a running one that replaces it) is applied: an event about another, ended
   * subscription changes nothing. Owners hear of a failed renewal once per episode, and
   * of the end of a paid plan when it ends here.
   */
  private async applySubscription(m: EntityManager, workspaceId: string, event: ProviderEvent, state: ProviderSubscriptionState, readAt: Date): Promise<void> {
    if (state.status === 'incomplete') return;
    const current = await this.billing.findSubscription(m, workspaceId);
    // A delivery that read before the one applied last, committing after it: its state is the older.
    if (current?.providerReadAt && readAt < current.providerReadAt) {
      this.logger.log(`workspace ${workspaceId}: event ${event.id} read Stripe subscription ${state.ref} before the state applied last; not applied`);
      return;
    }
    const same = current?.provider === this.provider.name && current.providerSubscriptionRef === state.ref;
    if (!same && state.status === 'canceled') return;
    // Ours ended it (the grace ran out, the sweeper wrote canceled) while Stripe's own retry
    // schedule, which is longer, goes on: a further failure must not open a new grace.
    if (same && current.status === 'canceled' && state.status === 'past_due') {
      this.logger.log(`workspace ${workspaceId}: Stripe subscription ${state.ref} is still past_due, its grace here is over; it stays on free until paid`);
      return;
    }
    if (!state.tier || !state.interval) {
      this.logger.warn(`Stripe subscription ${state.ref} of workspace ${workspaceId} has a price no STRIPE_PRICE_* names; its state is not applied`);
      return;
    }
    if (!same && current && current.provider === this.provider.name && current.status !== 'canceled') {
      this.logger.warn(
        `workspace ${workspaceId}: Stripe subscription ${state.ref} replaces ${current.providerSubscriptionRef ?? 'none'}, which is still ${current.status} here`,
      );
    }
    const now = this.clock.now();
    const wasPastDue = same && current.status === 'past_due';
    // The renewal that failed opened the period now running, so the grace never starts before it:
    // a stale event (a retried delivery from days before, one resent from the dashboard) that
    // first shows past_due must not start it early.
    const pastDueSince =
      state.status === 'past_due' ? (wasPastDue && current.pastDueSince ? current.pastDueSince : maxDate(event.createdAt, state.periodAnchor)) : null;
    // An unpaid period was never paid for: a subscription Stripe ends from past_due is over now.
    const currentPeriodEnd = state.status === 'canceled' && wasPastDue ? minDate(state.periodAnchor, now) : state.currentPeriodEnd;
    await this.billing.saveSubscriptionState(m, {
      workspaceId,
      provider: this.provider.name,
      providerSubscriptionRef: state.ref,
      providerItemRef: state.itemRef,
      tier: state.tier,
      interval: state.interval,
      status: state.status,
      cancelAtPeriodEnd: state.cancelAtPeriodEnd,
      periodAnchor: state.periodAnchor,
      currentPeriodEnd,
      pastDueSince,
      providerReadAt: readAt,
    });
    await this.recordStripe(m, workspaceId, 'subscription.updated', { type: 'subscription', id: null, label: state.ref }, [
      'status',
      'tier',
      'interval',
      'cancelAtPeriodEnd',
    ]);
    if (state.status === 'canceled') {
      // Kept until the period paid for is over (quotas already treat it so); the sweeper writes free then.
      if (currentPeriodEnd <= now && (await this.endsPlan(m, workspaceId))) await this.mails.backToFree(m, workspaceId, state.tier, 'canceled');
      this.logger.log(`workspace ${workspaceId}: Stripe subscription ${state.ref} ended (plan in force until ${currentPeriodEnd.toISOString()})`);
      return;
    }
    await this.workspaces.setPlan(m, workspaceId, state.tier, now);
    if (state.status === 'past_due' && !wasPastDue) {
      const until = graceEndsAt(pastDueSince!, this.config.BILLING_GRACE_DAYS);
      await this.mails.send(m, workspaceId, 'billing_payment_failed', { tier: state.tier, graceEndsAt: until.toISOString() });
      this.logger.log(`workspace ${workspaceId}: renewal of ${state.tier} failed; plan kept until ${until.toISOString()}`);
    } else if (!(same && current.status === state.status && current.tier === state.tier)) {
      this.logger.log(`workspace ${workspaceId}: Stripe subscription ${state.ref} is ${state.status} on ${state.tier}/${state.interval}`);
    }
  }

  /** Writes free back now; false when the workspace was on free already (the sweeper or an earlier event did it). */
  private async endsPlan(m: EntityManager, workspaceId: string): Promise<boolean> {
    const { plan } = await this.workspaces.getById(m, workspaceId);
    await this.workspaces.setPlan(m, workspaceId, 'free', this.clock.now());
    return plan !== 'free';
  }
}

const minDate = (a: Date, b: Date) => (a < b ? a : b);
const maxDate = (a: Date, b: Date) => (a > b ? a : b);
