import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, Unique } from 'typeorm';

import { Project } from '../projects/project.entity';

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

  @ManyToOne(() => Project, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'project_id', foreignKeyConstraintName: 'FK_deployments_project' })
  project?: Project;

  /** Denormalised from the project so workspace-wide usage queries need no join. */
  @Index()
  @Column('text', { name: 'workspace_id' })
  workspaceId: string;

  @Column('integer')
  version: number;

  @Column('text')
  status: DeploymentStatus;

  @Column('bigint', { name: 'size_bytes', transformer: { to: (v: number) => v, from: (v: string) => Number(v) } })
  sizeBytes: number;

  @Column('integer', { name: 'file_count' })
  fileCount: number;

  @Column('text')
  ttl: string;

  @Column({ type: 'timestamptz', name: 'expires_at', precision: 3, nullable: true })
  expiresAt: Date | null;

  /** `usr_…` or `tok_…`: who deployed it. */
  @Column('text', { name: 'created_by' })
  createdBy: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;
}
