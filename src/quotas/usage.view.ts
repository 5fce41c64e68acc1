import { ApiProperty } from '@nestjs/swagger';

import { NullableStringProperty } from '../common/dto-fields';
import { type Interval, type Price, type Tier, TIERS } from './plans';
import type { Limits } from './plans.service';
import type { WorkspaceUsage } from './quota.service';

export class PlanLimitsView {
  @ApiProperty({ nullable: true, type: 'integer', example: 3, description: 'Projects per workspace; null: unlimited' })
  projects: number | null;
  @ApiProperty({ nullable: true, type: 'integer', example: 10, description: 'Deployments per calendar month (UTC); null: unlimited' })
  deploymentsPerMonth: number | null;
  @ApiProperty({
    nullable: true,
    type: 'integer',
    example: 524288000,
    description: 'Bytes of distinct files in live and archived deployments; null: unlimited',
  })
  storageBytes: number | null;
  @ApiProperty({ type: 'integer', example: 10485760, description: 'Largest file of a deployment, in bytes' })
  maxFileBytes: number;
  @NullableStringProperty({ example: '7d', description: 'Longest deployment ttl; null: any, including forever' })
  maxTtl: string | null;
  @ApiProperty({ nullable: true, type: 'integer', example: 1, description: 'Builds queued or running at once per workspace; null: unlimited' })
  concurrentBuilds: number | null;
  @ApiProperty({ nullable: true, type: 'integer', example: 300, description: 'Minutes of builds per calendar month (UTC); null: unlimited' })
  buildMinutesPerMonth: number | null;
}

export class PriceView {
  @ApiProperty({ type: 'integer', example: 1900, description: "In the currency's minor units (cents): 1900 is 19.00" })
  amount: number;
  @ApiProperty({ example: 'usd', description: 'ISO 4217, lower-case' })
  currency: string;
}

export class PlanPricesView {
  @ApiProperty({ type: PriceView, description: 'Billed every month' })
  month: PriceView;
  @ApiProperty({ type: PriceView, description: 'Billed every year' })
  year: PriceView;
}

export class PlanView {
  @ApiProperty({ enum: TIERS })
  tier: Tier;
  @ApiProperty({ type: PlanLimitsView })
  limits: PlanLimitsView;
  @ApiProperty({ type: PlanPricesView, nullable: true, description: 'What the tier costs per interval; null for free' })
  prices: PlanPricesView | null;
}

export class PlanTableView {
  @ApiProperty({ type: [PlanView], description: 'Every tier, free first' })
  data: PlanView[];
  @ApiProperty({
    description:
      'true: paid plans are bought with POST /billing/checkout and managed in the portal (POST /billing/portal); false (the local provider, which charges nothing): POST /billing/payment-methods and /billing/activate-plan',
  })
  hostedBilling: boolean;
}

export function planPricesView(prices: Record<Interval, Price> | null): PlanPricesView | null {
  return prices && { month: { ...prices.month }, year: { ...prices.year } };
}

export class QuotaUsageView {
  @ApiProperty({ type: 'integer', example: 1 })
  used: number;
  @ApiProperty({ nullable: true, type: 'integer', example: 3, description: 'null: unlimited' })
  limit: number | null;
}

export class MonthlyQuotaUsageView extends QuotaUsageView {
  @ApiProperty({ example: '2025-02-01T00:00:00.000Z', description: 'When the monthly count starts again' })
  resetsAt: string;
}

export class WorkspaceUsageView {
  @ApiProperty({ type: QuotaUsageView })
  projects: QuotaUsageView;
  @ApiProperty({ type: MonthlyQuotaUsageView, description: 'Deployments made this calendar month (UTC)' })
  deploymentsPerMonth: MonthlyQuotaUsageView;
  @ApiProperty({ type: QuotaUsageView, description: 'Bytes of distinct files in live and archived deployments' })
  storageBytes: QuotaUsageView;
  @ApiProperty({ type: QuotaUsageView, description: 'Builds queued or running now' })
  concurrentBuilds: QuotaUsageView;
  @ApiProperty({ type: MonthlyQuotaUsageView, description: 'Minutes of builds finished this calendar month (UTC), each rounded up' })
  buildMinutesPerMonth: MonthlyQuotaUsageView;
}

export function planLimitsView(limits: Limits): PlanLimitsView {
  const { projects, deploymentsPerMonth, storageBytes, maxFileBytes, maxTtl, concurrentBuilds, buildMinutesPerMonth } = limits;
  return { projects, deploymentsPerMonth, storageBytes, maxFileBytes, maxTtl, concurrentBuilds, buildMinutesPerMonth };
}

export function workspaceUsageView(usage: WorkspaceUsage, limits: Limits): WorkspaceUsageView {
  return {
    projects: { used: usage.projects, limit: limits.projects },
    deploymentsPerMonth: { used: usage.deploymentsPerMonth, limit: limits.deploymentsPerMonth, resetsAt: usage.deploymentsResetAt.toISOString() },
    storageBytes: { used: usage.storageBytes, limit: limits.storageBytes },
    concurrentBuilds: { used: usage.concurrentBuilds, limit: limits.concurrentBuilds },
    buildMinutesPerMonth: { used: usage.buildMinutesPerMonth, limit: limits.buildMinutesPerMonth, resetsAt: usage.deploymentsResetAt.toISOString() },
  };
}

/** GET /billing/usage: the plan in force, its limits and what the workspace uses of them. */
export class BillingUsageView {
  @ApiProperty({ enum: TIERS })
  plan: Tier;
  @ApiProperty({ type: PlanLimitsView })
  limits: PlanLimitsView;
  @ApiProperty({ type: WorkspaceUsageView })
  usage: WorkspaceUsageView;
}
