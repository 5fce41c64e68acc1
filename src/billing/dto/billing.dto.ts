import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsString, Matches, MaxLength } from 'class-validator';

import { IdProperty } from '../../common/dto-fields';
import { PageQueryDto } from '../../common/pagination';
import { type Interval, INTERVALS, PAID_TIERS, type PaidTier } from '../../quotas/plans';

const WORKSPACE_ID = /^ws_[0-9a-z]{24}$/;
const WORKSPACE_ID_MESSAGE = 'workspaceId must be a workspace id (ws_ followed by 24 lowercase letters or digits)';

export class WorkspaceRefDto {
  @IdProperty('ws')
  @IsString({ message: WORKSPACE_ID_MESSAGE })
  @Matches(WORKSPACE_ID, { message: WORKSPACE_ID_MESSAGE })
  workspaceId: string;
}

export class ActivatePlanDto extends WorkspaceRefDto {
  @ApiProperty({ enum: PAID_TIERS, example: 'pro' })
  @IsIn(PAID_TIERS, { message: `tier must be one of: ${PAID_TIERS.join(', ')}` })
  tier: PaidTier;

  @ApiProperty({ enum: INTERVALS, example: 'month' })
  @IsIn(INTERVALS, { message: `interval must be one of: ${INTERVALS.join(', ')}` })
  interval: Interval;
}

export class AddPaymentMethodDto extends WorkspaceRefDto {
  @ApiProperty({
    example: 'pm_1PqRsTuVwXyZ',
    writeOnly: true,
    description: 'A payment method id from the provider’s card form (e.g. Stripe.js); never stored or returned',
  })
  @IsString()
  @MaxLength(255)
  paymentMethodToken: string;
}

export class WorkspaceQueryDto extends WorkspaceRefDto {}

export class PaymentMethodsQueryDto extends PageQueryDto {
  @IdProperty('ws')
  @IsString({ message: WORKSPACE_ID_MESSAGE })
  @Matches(WORKSPACE_ID, { message: WORKSPACE_ID_MESSAGE })
  workspaceId: string;
}

/** Same fields as activate-plan: the paid tier and how often it is billed. */
export class CheckoutDto extends ActivatePlanDto {}
