import { ApiProperty } from '@nestjs/swagger';

import { IdProperty, NullableStringProperty } from '../common/dto-fields';
import { iso } from '../common/time';
import { type Interval, INTERVALS, type Tier, TIERS } from '../quotas/plans';
import { type BillingInvoice, INVOICE_STATUSES, type InvoiceStatus, PAYMENT_PROVIDERS, type PaymentMethod, type PaymentProviderName } from './billing.entities';

export class ActivationView {
  @ApiProperty({ example: true })
  success: true;
  @ApiProperty({ enum: ['pro', 'team'] })
  tier: Tier;
  @ApiProperty({ enum: ['active'] })
  status: 'active';
}

export class PaymentMethodView {
  @ApiProperty({ example: 'pm_0123456789abcdefghijklmn', description: 'Our id (not the provider’s)' })
  id: string;
  @IdProperty('ws')
  workspaceId: string;
  @ApiProperty({ enum: PAYMENT_PROVIDERS })
  provider: PaymentProviderName;
  @NullableStringProperty({ example: 'visa' })
  brand: string | null;
  @NullableStringProperty({ example: '4242' })
  last4: string | null;
  @ApiProperty({ nullable: true, type: 'integer', example: 12 })
  expMonth: number | null;
  @ApiProperty({ nullable: true, type: 'integer', example: 2030 })
  expYear: number | null;
  @ApiProperty({ description: 'The method charged for the subscription: the most recently saved one' })
  isDefault: boolean;
  @ApiProperty({ example: '2025-01-01T00:00:00.000Z' })
  createdAt: string;
}

export function paymentMethodView(pm: PaymentMethod, isDefault: boolean): PaymentMethodView {
  return {
    id: pm.id,
    workspaceId: pm.workspaceId,
    provider: pm.provider,
    brand: pm.brand,
    last4: pm.last4,
    expMonth: pm.expMonth,
    expYear: pm.expYear,
    isDefault,
    createdAt: iso(pm.createdAt),
  };
}

export const SUBSCRIPTION_VIEW_STATUSES = ['none', 'active', 'past_due', 'canceled'] as const;

export class SubscriptionView {
  @IdProperty('ws')
  workspaceId: string;
  @ApiProperty({ enum: TIERS, description: 'The tier in force now' })
  tier: Tier;
  @ApiProperty({ enum: INTERVALS, nullable: true, type: String })
  interval: Interval | null;
  @ApiProperty({
    enum: SUBSCRIPTION_VIEW_STATUSES,
    description:
      '`none`: never subscribed; `active`: paid and running (see cancelAtPeriodEnd); `past_due`: a renewal failed, the plan is kept until graceEndsAt while the payment is retried; `canceled`: ended (the plan stays until currentPeriodEnd, then free)',
  })
  status: (typeof SUBSCRIPTION_VIEW_STATUSES)[number];
  @ApiProperty({ description: 'The plan ends at currentPeriodEnd and the workspace returns to free' })
  cancelAtPeriodEnd: boolean;
  @NullableStringProperty({ example: '2025-02-01T00:00:00.000Z', description: 'End of the period paid for (the end date once canceled)' })
  currentPeriodEnd: string | null;
  @ApiProperty({ enum: PAYMENT_PROVIDERS, nullable: true, type: String })
  provider: PaymentProviderName | null;
  @NullableStringProperty({ example: '2025-02-01T00:00:00.000Z', description: 'When the renewal failed; null unless past_due' })
  pastDueSince: string | null;
  @NullableStringProperty({
    example: '2025-02-08T00:00:00.000Z',
    description: 'pastDueSince + BILLING_GRACE_DAYS: unpaid by then, the workspace is back on free; null unless past_due',
  })
  graceEndsAt: string | null;
  @ApiProperty({ description: 'The payment provider reported a dispute (chargeback) on one of its charges; the operator has been told' })
  disputed: boolean;
}

/** A provider invoice of the workspace (GET /billing/invoices), mirrored from its events. */
export class InvoiceView {
  @IdProperty('inv')
  id: string;
  @NullableStringProperty({ example: 'A1B2C3D4-0001', description: 'The number the customer sees; null for a draft' })
  number: string | null;
  @ApiProperty({ enum: INVOICE_STATUSES })
  status: InvoiceStatus;
  @ApiProperty({ type: 'integer', example: 1900, description: 'Minor units of currency (cents)' })
  amountDue: number;
  @ApiProperty({ type: 'integer', example: 1900, description: 'Minor units of currency (cents)' })
  amountPaid: number;
  @ApiProperty({ example: 'usd', description: 'ISO 4217, lower case' })
  currency: string;
  @ApiProperty({ example: '2025-01-01T00:00:00.000Z' })
  periodStart: string;
  @ApiProperty({ example: '2025-02-01T00:00:00.000Z' })
  periodEnd: string;
  @NullableStringProperty({ example: 'https://invoice.stripe.com/i/acct_1/test_…', description: 'The provider’s page for the invoice (view, pay, download)' })
  hostedInvoiceUrl: string | null;
  @ApiProperty({ example: '2025-01-01T00:00:00.000Z' })
  createdAt: string;
}

export function invoiceView(invoice: BillingInvoice): InvoiceView {
  return {
    id: invoice.id,
    number: invoice.number,
    status: invoice.status,
    amountDue: Number(invoice.amountDue),
    amountPaid: Number(invoice.amountPaid),
    currency: invoice.currency,
    periodStart: iso(invoice.periodStart),
    periodEnd: iso(invoice.periodEnd),
    hostedInvoiceUrl: invoice.hostedInvoiceUrl,
    createdAt: iso(invoice.createdAt),
  };
}

export class StripeWebhookAnswerView {
  @ApiProperty({ enum: [true] })
  received: true;
  @ApiProperty({ enum: [true], required: false, description: 'This event was handled before: nothing was done again' })
  duplicate?: true;
}

/** A page of the payment provider's own (Checkout, the portal) to send the browser to. */
export class HostedPageView {
  @ApiProperty({ example: 'https://checkout.stripe.com/c/pay/cs_test_a1b2c3', description: 'Short-lived: open it now rather than storing it' })
  url: string;
}
