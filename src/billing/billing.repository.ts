import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

import { ADVISORY_LOCKS } from '../database/advisory-locks';
import { GenerateSql } from '../database/generate-sql';
import { BillingCustomer, BillingEvent, BillingInvoice, PaymentMethod, type PaymentProviderName, Subscription } from './billing.entities';

const METHOD = 'pm_sqlsnapshot0000000000000';

type SubscriptionRow = Pick<
  Subscription,
  | 'workspaceId'
  | 'provider'
  | 'providerSubscriptionRef'
  | 'providerItemRef'
  | 'tier'
  | 'interval'
  | 'status'
  | 'cancelAtPeriodEnd'
  | 'periodAnchor'
  | 'currentPeriodEnd'
>;

/** Every query on billing_customers, payment_methods and subscriptions. */
@Injectable()
export class BillingRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Queues billing changes of one workspace for the rest of the caller's transaction. The
   * workspace's row first, as a deploy (QuotaService.lock), a provider's webhook and the
   * lapse sweeper take it before the subscription: one order for every writer of a
   * workspace's plan. (A plan change once wrote its audit entry, then set the plan on that
   * row, and deadlocked with a deploy; entries are written at the commit now.) The advisory
   * lock still queues changes of a workspace whose row is gone.
   */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.workspaceId] })
  async lock(manager: EntityManager, workspaceId: string): Promise<void> {
    await manager.query('SELECT 1 FROM workspaces WHERE id = $1 FOR NO KEY UPDATE', [workspaceId]);
    await manager.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [ADVISORY_LOCKS.billingClass, workspaceId]);
  }

  @GenerateSql({ params: (f) => [f.manager, f.workspaceId, 'local', 'ref'] })
  findPaymentMethodByRef(manager: EntityManager, workspaceId: string, provider: PaymentProviderName, providerRef: string): Promise<PaymentMethod | null> {
    return manager.findOneBy(PaymentMethod, { workspaceId, provider, providerRef });
  }

  @GenerateSql({ params: (f) => [f.manager, METHOD] })
  findPaymentMethod(manager: EntityManager, id: string): Promise<PaymentMethod | null> {
    return manager.findOneBy(PaymentMethod, { id });
  }

  /** The newest is the one charged. */
  @GenerateSql({ params: (f) => [f.manager, f.workspaceId, 'local'] })
  newestPaymentMethod(manager: EntityManager, workspaceId: string, provider: PaymentProviderName): Promise<PaymentMethod | null> {
    return manager.findOne(PaymentMethod, { where: { workspaceId, provider }, order: { createdAt: 'DESC', id: 'DESC' } });
  }

  /** The newest `take`, newest first. */
  @GenerateSql({ params: (f) => [f.manager, f.workspaceId, 'local', 2] })
  newestPaymentMethods(manager: EntityManager, workspaceId: string, provider: PaymentProviderName, take: number): Promise<PaymentMethod[]> {
    return manager.find(PaymentMethod, { where: { workspaceId, provider }, order: { createdAt: 'DESC', id: 'DESC' }, take });
  }

  @GenerateSql({ params: (f) => [f.workspaceId, 'local', 1, 20] })
  async pagePaymentMethods(workspaceId: string, provider: PaymentProviderName, page: number, limit: number): Promise<{ rows: PaymentMethod[]; total: number }> {
    const [rows, total] = await this.dataSource.manager.findAndCount(PaymentMethod, {
      where: { workspaceId, provider },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: (page - 1) * limit,
      take: limit,
    });
    return { rows, total };
  }

  @GenerateSql({ params: (f) => [f.manager, f.workspaceId, 'local'] })
  hasPaymentMethod(manager: EntityManager, workspaceId: string, provider: PaymentProviderName): Promise<boolean> {
    return manager.exists(PaymentMethod, { where: { workspaceId, provider } });
  }

  @GenerateSql({
    params: (f) => [
      f.manager,
      {
        id: METHOD,
        workspaceId: 'ws_none',
        provider: 'local',
        providerRef: 'ref',
        brand: null,
        last4: null,
        expMonth: null,
        expYear: null,
        createdBy: f.userId,
        createdAt: new Date(0),
      },
    ],
  })
  async insertPaymentMethod(
    manager: EntityManager,
    row: Pick<PaymentMethod, 'id' | 'workspaceId' | 'provider' | 'providerRef' | 'createdBy' | 'createdAt'> &
      Partial<Pick<PaymentMethod, 'brand' | 'last4' | 'expMonth' | 'expYear'>>,
  ): Promise<PaymentMethod> {
    const method = manager.create(PaymentMethod, row);
    await manager.insert(PaymentMethod, method);
    return method;
  }

  @GenerateSql({ params: (f) => [f.manager, METHOD] })
  async deletePaymentMethod(manager: EntityManager, id: string): Promise<void> {
    await manager.delete(PaymentMethod, { id });
  }

  @GenerateSql({ params: (f) => [f.manager, f.workspaceId] })
  findSubscription(manager: EntityManager, workspaceId: string): Promise<Subscription | null> {
    return manager.findOneBy(Subscription, { workspaceId });
  }

  /** The workspace's one subscription, created or replaced. */
  @GenerateSql({
    params: (f) => [
      f.manager,
      {
        workspaceId: 'ws_none',
        provider: 'local',
        providerSubscriptionRef: null,
        providerItemRef: null,
        tier: 'pro',
        interval: 'month',
        status: 'active',
        cancelAtPeriodEnd: false,
        periodAnchor: new Date(0),
        currentPeriodEnd: new Date(0),
      },
    ],
  })
  async upsertSubscription(manager: EntityManager, row: SubscriptionRow): Promise<void> {
    await manager.upsert(Subscription, row, ['workspaceId']);
  }

  @GenerateSql({ params: (f) => [f.manager, 'ws_none', { cancelAtPeriodEnd: true, periodAnchor: new Date(0), currentPeriodEnd: new Date(0) }] })
  async updateSubscription(
    manager: EntityManager,
    workspaceId: string,
    changes: Partial<Pick<Subscription, 'cancelAtPeriodEnd' | 'periodAnchor' | 'currentPeriodEnd'>>,
  ): Promise<void> {
    await manager.update(Subscription, { workspaceId }, changes);
  }

  /**
   * Ends what no longer pays for a plan and puts those workspaces back on `free`, in one
   * statement (a workspace's plan and its subscription never disagree): a cancelled
   * subscription whose period is over, a `past_due` one whose grace (`graceDays` from
   * `past_due_since`) is over, and a `canceled` one (ended at the provider) whose paid
   * period is over. Returns the workspaces changed, each once even with several
   * instances sweeping at once (the rows they update are locked and re-checked).
   * The workspaces' rows are locked first, in id order, as every billing change takes its
   * workspace's row before the subscription (BillingRepository.lock): updating the
   * subscriptions first made a provider's webhook at the period's end and the sweeper wait
   * for each other. The statement then changes only the workspaces it locked.
   */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, new Date(0), 7] })
  async endLapsed(manager: EntityManager, now: Date, graceDays: number): Promise<{ id: string; tier: string; reason: 'canceled' | 'grace_over' }[]> {
    const locked: { id: string }[] = await manager.query(
      `SELECT w.id FROM workspaces w JOIN subscriptions s ON s.workspace_id = w.id
        WHERE (s.status = 'active' AND s.cancel_at_period_end AND s.current_period_end <= $1)
           OR (s.status = 'past_due' AND s.past_due_since + make_interval(days => $2) <= $1)
           OR (s.status = 'canceled' AND s.current_period_end <= $1 AND w.plan <> 'free')
        ORDER BY w.id FOR NO KEY UPDATE OF w`,
      [now, graceDays],
    );
    const [rows]: [{ id: string; tier: string; reason: 'canceled' | 'grace_over' }[], number] = await manager.query(
      `WITH cancelled AS (
         UPDATE subscriptions SET status = 'canceled', updated_at = $1
         WHERE status = 'active' AND cancel_at_period_end AND current_period_end <= $1 AND workspace_id = ANY($3::text[])
         RETURNING workspace_id, tier),
       unpaid AS (
         -- The period the failed renewal opened was never paid for: it ends now, not at its end.
         UPDATE subscriptions SET status = 'canceled', updated_at = $1, past_due_since = NULL, current_period_end = least(current_period_end, $1)
         WHERE status = 'past_due' AND past_due_since + make_interval(days => $2) <= $1 AND workspace_id = ANY($3::text[])
         RETURNING workspace_id, tier),
       lapsed AS (
         SELECT workspace_id, tier, 'canceled' AS reason FROM cancelled
         UNION ALL
         SELECT workspace_id, tier, 'grace_over' FROM unpaid
         UNION ALL
         SELECT workspace_id, tier, 'canceled' FROM subscriptions
         WHERE status = 'canceled' AND current_period_end <= $1 AND workspace_id = ANY($3::text[])
           AND workspace_id NOT IN (SELECT workspace_id FROM cancelled UNION ALL SELECT workspace_id FROM unpaid))
       UPDATE workspaces w SET plan = 'free', updated_at = $1 FROM lapsed WHERE w.id = lapsed.workspace_id AND w.plan <> 'free'
       RETURNING w.id, lapsed.tier, lapsed.reason`,
      [now, graceDays, locked.map((r) => r.id)],
    );
    return rows;
  }

  @GenerateSql({ params: (f) => [f.manager, f.workspaceId] })
  findCustomer(manager: EntityManager, workspaceId: string): Promise<BillingCustomer | null> {
    return manager.findOneBy(BillingCustomer, { workspaceId });
  }

  /** Created, or (after a change of provider) replaced. */
  @GenerateSql({
    params: (f) => [f.manager, { workspaceId: 'ws_none', provider: 'local', customerRef: null, subscriptionsStarted: 0, createdAt: new Date(0) }],
  })
  saveCustomer(
    manager: EntityManager,
    row: Pick<BillingCustomer, 'workspaceId' | 'provider' | 'customerRef' | 'subscriptionsStarted' | 'createdAt'> &
      Partial<Pick<BillingCustomer, 'openCheckoutRef' | 'openCheckoutKey'>>,
  ): Promise<BillingCustomer> {
    return manager.save(BillingCustomer, manager.create(BillingCustomer, row));
  }

  /** The Checkout Session just handed out for the workspace (BillingCustomer.openCheckoutRef). */
  @GenerateSql({ params: (f) => [f.manager, 'ws_none', 'cs_none', 'key'] })
  async setOpenCheckout(manager: EntityManager, workspaceId: string, ref: string, key: string): Promise<void> {
    await manager.update(BillingCustomer, { workspaceId }, { openCheckoutRef: ref, openCheckoutKey: key });
  }

  /** Forgets the workspace's open Checkout when it is `ref` (paid); a newer one stays. */
  @GenerateSql({ params: (f) => [f.manager, 'ws_none', 'cs_none'] })
  async clearOpenCheckout(manager: EntityManager, workspaceId: string, ref: string): Promise<void> {
    await manager.update(BillingCustomer, { workspaceId, openCheckoutRef: ref }, { openCheckoutRef: null, openCheckoutKey: null });
  }

  /** The open Checkout `ref` is closed (or found paid and ended) before another starts: forgotten, and counted for the next key. */
  @GenerateSql({ params: (f) => [f.manager, 'ws_none', 'cs_none'] })
  async checkoutClosed(manager: EntityManager, workspaceId: string, ref: string): Promise<void> {
    await manager
      .createQueryBuilder()
      .update(BillingCustomer)
      .set({ openCheckoutRef: null, openCheckoutKey: null, checkoutsClosed: () => 'checkouts_closed + 1' })
      .where('workspace_id = :workspaceId AND open_checkout_ref = :ref', { workspaceId, ref })
      .execute();
  }

  /** Numbers the next provider subscription, whose idempotency key it makes. */
  @GenerateSql({ params: (f) => [f.manager, 'ws_none'] })
  async countSubscriptionStarted(manager: EntityManager, workspaceId: string): Promise<void> {
    await manager.increment(BillingCustomer, { workspaceId }, 'subscriptionsStarted', 1);
  }

  // Issue 31: the provider-event ledger, the subscription lifecycle, mirrored invoices.

  /** Whether the provider event was handled already (a cheap look before reading the provider again). */
  @GenerateSql({ params: () => ['evt_none'] })
  eventSeen(providerEventId: string): Promise<boolean> {
    return this.dataSource.manager.exists(BillingEvent, { where: { providerEventId } });
  }

  /**
   * The ledger's row for an event, first in the transaction that acts on it: false when it
   * is there already (a redelivery, or a concurrent delivery of the same event that
   * committed first), and the caller then does nothing.
   */
  @GenerateSql({
    inTransaction: true,
    params: (f) => [
      f.manager,
      { providerEventId: 'evt_sqlsnapshot', provider: 'stripe', type: 'invoice.paid', workspaceId: null, eventCreatedAt: new Date(0), receivedAt: new Date(0) },
    ],
  })
  async recordEvent(
    manager: EntityManager,
    row: Pick<BillingEvent, 'providerEventId' | 'provider' | 'type' | 'workspaceId' | 'eventCreatedAt' | 'receivedAt'>,
  ): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `INSERT INTO billing_events (provider_event_id, provider, type, workspace_id, event_created_at, received_at)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (provider_event_id) DO NOTHING RETURNING 1`,
      [row.providerEventId, row.provider, row.type, row.workspaceId, row.eventCreatedAt, row.receivedAt],
    );
    return rows.length > 0;
  }

  /** The workspace whose provider customer this is. */
  @GenerateSql({ params: (f) => [f.manager, 'stripe', 'cus_none'] })
  async workspaceOfCustomer(manager: EntityManager, provider: PaymentProviderName, customerRef: string): Promise<string | null> {
    const row = await manager.findOne(BillingCustomer, { select: { workspaceId: true }, where: { provider, customerRef } });
    return row?.workspaceId ?? null;
  }

  /** The workspace a saved payment method belongs to (a detached method names no customer any more). */
  @GenerateSql({ params: (f) => [f.manager, 'stripe', 'pm_none'] })
  async workspaceOfPaymentMethod(manager: EntityManager, provider: PaymentProviderName, providerRef: string): Promise<string | null> {
    const row = await manager.findOne(PaymentMethod, { select: { workspaceId: true }, where: { provider, providerRef }, order: { createdAt: 'ASC' } });
    return row?.workspaceId ?? null;
  }

  @GenerateSql({ params: (f) => [f.manager, 'ws_none'] })
  async workspaceExists(manager: EntityManager, workspaceId: string): Promise<boolean> {
    const rows: unknown[] = await manager.query('SELECT 1 FROM workspaces WHERE id = $1', [workspaceId]);
    return rows.length > 0;
  }

  /** The workspace's one subscription as the provider reports it now, created or replaced. */
  @GenerateSql({
    params: (f) => [
      f.manager,
      {
        workspaceId: 'ws_none',
        provider: 'stripe',
        providerSubscriptionRef: 'sub_none',
        providerItemRef: null,
        tier: 'pro',
        interval: 'month',
        status: 'past_due',
        cancelAtPeriodEnd: false,
        periodAnchor: new Date(0),
        currentPeriodEnd: new Date(0),
        pastDueSince: new Date(0),
        providerReadAt: new Date(0),
      },
    ],
  })
  async saveSubscriptionState(manager: EntityManager, row: SubscriptionRow & Pick<Subscription, 'pastDueSince' | 'providerReadAt'>): Promise<void> {
    await manager.upsert(Subscription, row, ['workspaceId']);
  }

  /**
   * The database's clock now (`clock_timestamp()`, not the transaction's start): when a
   * webhook's provider read begins, comparable across instances whatever their own clocks say.
   */
  @GenerateSql({ params: () => [] })
  async databaseNow(): Promise<Date> {
    const [row]: { now: Date }[] = await this.dataSource.query('SELECT clock_timestamp() AS now');
    return row.now;
  }

  /** Flags the customer for the operator: one of its charges is disputed. */
  @GenerateSql({ params: (f) => [f.manager, 'ws_none', new Date(0)] })
  async markDisputed(manager: EntityManager, workspaceId: string, at: Date): Promise<void> {
    await manager.update(BillingCustomer, { workspaceId }, { disputedAt: at });
  }

  /** Forgets a payment method removed at the provider (e.g. in its portal): it can no longer be charged. */
  @GenerateSql({ params: (f) => [f.manager, 'ws_none', 'stripe', 'pm_none'] })
  async deletePaymentMethodByRef(manager: EntityManager, workspaceId: string, provider: PaymentProviderName, providerRef: string): Promise<number> {
    const result = await manager.delete(PaymentMethod, { workspaceId, provider, providerRef });
    return result.affected ?? 0;
  }

  /**
   * Creates or updates the mirror of a provider invoice. Events can come out of order, so a
   * status only moves forward along Stripe's own: draft, open, then paid, void or
   * uncollectible, and uncollectible still to paid or void. A late `invoice.payment_failed`
   * does not reopen a paid invoice, a late `invoice.created` does not undo its finalizing,
   * and a late uncollectible does not unpay one that was paid after all.
   */
  @GenerateSql({
    params: (f) => [
      f.manager,
      {
        id: 'inv_sqlsnapshot0000000000000',
        workspaceId: 'ws_none',
        provider: 'stripe',
        providerRef: 'in_none',
        number: null,
        status: 'open',
        amountDue: 1900,
        amountPaid: 0,
        currency: 'usd',
        periodStart: new Date(0),
        periodEnd: new Date(0),
        hostedInvoiceUrl: null,
        createdAt: new Date(0),
      },
    ],
  })
  async upsertInvoice(
    manager: EntityManager,
    row: Pick<
      BillingInvoice,
      | 'id'
      | 'workspaceId'
      | 'provider'
      | 'providerRef'
      | 'number'
      | 'status'
      | 'amountDue'
      | 'amountPaid'
      | 'currency'
      | 'periodStart'
      | 'periodEnd'
      | 'hostedInvoiceUrl'
      | 'createdAt'
    >,
  ): Promise<void> {
    await manager.query(
      `INSERT INTO billing_invoices AS i (id, workspace_id, provider, provider_ref, number, status, amount_due, amount_paid, currency,
                                          period_start, period_end, hosted_invoice_url, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13)
       ON CONFLICT (provider, provider_ref) DO UPDATE SET
         number = coalesce(excluded.number, i.number), status = excluded.status, amount_due = excluded.amount_due,
         amount_paid = excluded.amount_paid, currency = excluded.currency, period_start = excluded.period_start,
         period_end = excluded.period_end, hosted_invoice_url = coalesce(excluded.hosted_invoice_url, i.hosted_invoice_url),
         updated_at = excluded.updated_at
       WHERE i.status = 'draft' OR excluded.status = i.status OR (i.status = 'open' AND excluded.status <> 'draft')
          OR (i.status = 'uncollectible' AND excluded.status IN ('paid', 'void'))`,
      [
        row.id,
        row.workspaceId,
        row.provider,
        row.providerRef,
        row.number,
        row.status,
        row.amountDue,
        row.amountPaid,
        row.currency,
        row.periodStart,
        row.periodEnd,
        row.hostedInvoiceUrl,
        row.createdAt,
      ],
    );
  }

  /** A workspace's invoices, newest first. */
  @GenerateSql({ params: (f) => [f.workspaceId, 1, 20] })
  async pageInvoices(workspaceId: string, page: number, limit: number): Promise<{ rows: BillingInvoice[]; total: number }> {
    const [rows, total] = await this.dataSource.manager.findAndCount(BillingInvoice, {
      where: { workspaceId },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: (page - 1) * limit,
      take: limit,
    });
    return { rows, total };
  }

  /** Projects, stored bytes and the bandwidth of `month`, to tell owners what no longer fits a smaller plan (read in the caller's transaction). */
  @GenerateSql({ params: (f) => [f.manager, f.workspaceId, '2000-01-01'] })
  async holdings(manager: EntityManager, workspaceId: string, month: string): Promise<{ projects: number; storageBytes: number; bandwidthBytes: number }> {
    const [row]: { projects: number; storage: string; bandwidth: string }[] = await manager.query(
      `SELECT (SELECT count(*) FROM projects WHERE workspace_id = $1)::int AS projects,
              coalesce((SELECT bytes FROM workspace_storage WHERE workspace_id = $1), 0)::bigint AS storage,
              coalesce((SELECT bandwidth_bytes FROM workspace_monthly_usage WHERE workspace_id = $1 AND month = $2), 0)::bigint AS bandwidth`,
      [workspaceId, month],
    );
    return { projects: row.projects, storageBytes: Number(row.storage), bandwidthBytes: Number(row.bandwidth) };
  }
}
