import { Check, Column, Entity, Index, PrimaryColumn, Unique } from 'typeorm';

import { BigintColumn, CascadeManyToOne, CreatedAtColumn, TimestampColumn } from '../database/columns';
import { Project } from '../projects/project.entity';
import type { DeclaredForm } from '../shared/forms/declared-form';
import type { RuleWarning } from './site-rules-check';

export const DEPLOYMENT_STATUSES = ['live', 'archived', 'expired'] as const;
export type DeploymentStatus = (typeof DEPLOYMENT_STATUSES)[number];

@Entity('deployments')
@Unique('UQ_deployments_project_version', ['projectId', 'version'])
@Check('CHK_deployments_status', `"status" IN ('live', 'archived', 'expired')`)
@Index('IDX_deployments_expiry', ['expiresAt'], { where: `"status" <> 'expired' AND "expires_at" IS NOT NULL` })
export class Deployment {
  @PrimaryColumn('text')
  id: string;

  @Column('text', { name: 'project_id' })
  projectId: string;

  @CascadeManyToOne(() => Project, 'project_id', 'FK_deployments_project')
  project?: Project;

  /** Denormalised from the project so workspace-wide usage queries need no join. */
  @Index()
  @Column('text', { name: 'workspace_id' })
  workspaceId: string;

  @Column('integer')
  version: number;

  @Column('text')
  status: DeploymentStatus;

  @BigintColumn({ name: 'size_bytes' })
  sizeBytes: number;

  @Column('integer', { name: 'file_count' })
  fileCount: number;

  @Column('text')
  ttl: string;

  @TimestampColumn('expires_at', { nullable: true })
  expiresAt: Date | null;

  /** `usr_…` or `tok_…`: who deployed it. */
  @Column('text', { name: 'created_by' })
  createdBy: string;

  @CreatedAtColumn()
  createdAt: Date;

  /** Lines of `_redirects`/`_headers` that deployed but never apply (issue 34); `[]` when none. Never changes. */
  @Column('jsonb', { name: 'rule_warnings', default: () => "'[]'" })
  ruleWarnings: RuleWarning[];

  /** The forms its HTML files declare (issue 30); `[]` when none. Never changes. */
  @Column('jsonb', { default: () => "'[]'" })
  forms: DeclaredForm[];
}
