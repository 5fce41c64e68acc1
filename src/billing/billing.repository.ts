import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

import { ADVISORY_LOCKS } from '../database/advisory-locks';
import { GenerateSql } from '../database/generate-sql';
import { BillingCustomer, PaymentMethod, type PaymentProviderName, Subscription } from './billing.entities';

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

  /** Queues billing changes of one workspace for the rest of the caller's transaction. */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.workspaceId] })
  async lock(manager: EntityManager, workspaceId: string): Promise<void> {
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
   * Ends the cancelled subscriptions whose period is over and puts their workspaces back
   * on `free`, in one statement: a workspace's plan and its subscription never disagree.
   * Returns the workspaces changed.
   */
  @GenerateSql({ params: () => [new Date(0)] })
  async endLapsed(now: Date): Promise<string[]> {
    const [rows]: [{ id: string }[], number] = await this.dataSource.query(
      `WITH ended AS (
         UPDATE subscriptions SET status = 'canceled', updated_at = $1
         WHERE status = 'active' AND cancel_at_period_end AND current_period_end <= $1
         RETURNING workspace_id)
       UPDATE workspaces w SET plan = 'free', updated_at = $1 FROM ended WHERE w.id = ended.workspace_id
       RETURNING w.id`,
      [now],
    );
    return rows.map((r) => r.id);
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
    row: Pick<BillingCustomer, 'workspaceId' | 'provider' | 'customerRef' | 'subscriptionsStarted' | 'createdAt'>,
  ): Promise<BillingCustomer> {
    return manager.save(BillingCustomer, manager.create(BillingCustomer, row));
  }

  /** Numbers the next provider subscription, whose idempotency key it makes. */
  @GenerateSql({ params: (f) => [f.manager, 'ws_none'] })
  async countSubscriptionStarted(manager: EntityManager, workspaceId: string): Promise<void> {
    await manager.increment(BillingCustomer, { workspaceId }, 'subscriptionsStarted', 1);
  }
}
