import { ApiProperty } from '@nestjs/swagger';

import { IdProperty, NullableStringProperty } from '../common/dto-fields';
import { iso } from '../common/time';
import { type Interval, INTERVALS, type Tier, TIERS } from '../quotas/plans';
import { PAYMENT_PROVIDERS, type PaymentMethod, type PaymentProviderName } from './billing.entities';

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

export const SUBSCRIPTION_VIEW_STATUSES = ['none', 'active', 'canceled'] as const;

export class SubscriptionView {
  @IdProperty('ws')
  workspaceId: string;
  @ApiProperty({ enum: TIERS, description: 'The tier in force now' })
  tier: Tier;
  @ApiProperty({ enum: INTERVALS, nullable: true, type: String })
  interval: Interval | null;
  @ApiProperty({
    enum: SUBSCRIPTION_VIEW_STATUSES,
    description: '`none`: never subscribed; `active`: paid and running (see cancelAtPeriodEnd); `canceled`: ended, back on free',
  })
  status: (typeof SUBSCRIPTION_VIEW_STATUSES)[number];
  @ApiProperty({ description: 'The plan ends at currentPeriodEnd and the workspace returns to free' })
  cancelAtPeriodEnd: boolean;
  @NullableStringProperty({ example: '2025-02-01T00:00:00.000Z', description: 'End of the period paid for (the end date once canceled)' })
  currentPeriodEnd: string | null;
  @ApiProperty({ enum: PAYMENT_PROVIDERS, nullable: true, type: String })
  provider: PaymentProviderName | null;
}

/** A page of the payment provider's own (Checkout, the portal) to send the browser to. */
export class HostedPageView {
  @ApiProperty({ example: 'https://checkout.stripe.com/c/pay/cs_test_a1b2c3', description: 'Short-lived: open it now rather than storing it' })
  url: string;
}
