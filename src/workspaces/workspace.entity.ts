import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

import { CreatedAtColumn, UpdatedAtColumn } from '../database/columns';
import { type Tier, TIERS } from '../quotas/plans';

// A workspace's plan is one of the plan table's tiers (src/quotas/plans.ts), which sits below.
export const PLANS = TIERS;
export type Plan = Tier;

@Entity('workspaces')
@Check('CHK_workspaces_plan', `"plan" IN ('free', 'pro', 'team')`)
export class Workspace {
  @PrimaryColumn('text')
  id: string;

  @Column('text')
  name: string;

  /** Changed by billing (POST /billing/activate-plan). */
  @Column('text', { default: 'free' })
  plan: Plan;

  /** Members need a second factor to act here with a dashboard JWT (issue 32; the guard's check). */
  @Column('boolean', { name: 'require_two_factor', default: false })
  requireTwoFactor: boolean;

  @CreatedAtColumn()
  createdAt: Date;

  @UpdatedAtColumn()
  updatedAt: Date;
}
