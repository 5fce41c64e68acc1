import { Check, Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

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

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
