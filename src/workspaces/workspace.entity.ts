import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

import { CreatedAtColumn, UpdatedAtColumn } from '../database/columns';

export const PLANS = ['free', 'pro', 'team'] as const;
export type Plan = (typeof PLANS)[number];

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

  @CreatedAtColumn()
  createdAt: Date;

  @UpdatedAtColumn()
  updatedAt: Date;
}
