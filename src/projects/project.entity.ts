import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { Workspace } from '../workspaces/workspace.entity';

export const PROJECT_TYPES = ['static_file', 'static_site'] as const;
export type ProjectType = (typeof PROJECT_TYPES)[number];
export const GATE_TYPES = ['none', 'password', 'email'] as const;
export type GateType = (typeof GATE_TYPES)[number];

@Entity('projects')
@Check('CHK_projects_type', `"type" IN ('static_file', 'static_site')`)
@Check('CHK_projects_gate_type', `"gate_type" IN ('none', 'password', 'email')`)
export class Project {
  @PrimaryColumn('text')
  id: string;

  @Index()
  @Column('text', { name: 'workspace_id' })
  workspaceId: string;

  @ManyToOne(() => Workspace, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id', foreignKeyConstraintName: 'FK_projects_workspace' })
  workspace?: Workspace;

  @Column('text')
  name: string;

  /** Globally unique DNS label; the site's host is <slug>.<SITES_DOMAIN>. */
  @Index('UQ_projects_slug', { unique: true })
  @Column('text')
  slug: string;

  @Column('text', { default: 'static_file' })
  type: ProjectType;

  @Column('text', { name: 'default_ttl', default: '7d' })
  defaultTtl: string;

  @Column('text', { name: 'gate_type', default: 'none' })
  gateType: GateType;

  /** scrypt hash of the gate password; never leaves the service. */
  @Column('text', { name: 'password_hash', nullable: true })
  passwordHash: string | null;

  /** Bumped whenever the gate changes, so cookies issued before stop working. */
  @Column('integer', { name: 'gate_version', default: 1 })
  gateVersion: number;

  /** Highest version number handed out; deployments take the next one under a row lock. */
  @Column('integer', { name: 'last_version', default: 0 })
  lastVersion: number;

  @Column('text', { name: 'live_deployment_id', nullable: true })
  liveDeploymentId: string | null;

  @Index('UQ_projects_custom_domain', { unique: true, where: '"custom_domain" IS NOT NULL' })
  @Column('text', { name: 'custom_domain', nullable: true })
  customDomain: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
