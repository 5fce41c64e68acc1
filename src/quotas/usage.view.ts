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
  @ApiProperty({
    nullable: true,
    type: 'integer',
    example: 107374182400,
    description: "Bytes the workspace's sites serve per calendar month (UTC), headers included; null: unlimited",
  })
  bandwidthBytesPerMonth: number | null;
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
  @ApiProperty({
    nullable: true,
    type: 'number',
    format: 'double',
    example: 33.3,
    description: 'used / limit × 100, one decimal (may pass 100); null: unlimited',
  })
  percent: number | null;
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
  @ApiProperty({
    type: MonthlyQuotaUsageView,
    description: "Bytes the workspace's sites served this calendar month (UTC), as counted at the last analytics flush",
  })
  bandwidthBytesPerMonth: MonthlyQuotaUsageView;
}

/** A share of a limit, one decimal; null when unlimited. A zero limit is reached by nothing and passed by anything. */
export function usagePercent(used: number, limit: number | null): number | null {
  if (limit === null) return null;
  if (limit === 0) return used > 0 ? 100 : 0;
  return Math.round((used * 1000) / limit) / 10;
}

const quota = (used: number, limit: number | null): QuotaUsageView => ({ used, limit, percent: usagePercent(used, limit) });

export function planLimitsView(limits: Limits): PlanLimitsView {
  const { projects, deploymentsPerMonth, storageBytes, maxFileBytes, maxTtl, concurrentBuilds, buildMinutesPerMonth, bandwidthBytesPerMonth } = limits;
  return { projects, deploymentsPerMonth, storageBytes, maxFileBytes, maxTtl, concurrentBuilds, buildMinutesPerMonth, bandwidthBytesPerMonth };
}

export function workspaceUsageView(usage: WorkspaceUsage, limits: Limits): WorkspaceUsageView {
  const resetsAt = usage.deploymentsResetAt.toISOString();
  return {
    projects: quota(usage.projects, limits.projects),
    deploymentsPerMonth: { ...quota(usage.deploymentsPerMonth, limits.deploymentsPerMonth), resetsAt },
    storageBytes: quota(usage.storageBytes, limits.storageBytes),
    concurrentBuilds: quota(usage.concurrentBuilds, limits.concurrentBuilds),
    buildMinutesPerMonth: { ...quota(usage.buildMinutesPerMonth, limits.buildMinutesPerMonth), resetsAt },
    bandwidthBytesPerMonth: { ...quota(usage.bandwidthBytesPerMonth, limits.bandwidthBytesPerMonth), resetsAt },
  };
}

export class SpendCapStateView {
  @ApiProperty({ example: false, description: "The owner's spend cap: pause the workspace's sites once the month's bandwidth reaches the limit" })
  pauseSitesAtLimit: boolean;
  @ApiProperty({ example: false, description: 'The sites answer 503 now: the cap is on and this month’s bandwidth reached the limit' })
  sitesPaused: boolean;
}

/** GET /billing/usage: the plan in force, its limits and what the workspace uses of them. */
export class BillingUsageView {
  @ApiProperty({ enum: TIERS })
  plan: Tier;
  @ApiProperty({ type: PlanLimitsView })
  limits: PlanLimitsView;
  @ApiProperty({ type: WorkspaceUsageView })
  usage: WorkspaceUsageView;
  @ApiProperty({ type: SpendCapStateView })
  spendCap: SpendCapStateView;
}
