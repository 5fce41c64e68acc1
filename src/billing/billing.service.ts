import { Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

import { roleRefused } from '../access/authorize';
import { SecondFactorCheck } from '../access/second-factor-check';
import { AuditLogService } from '../audit/audit-log.service';
import { notFound } from '../common/errors';
import { newId } from '../common/ids';
import { Paginated, paginated } from '../common/pagination';
import { Clock, iso } from '../common/time';
import { AppConfig } from '../config/app-config';
import { BILLING_ROLE_REFUSAL, billingError } from '../quotas/billing.errors';
import type { Interval, PaidTier } from '../quotas/plans';
import { graceEndsAt, periodEndAt } from '../quotas/quota';
import { QuotaService } from '../quotas/quota.service';
import type { Principal } from '../shared/principal';
import { UsersService } from '../users/users.service';
import { MembersService } from '../workspaces/members.service';
import { WorkspacesRepository } from '../workspaces/workspaces.repository';
import type { BillingCustomer, PaymentMethod, Subscription } from './billing.entities';
import { BillingRepository } from './billing.repository';
import { ActivationView, InvoiceView, invoiceView, PaymentMethodView, paymentMethodView, SubscriptionView } from './billing.view';
import { BillingMails } from './billing-mails';
import { CurrentSubscription, PaymentProvider, PaymentProviderError, ProviderSubscription } from './payment-provider';

/**
 * How long a Checkout request reuses the session of the one before (same workspace, tier and
 * interval): a double click or a reload opens one Checkout; later, a fresh one.
 */
const CHECKOUT_REUSE_MS = 60 * 60 * 1000;

/**
 * Payment methods, activation and cancellation. Only a workspace's owners manage
 * its billing, and only with a JWT: the guard enforces both (`roles: ['owner']` on the
 * routes), except for removing a payment method, whose workspace is the method's.
 *
 * Every change runs in a transaction holding the workspace's billing lock, so two
 * activations at once make one provider subscription, and the provider is called
 * before anything is written: when it fails, nothing changes here.
 */
@Injectable()
export class BillingService {
  private readonly logger = new Logger(BillingService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly billing: BillingRepository,
    private readonly workspaces: WorkspacesRepository,
    private readonly members: MembersService,
    private readonly users: UsersService,
    private readonly provider: PaymentProvider,
    private readonly quotas: QuotaService,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly mails: BillingMails,
    private readonly audit: AuditLogService,
    private readonly secondFactors: SecondFactorCheck,
  ) {}

  async addPaymentMethod(principal: Principal, workspaceId: string, token: string): Promise<PaymentMethodView> {
    const problem = this.provider.tokenProblem(token);
    if (problem) throw billingError('invalid_payment_method', problem);
    return this.dataSource.transaction(async (m) => {
      await this.lockBilling(m, workspaceId);
      const ref = this.provider.refOf(token);
      const saved = await this.billing.findPaymentMethodByRef(m, workspaceId, this.provider.name, ref);
      if (saved)
        throw billingError('payment_method_exists', `This payment method is already saved for workspace ${workspaceId} as ${saved.id}`, { id: saved.id });
      const customer = await this.customer(m, workspaceId, principal.userId!);
      const attached = await this.call(() => this.provider.attachPaymentMethod(customer.customerRef, token));
      const newest = await this.newestMethod(m, workspaceId);
      // The newest method is the one charged; keep "newest" exact even within one millisecond.
      const now = this.clock.now();
      const createdAt = newest && newest.createdAt >= now ? new Date(newest.createdAt.getTime() + 1) : now;
      const method = await this.billing.insertPaymentMethod(m, {
        id: newId('pm'),
        workspaceId,
        provider: this.provider.name,
        providerRef: attached.ref,
        ...attached.card,
        createdBy: principal.userId!,
        createdAt,
      });
      await this.audit.record(m, { workspaceId, action: 'payment_method.added', target: { type: 'payment_method', id: method.id } });
      return paymentMethodView(method, true);
    });
  }

  async listPaymentMethods(workspaceId: string, page: number, limit: number): Promise<Paginated<PaymentMethodView>> {
    const { rows: methods, total } = await this.billing.pagePaymentMethods(workspaceId, this.provider.name, page, limit);
    const newest = page === 1 ? methods[0] : await this.newestMethod(this.dataSource.manager, workspaceId);
    return paginated(
      methods.map((pm) => paymentMethodView(pm, pm.id === newest?.id)),
      total,
      page,
      limit,
    );
  }

  async removePaymentMethod(principal: Principal, id: string): Promise<void> {
    const found = await this.billing.findPaymentMethod(this.dataSource.manager, id);
    // Another workspace's payment method is a 404, like any foreign id.
    const membership = found ? await this.members.activeMembership(found.workspaceId, principal.userId!) : null;
    if (!found || !membership) throw notFound('Payment method', id);
    // The workspace is the payment method's, known only from the data: the guard saw none, so
    // its owner check and its two-factor policy are checked here, in the guard's order.
    if (membership.requireTwoFactor) await this.secondFactors.require(found.workspaceId, principal.userId!);
    if (membership.role !== 'owner') throw roleRefused(['owner'], found.workspaceId, membership.role, BILLING_ROLE_REFUSAL);
    const workspaceId = found.workspaceId;
    await this.dataSource.transaction(async (m) => {
      await this.lockBilling(m, workspaceId);
      const method = await this.billing.findPaymentMethod(m, id);
      if (!method) throw notFound('Payment method', id);
      if (method.provider === this.provider.name) {
        const [newest, second] = await this.billing.newestPaymentMethods(m, workspaceId, this.provider.name, 2);
        const sub = await this.billing.findSubscription(m, workspaceId);
        if (!second && sub && this.isRunning(sub) && !sub.cancelAtPeriodEnd) {
          throw billingError.at(
            409,
            'payment_method_required',
            `Payment method ${id} is the last one of workspace ${workspaceId} and pays for its ${sub.tier} plan; add another payment method first, or cancel the plan (POST /billing/cancel)`,
          );
        }
        // Removing the one charged makes the next newest the one charged.
        const nextDefault = newest.id === id ? (second?.providerRef ?? null) : null;
        const customer = await this.billing.findCustomer(m, workspaceId);
        await this.call(() => this.provider.detachPaymentMethod(customer?.customerRef ?? null, method.providerRef, nextDefault));
      }
      await this.billing.deletePaymentMethod(m, id);
      await this.audit.record(m, { workspaceId, action: 'payment_method.removed', target: { type: 'payment_method', id } });
    });
  }

  /**
   * Puts the workspace on `tier`, paid every `interval` with its saved payment
   * method. Asking again for what is already running changes nothing; asking for
   * another tier or interval changes the subscription; asking after a cancellation
   * (before the period ends) resumes it.
   */
  async activate(principal: Principal, workspaceId: string, tier: PaidTier, interval: Interval): Promise<ActivationView> {
    await this.users.assertVerifiedIfRequired(principal.userId, 'start a paid plan');
    return this.dataSource.transaction(async (m) => {
      await this.lockBilling(m, workspaceId);
      const sub = await this.billing.findSubscription(m, workspaceId);
      const running = sub !== null && this.isRunning(sub);
      // A live subscription is changed, and billed, with the payment method it already has at the
      // provider: one started in Stripe's Checkout has its card there, none saved here.
      const changesLive = running && !sub.cancelAtPeriodEnd;
      // Its last payment failed and its grace runs from then: a change would be written here as
      // active and lose the grace's start, so the plan would outlive every failed retry.
      const unchanged = running && sub.tier === tier && sub.interval === interval && !sub.cancelAtPeriodEnd;
      if (running && sub.status === 'past_due' && !unchanged) {
        throw billingError(
          'subscription_exists',
          `Workspace ${workspaceId}'s ${sub.tier} subscription is retrying its failed payment: pay the open invoice in the billing portal (POST /billing/portal) before changing the plan`,
        );
      }
      if (!changesLive && !(await this.billing.hasPaymentMethod(m, workspaceId, this.provider.name))) {
        throw billingError.at(
          402,
          'payment_method_required',
          `Workspace ${workspaceId} has no saved payment method: save one with POST /billing/payment-methods, then activate the ${tier} plan again`,
        );
      }
      await this.audit.record(m, {
        workspaceId,
        action: 'subscription.activated',
        target: { type: 'subscription', id: null, label: tier },
        changes: ['tier', 'interval'],
      });
      if (unchanged) {
        await this.setPlan(m, workspaceId, tier);
        return { success: true, tier, status: 'active' };
      }
      // Ended here by its grace yet still retried at the provider: a second subscription would be paid twice.
      if (!running && sub) await this.assertEndedAtProvider(sub);
      let started: ProviderSubscription;
      if (running) {
        started = await this.call(() => this.provider.changeSubscription(this.current(sub), tier, interval));
      } else {
        const customer = await this.customer(m, workspaceId, principal.userId!);
        const seq = customer.subscriptionsStarted + 1;
        started = await this.call(() =>
          this.provider.subscribe({
            workspaceId,
            customerRef: customer.customerRef,
            tier,
            interval,
            idempotencyKey: `statichost-subscription-${workspaceId}-${seq}`,
          }),
        );
        await this.billing.countSubscriptionStarted(m, workspaceId);
      }
      await this.billing.upsertSubscription(m, {
        workspaceId,
        provider: this.provider.name,
        providerSubscriptionRef: started.ref,
        providerItemRef: started.itemRef,
        tier,
        interval,
        status: 'active',
        cancelAtPeriodEnd: false,
        periodAnchor: started.periodAnchor,
        currentPeriodEnd: started.currentPeriodEnd,
      });
      await this.setPlan(m, workspaceId, tier);
      this.logger.log(`workspace ${workspaceId} activated ${tier}/${interval} with ${this.provider.name}`);
      return { success: true, tier, status: 'active' };
    });
  }

  /** Schedules the end of the paid plan at the end of the period; until then it stays in force. */
  async cancel(workspaceId: string): Promise<SubscriptionView> {
    await this.dataSource.transaction(async (m) => {
      await this.lockBilling(m, workspaceId);
      const sub = await this.billing.findSubscription(m, workspaceId);
      if (!sub || !this.isRunning(sub)) {
        const plan = await this.quotas.planOf(workspaceId, m);
        throw billingError('no_subscription', `Workspace ${workspaceId} has no paid subscription to cancel; it is on the ${plan.tier} plan`);
      }
      await this.audit.record(m, {
        workspaceId,
        action: 'subscription.canceled',
        target: { type: 'subscription', id: null, label: sub.tier },
        changes: ['cancelAtPeriodEnd'],
      });
      if (sub.cancelAtPeriodEnd) return;
      const ended = await this.call(() => this.provider.cancelAtPeriodEnd(this.current(sub)));
      await this.billing.updateSubscription(m, workspaceId, {
        cancelAtPeriodEnd: true,
        periodAnchor: ended.periodAnchor,
        currentPeriodEnd: ended.currentPeriodEnd,
      });
    });
    return this.subscriptionView(workspaceId);
  }

  /** Any active member may see how the workspace's plan is paid for (the guard checked the membership). */
  async subscription(workspaceId: string): Promise<SubscriptionView> {
    return this.subscriptionView(workspaceId);
  }

  /**
   * Writes `free` back to workspaces whose paid plan has ended (quotas already treat them
   * as free from that instant): a cancelled one at its period's end, a `past_due` one once
   * its grace is over. Their owners are mailed in the same transaction. Run by the sweeper.
   */
  async endLapsedSubscriptions(): Promise<number> {
    const now = this.clock.now();
    const ended = await this.dataSource.transaction(async (m) => {
      const rows = await this.billing.endLapsed(m, now, this.config.BILLING_GRACE_DAYS);
      for (const row of rows) await this.mails.backToFree(m, row.id, row.tier, row.reason);
      return rows;
    });
    if (ended.length > 0) this.logger.log(`${ended.length} paid plan(s) ended; back on free: ${ended.map((r) => `${r.id} (${r.reason})`).join(', ')}`);
    return ended.length;
  }

  /** The workspace's invoices, mirrored from the provider's events, newest first (owners only: the guard checked). */
  async listInvoices(workspaceId: string, page: number, limit: number): Promise<Paginated<InvoiceView>> {
    const { rows, total } = await this.billing.pageInvoices(workspaceId, page, limit);
    return paginated(rows.map(invoiceView), total, page, limit);
  }

  private async subscriptionView(workspaceId: string): Promise<SubscriptionView> {
    const now = this.clock.now();
    const plan = await this.quotas.planOf(workspaceId);
    const sub = await this.billing.findSubscription(this.dataSource.manager, workspaceId);
    const customer = await this.billing.findCustomer(this.dataSource.manager, workspaceId);
    const lifecycle = { pastDueSince: null, graceEndsAt: null, disputed: customer?.disputedAt != null };
    if (!sub) {
      return {
        workspaceId,
        tier: plan.tier,
        interval: null,
        status: 'none',
        cancelAtPeriodEnd: false,
        currentPeriodEnd: null,
        provider: null,
        ...lifecycle,
      };
    }
    if (!this.isRunning(sub)) {
      return {
        workspaceId,
        tier: plan.tier,
        interval: null,
        status: 'canceled',
        cancelAtPeriodEnd: false,
        currentPeriodEnd: iso(sub.currentPeriodEnd),
        provider: sub.provider,
        ...lifecycle,
      };
    }
    if (sub.status === 'past_due' && sub.pastDueSince) {
      return {
        workspaceId,
        tier: plan.tier,
        interval: sub.interval,
        status: 'past_due',
        cancelAtPeriodEnd: sub.cancelAtPeriodEnd,
        currentPeriodEnd: iso(sub.currentPeriodEnd),
        provider: sub.provider,
        ...lifecycle,
        pastDueSince: iso(sub.pastDueSince),
        graceEndsAt: iso(graceEndsAt(sub.pastDueSince, this.config.BILLING_GRACE_DAYS)),
      };
    }
    // A running subscription renews by itself; show the period running now, not the first one.
    const periodEnd = sub.cancelAtPeriodEnd || sub.currentPeriodEnd > now ? sub.currentPeriodEnd : periodEndAt(sub.periodAnchor, sub.interval, now);
    return {
      workspaceId,
      tier: plan.tier,
      interval: sub.interval,
      status: 'active',
      cancelAtPeriodEnd: sub.cancelAtPeriodEnd,
      currentPeriodEnd: iso(periodEnd),
      provider: sub.provider,
      ...lifecycle,
    };
  }

  /** Still paid for at this instant (a cancelled one until its period ends, a past_due one through its grace), and with the provider in use. */
  private isRunning(sub: Subscription): boolean {
    if (sub.provider !== this.provider.name) return false;
    const now = this.clock.now();
    // A failed renewal keeps the plan running through its grace, while the provider retries.
    if (sub.status === 'past_due') return sub.pastDueSince !== null && graceEndsAt(sub.pastDueSince, this.config.BILLING_GRACE_DAYS) > now;
    if (sub.status !== 'active') return false;
    return !(sub.cancelAtPeriodEnd && sub.currentPeriodEnd <= now);
  }

  private current(sub: Subscription): CurrentSubscription {
    return {
      ref: sub.providerSubscriptionRef,
      itemRef: sub.providerItemRef,
      tier: sub.tier,
      interval: sub.interval,
      periodAnchor: sub.periodAnchor,
      currentPeriodEnd: sub.currentPeriodEnd,
    };
  }

  private async setPlan(m: EntityManager, workspaceId: string, tier: PaidTier): Promise<void> {
    await this.workspaces.setPlan(m, workspaceId, tier, this.clock.now());
  }

  private newestMethod(m: EntityManager, workspaceId: string): Promise<PaymentMethod | null> {
    return this.billing.newestPaymentMethod(m, workspaceId, this.provider.name);
  }

  /** The workspace's customer at the provider, created on first use. */
  private async customer(m: EntityManager, workspaceId: string, userId: string): Promise<BillingCustomer> {
    const existing = await this.billing.findCustomer(m, workspaceId);
    if (existing && existing.provider === this.provider.name) return existing;
    const workspace = await this.workspaces.getById(m, workspaceId);
    const user = await this.users.findById(userId, m);
    if (!user) throw notFound('User', userId);
    const customerRef = await this.call(() => this.provider.createCustomer({ id: workspace.id, name: workspace.name }, user.email));
    // After a change of provider the row is reused; its subscription count keeps growing so idempotency keys stay unique.
    // The other provider's open Checkout is not this one's to close.
    return this.billing.saveCustomer(m, {
      workspaceId,
      provider: this.provider.name,
      customerRef,
      subscriptionsStarted: existing?.subscriptionsStarted ?? 0,
      openCheckoutRef: null,
      openCheckoutKey: null,
      createdAt: this.clock.now(),
    });
  }

  private async lockBilling(m: EntityManager, workspaceId: string): Promise<void> {
    await this.billing.lock(m, workspaceId);
  }

  /** One provider call, its refusal turned into the HTTP answer. */
  private async call<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      if (!(err instanceof PaymentProviderError)) throw err;
      switch (err.kind) {
        case 'invalid_payment_method':
          throw billingError('invalid_payment_method', `paymentMethodToken: the payment provider does not accept it: ${err.message}`, {
            providerCode: err.providerCode ?? null,
          });
        case 'declined':
          throw billingError(
            'payment_failed',
            `The payment provider declined the payment: ${err.message}. Nothing was changed; save another payment method and try again.`,
            {
              providerCode: err.providerCode ?? null,
            },
          );
        case 'unavailable':
          throw billingError('payment_provider_unavailable', `${err.message}; nothing was changed. Try again later.`);
        case 'unsupported':
          throw hostedBillingUnavailable(err.message);
      }
    }
  }

  /**
   * A Stripe Checkout page that starts `tier` every `interval` for the workspace; the
   * webhook (checkout.session.completed) puts the plan in force once it is paid.
   * Checkout only starts subscriptions: a workspace already paying changes its plan in the
   * portal (or with POST /billing/activate-plan), so one workspace never pays twice.
   */
  async checkout(principal: Principal, workspaceId: string, tier: PaidTier, interval: Interval): Promise<{ url: string }> {
    this.assertHostedBilling('POST /billing/checkout');
    await this.users.assertVerifiedIfRequired(principal.userId, 'start a paid plan');
    return this.dataSource.transaction(async (m) => {
      await this.lockBilling(m, workspaceId);
      const sub = await this.billing.findSubscription(m, workspaceId);
      if (sub && this.paysNow(sub)) {
        const what = `${sub.tier} plan billed every ${sub.interval}${sub.status === 'past_due' ? ' (its last payment failed)' : ''}`;
        if (sub.tier === tier && sub.interval === interval) {
          throw billingError('already_on_plan', `Workspace ${workspaceId} is already on the ${what}; manage it in the billing portal (POST /billing/portal)`);
        }
        throw billingError(
          'subscription_exists',
          `Workspace ${workspaceId} already pays for the ${what}; change it to ${tier} every ${interval} in the billing portal (POST /billing/portal) or with POST /billing/activate-plan, not with a second subscription`,
        );
      }
      if (sub) await this.assertEndedAtProvider(sub);
      const plan = await this.quotas.planOf(workspaceId, m);
      if (plan.tier === tier) throw billingError('already_on_plan', `Workspace ${workspaceId} is already on the ${tier} plan`);
      const customer = await this.customer(m, workspaceId, principal.userId!);
      const window = Math.floor(this.clock.now().getTime() / CHECKOUT_REUSE_MS);
      const keyAfter = (closed: number) => `statichost-checkout-${workspaceId}-${tier}-${interval}-${customer.subscriptionsStarted + 1}-${closed}-${window}`;
      const closed = await this.closeOpenCheckout(m, customer, keyAfter(customer.checkoutsClosed));
      const idempotencyKey = keyAfter(customer.checkoutsClosed + closed);
      const page = this.billingPage(workspaceId);
      const session = await this.call(() =>
        this.provider.createCheckoutSession({
          workspaceId,
          customerRef: customer.customerRef,
          tier,
          interval,
          successUrl: `${page}?checkout=success`,
          cancelUrl: `${page}?checkout=canceled`,
          idempotencyKey,
        }),
      );
      await this.billing.setOpenCheckout(m, workspaceId, session.id, idempotencyKey);
      this.logger.log(`workspace ${workspaceId} started Checkout ${session.id} for ${tier}/${interval}`);
      return { url: session.url };
    });
  }

  /**
   * Closes the Checkout handed out before, unless this request is its repeat (same key: the
   * provider answers with that same session); answers how many it closed (0 or 1). Two open
   * Checkouts for one workspace (two tabs, two plans compared, one left open for a day)
   * could both be paid, and each would start a subscription charged on its own. One paid
   * already whose subscription still runs at the provider is on its way here: 409, rather
   * than a second. One paid whose subscription has ended since (its webhook lost, say) is
   * forgotten, so a lost delivery cannot refuse every Checkout after it.
   */
  private async closeOpenCheckout(m: EntityManager, customer: BillingCustomer, repeatKey: string): Promise<number> {
    const ref = customer.openCheckoutRef;
    if (!ref || customer.openCheckoutKey === repeatKey) return 0;
    const outcome = await this.call(() => this.provider.expireCheckoutSession(ref));
    if (outcome.status === 'completed') {
      const started = outcome.subscriptionRef ? await this.call(() => this.provider.retrieveSubscription(outcome.subscriptionRef!)) : null;
      if (started && started.status !== 'canceled') {
        throw billingError(
          'subscription_exists',
          `The Checkout started before for workspace ${customer.workspaceId} has been paid; its plan starts once the payment provider confirms it (reload the billing page in a minute)`,
        );
      }
    }
    this.logger.log(`workspace ${customer.workspaceId}: closed its earlier Checkout ${ref} (${outcome.status}) before starting another`);
    await this.billing.checkoutClosed(m, customer.workspaceId, ref);
    return 1;
  }

  /** The provider's billing portal for the workspace's customer (created on first use), returning to the billing page. */
  async portal(principal: Principal, workspaceId: string): Promise<{ url: string }> {
    this.assertHostedBilling('POST /billing/portal');
    return this.dataSource.transaction(async (m) => {
      await this.lockBilling(m, workspaceId);
      const customer = await this.customer(m, workspaceId, principal.userId!);
      const session = await this.call(() => this.provider.createPortalSession({ customerRef: customer.customerRef, returnUrl: this.billingPage(workspaceId) }));
      return { url: session.url };
    });
  }

  /** Whether paid plans are bought on the provider's pages (GET /billing/plans tells the dashboard). */
  get hostedBilling(): boolean {
    return this.provider.hostedBilling;
  }

  private assertHostedBilling(route: string): void {
    if (!this.provider.hostedBilling) {
      throw hostedBillingUnavailable(`${route} needs a hosted payment provider (PAYMENT_PROVIDER=stripe); this installation uses ${this.provider.name}`);
    }
  }

  /**
   * A subscription ended here may still be open at the provider: the grace ran out while
   * Stripe's own retries go on, and one that succeeds makes it active again. A second one
   * beside it would then be paid twice, so Checkout waits until the provider has ended it.
   */
  private async assertEndedAtProvider(sub: Subscription): Promise<void> {
    if (sub.provider !== this.provider.name || sub.status !== 'canceled' || !sub.providerSubscriptionRef) return;
    const there = await this.call(() => this.provider.retrieveSubscription(sub.providerSubscriptionRef!));
    if (!there || there.status === 'canceled' || there.status === 'incomplete') return;
    if (there.cancelAtPeriodEnd && there.currentPeriodEnd <= this.clock.now()) return;
    throw billingError(
      'subscription_exists',
      `Workspace ${sub.workspaceId}'s ${sub.tier} subscription ended here but is still ${there.status === 'past_due' ? 'retrying its failed payment' : 'open'} at the payment provider; ` +
        'pay or cancel it in the billing portal (POST /billing/portal) rather than starting a second one',
    );
  }

  /** A subscription with this provider still in force or being retried: starting another would charge twice. */
  private paysNow(sub: Subscription): boolean {
    if (sub.provider !== this.provider.name || sub.status === 'canceled') return false;
    return !(sub.cancelAtPeriodEnd && sub.currentPeriodEnd <= this.clock.now());
  }

  /** The dashboard's billing page of the workspace, where Checkout and the portal send the payer back. */
  private billingPage(workspaceId: string): string {
    return `${this.config.apiBaseUrl}/app/w/${workspaceId}/billing`;
  }
}

function hostedBillingUnavailable(why: string) {
  return billingError(
    'hosted_billing_unavailable',
    `${why}. Save a payment method with POST /billing/payment-methods and start the plan with POST /billing/activate-plan instead.`,
  );
}
