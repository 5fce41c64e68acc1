import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

import { BigintColumn, CascadeManyToOne, CreatedAtColumn, KeyedRow, ReferenceColumn, TimestampColumn, UpdatedAtColumn } from '../database/columns';
import type { Interval, PaidTier } from '../quotas/plans';
import { Workspace } from '../workspaces/workspace.entity';

export const PAYMENT_PROVIDERS = ['local', 'stripe'] as const;
export type PaymentProviderName = (typeof PAYMENT_PROVIDERS)[number];
/**
 * `active`: paid and running. `past_due`: a renewal failed; the plan stays in force for
 * BILLING_GRACE_DAYS from `pastDueSince` while the provider retries (issue 31).
 * `canceled`: ended; the workspace is back on free.
 */
export const SUBSCRIPTION_STATUSES = ['active', 'past_due', 'canceled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/**
 * A workspace's customer at the payment provider, created with its first payment
 * method. `subscriptionsStarted` numbers the provider subscriptions it has started,
 * which makes the idempotency key of the next one: a retry after a lost response
 * gets the same subscription back instead of a second one.
 */
@Entity('billing_customers')
@Check('CHK_billing_customers_provider', `"provider" IN ('local', 'stripe')`)
export class BillingCustomer extends KeyedRow('billing_customers', 'workspace', () => Workspace, 'one') {
  @Column('text')
  provider: PaymentProviderName;

  /** e.g. Stripe's `cus_…`; null for the local provider, which keeps no customers. */
  @Column('text', { name: 'customer_ref', nullable: true })
  customerRef: string | null;

  @Column('integer', { name: 'subscriptions_started', default: 0 })
  subscriptionsStarted: number;

  /**
   * The Checkout Session last handed out for this workspace, until its webhook says it was
   * paid: a new Checkout closes it first, so two open Checkouts can never both be paid (two
   * subscriptions, both charged). Null when none may still be open.
   */
  @Column('text', { name: 'open_checkout_ref', nullable: true })
  openCheckoutRef: string | null;

  /** The idempotency key `openCheckoutRef` was made with: a repeat with the same key is the same session (Stripe replays it), not a new one. */
  @Column('text', { name: 'open_checkout_key', nullable: true })
  openCheckoutKey: string | null;

  /**
   * How many Checkouts were closed for another: part of the next one's idempotency key, so a
   * Checkout asked again after one was closed in between is a new session, not Stripe's
   * replay (for 24 h) of the one just closed.
   */
  @Column('integer', { name: 'checkouts_closed', default: 0 })
  checkoutsClosed: number;

  /** When the provider last reported a dispute (chargeback) on one of its charges: flagged for the operator. */
  @TimestampColumn('disputed_at', { nullable: true })
  disputedAt: Date | null;

  @CreatedAtColumn()
  createdAt: Date;
}

/** A saved payment method. The token the dashboard sent is never stored or shown; only the provider's reference. */
@Entity('payment_methods')
@Index('UQ_payment_methods_workspace_ref', ['workspaceId', 'provider', 'providerRef'], { unique: true })
@Check('CHK_payment_methods_provider', `"provider" IN ('local', 'stripe')`)
export class PaymentMethod {
  @PrimaryColumn('text', { primaryKeyConstraintName: 'PK_payment_methods' })
  id: string;

  @ReferenceColumn('workspace_id', { index: 'IDX_payment_methods_workspace' })
  workspaceId: string;

  @CascadeManyToOne(() => Workspace, 'workspace_id', 'FK_payment_methods_workspace')
  workspace?: Workspace;

  @Column('text')
  provider: PaymentProviderName;

  /** e.g. Stripe's `pm_…`; for the local provider a digest of the token. */
  @Column('text', { name: 'provider_ref' })
  providerRef: string;

  @Column('text', { nullable: true })
  brand: string | null;

  @Column('text', { nullable: true })
  last4: string | null;

  @Column('integer', { name: 'exp_month', nullable: true })
  expMonth: number | null;

  @Column('integer', { name: 'exp_year', nullable: true })
  expYear: number | null;

  /** `usr_…` of the owner who saved it. */
  @Column('text', { name: 'created_by' })
  createdBy: string;

  @CreatedAtColumn()
  createdAt: Date;
}

/**
 * A workspace's paid subscription (at most one). `workspaces.plan` is the tier in
 * force; this row says how it is paid for and until when.
 */
@Entity('subscriptions')
@Check('CHK_subscriptions_provider', `"provider" IN ('local', 'stripe')`)
@Check('CHK_subscriptions_tier', `"tier" IN ('pro', 'team')`)
@Check('CHK_subscriptions_interval', `"interval" IN ('month', 'year')`)
@Check('CHK_subscriptions_status', `"status" IN ('active', 'past_due', 'canceled')`)
@Index('IDX_subscriptions_ending', ['currentPeriodEnd'], { where: `"status" = 'active' AND "cancel_at_period_end"` })
export class Subscription extends KeyedRow('subscriptions', 'workspace', () => Workspace, 'one') {
  @Column('text')
  provider: PaymentProviderName;

  /** e.g. Stripe's `sub_…`. */
  @Column('text', { name: 'provider_subscription_ref', nullable: true })
  providerSubscriptionRef: string | null;

  /** The subscription's one item (Stripe's `si_…`), whose price changes with the tier. */
  @Column('text', { name: 'provider_item_ref', nullable: true })
  providerItemRef: string | null;

  @Column('text')
  tier: PaidTier;

  @Column('text')
  interval: Interval;

  @Column('text')
  status: SubscriptionStatus;

  @Column('boolean', { name: 'cancel_at_period_end', default: false })
  cancelAtPeriodEnd: boolean;

  /** When the current period started to be counted (activation or interval change): periods repeat from here. */
  @TimestampColumn('period_anchor')
  periodAnchor: Date;

  @TimestampColumn('current_period_end')
  currentPeriodEnd: Date;

  /** When the failed renewal that made it `past_due` happened; null unless `past_due`. */
  @TimestampColumn('past_due_since', { nullable: true })
  pastDueSince: Date | null;

  /**
   * When the provider read this state came from began (database time), for a webhook's
   * state; a later webhook whose read began earlier is not applied. Null until a webhook wrote it.
   */
  @TimestampColumn('provider_read_at', { nullable: true })
  providerReadAt: Date | null;

  @CreatedAtColumn()
  createdAt: Date;

  @UpdatedAtColumn()
  updatedAt: Date;
}

/**
 * Deployments made per workspace and calendar month (UTC). A counter rather than a
 * count of `deployments` rows, so deleting a project does not give its deployments back.
 */
@Entity('workspace_monthly_usage')
@Check('CHK_workspace_monthly_usage_deployments', `"deployments" >= 0`)
@Check('CHK_workspace_monthly_usage_bandwidth', `"bandwidth_bytes" >= 0`)
export class WorkspaceMonthlyUsage extends KeyedRow('workspace_monthly_usage', 'workspace', () => Workspace) {
  /** First day of the month. */
  @PrimaryColumn('date', { primaryKeyConstraintName: 'PK_workspace_monthly_usage' })
  month: string;

  @Column('integer', { default: 0 })
  deployments: number;

  /** Bytes the workspace's sites served this month, added from the analytics counters when they flush (issue 31). */
  @BigintColumn({ name: 'bandwidth_bytes', default: 0 })
  bandwidthBytes: number;

  /**
   * Bytes served past the limit of the paid plan in force when they were counted (a free
   * plan has none): what OverageReporter bills. Counted then, not when reported, so a plan
   * change later does not bill past bytes against another plan's limit.
   */
  @BigintColumn({ name: 'overage_bytes', default: 0 })
  overageBytes: number;

  /** Bytes over the plan's limit already reported to the payment provider as overage (OverageReporter). */
  @BigintColumn({ name: 'overage_reported_bytes', default: 0 })
  overageReportedBytes: number;

  /**
   * The overage total a report in flight brings `overage_reported_bytes` to: set before the
   * provider is called, so a retry after a crash sends the same report (same identifier)
   * instead of a new one. Null: none in flight.
   */
  @BigintColumn({ name: 'overage_pending_bytes', nullable: true })
  overagePendingBytes: number | null;
}

/**
 * The distinct blobs a workspace's live and archived deployments hold: what its
 * storage quota counts, kept so a deploy need not scan every manifest of the
 * workspace. Deploys add to it in their own transaction; deployments leaving (or
 * re-entering) the count are logged in `workspace_storage_changes` by a trigger,
 * and the next reader rebuilds the set from the manifests (QuotaService).
 */
@Entity('workspace_storage_blobs')
export class WorkspaceStorageBlob extends KeyedRow('workspace_storage_blobs', 'workspace', () => Workspace) {
  @PrimaryColumn('text', { primaryKeyConstraintName: 'PK_workspace_storage_blobs' })
  sha256: string;

  @BigintColumn()
  size: number;
}

/** The sum of `workspace_storage_blobs` sizes. No row: never counted, rebuild before use. */
@Entity('workspace_storage')
export class WorkspaceStorage extends KeyedRow('workspace_storage', 'workspace', () => Workspace, 'one') {
  @BigintColumn()
  bytes: number;
}

/**
 * Written by the trigger on `deployments` when one leaves or enters the live and
 * archived set (expiry, project deletion): that workspace's storage must be
 * rebuilt. Insert-only, so the writers it rides on (the TTL sweeper, a project
 * delete) never wait on it. No foreign key: it is also written while a workspace
 * is being deleted.
 */
@Entity('workspace_storage_changes')
@Index('IDX_workspace_storage_changes_workspace', ['workspaceId'])
export class WorkspaceStorageChange {
  @PrimaryGeneratedColumn('increment', { type: 'bigint', primaryKeyConstraintName: 'PK_workspace_storage_changes' })
  id: string;

  @Column('text', { name: 'workspace_id' })
  workspaceId: string;

  @CreatedAtColumn()
  createdAt: Date;
}

/**
 * Every payment-provider event handled, recorded once in the transaction that acted on
 * it: a redelivered event finds its row and does nothing (issue 31). `workspaceId` is
 * null for an event about no workspace of ours.
 */
@Entity('billing_events')
@Check('CHK_billing_events_provider', `"provider" IN ('local', 'stripe')`)
export class BillingEvent {
  /** e.g. Stripe's `evt_…`. */
  @PrimaryColumn('text', { name: 'provider_event_id', primaryKeyConstraintName: 'PK_billing_events' })
  providerEventId: string;

  @Column('text')
  provider: PaymentProviderName;

  /** e.g. `invoice.payment_failed`. */
  @Column('text')
  type: string;

  @ReferenceColumn('workspace_id', { index: 'IDX_billing_events_workspace', nullable: true })
  workspaceId: string | null;

  @ManyToOne(() => Workspace, { onDelete: 'SET NULL', nullable: true })
  @JoinColumn({ name: 'workspace_id', foreignKeyConstraintName: 'FK_billing_events_workspace' })
  workspace?: Workspace | null;

  /** When the provider created the event (Stripe's `created`). */
  @TimestampColumn('event_created_at')
  eventCreatedAt: Date;

  @TimestampColumn('received_at', { default: () => 'now()' })
  receivedAt: Date;
}

export const INVOICE_STATUSES = ['draft', 'open', 'paid', 'uncollectible', 'void'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/** A provider invoice of a workspace, mirrored from the provider's events for GET /billing/invoices (issue 31). */
@Entity('billing_invoices')
@Index('UQ_billing_invoices_provider_ref', ['provider', 'providerRef'], { unique: true })
@Index('IDX_billing_invoices_workspace', ['workspaceId', 'createdAt'])
@Check('CHK_billing_invoices_provider', `"provider" IN ('local', 'stripe')`)
@Check('CHK_billing_invoices_status', `"status" IN ('draft', 'open', 'paid', 'uncollectible', 'void')`)
export class BillingInvoice {
  /** `inv_…` */
  @PrimaryColumn('text', { primaryKeyConstraintName: 'PK_billing_invoices' })
  id: string;

  @ReferenceColumn('workspace_id')
  workspaceId: string;

  @CascadeManyToOne(() => Workspace, 'workspace_id', 'FK_billing_invoices_workspace')
  workspace?: Workspace;

  @Column('text')
  provider: PaymentProviderName;

  /** e.g. Stripe's `in_…`. */
  @Column('text', { name: 'provider_ref' })
  providerRef: string;

  /** The invoice number the customer sees (Stripe's `number`); null for a draft. */
  @Column('text', { nullable: true })
  number: string | null;

  @Column('text')
  status: InvoiceStatus;

  /** Minor units of `currency` (cents). */
  @BigintColumn({ name: 'amount_due' })
  amountDue: number;

  @BigintColumn({ name: 'amount_paid' })
  amountPaid: number;

  /** ISO 4217, lower case as Stripe sends it. */
  @Column('text')
  currency: string;

  @TimestampColumn('period_start')
  periodStart: Date;

  @TimestampColumn('period_end')
  periodEnd: Date;

  @Column('text', { name: 'hosted_invoice_url', nullable: true })
  hostedInvoiceUrl: string | null;

  @CreatedAtColumn()
  createdAt: Date;

  @UpdatedAtColumn()
  updatedAt: Date;
}

/**
 * The owner's spend cap (issue 31, PUT /billing/spend-cap). No row: off, sites keep
 * serving past the bandwidth limit and the overage is billed.
 */
@Entity('workspace_spend_caps')
export class WorkspaceSpendCap extends KeyedRow('workspace_spend_caps', 'workspace', () => Workspace, 'one') {
  @Column('boolean', { name: 'pause_sites_at_limit', default: false })
  pauseSitesAtLimit: boolean;

  @UpdatedAtColumn()
  updatedAt: Date;
}
