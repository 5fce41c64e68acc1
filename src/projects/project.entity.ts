import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';

import { CascadeManyToOne, CreatedAtColumn, TimestampColumn, UpdatedAtColumn } from '../database/columns';
import type { DomainStatus } from '../shared/custom-domain/domain-check';
import { type Ttl, TTL_COLUMN } from '../shared/ttl';
import { Workspace } from '../workspaces/workspace.entity';

export const PROJECT_TYPES = ['static_file', 'static_site'] as const;
export type ProjectType = (typeof PROJECT_TYPES)[number];
export const GATE_TYPES = ['none', 'password', 'email'] as const;
export type GateType = (typeof GATE_TYPES)[number];

@Entity('projects')
@Check('CHK_projects_type', `"type" IN ('static_file', 'static_site')`)
@Check('CHK_projects_gate_type', `"gate_type" IN ('none', 'password', 'email')`)
@Check('CHK_projects_domain_status', `"domain_status" IN ('pending', 'verified', 'failed')`)
@Check('CHK_projects_domain_state', `("custom_domain" IS NULL) = ("domain_status" IS NULL) AND ("custom_domain" IS NULL) = ("domain_token" IS NULL)`)
@Index('IDX_projects_workspace_created', ['workspaceId', 'createdAt', 'id'])
// On (workspace_id, lower(name), id): an expression TypeORM cannot declare, so it is the
// migration's alone (1764600000000-ProjectNameIndex) and schema sync leaves it be.
@Index('IDX_projects_workspace_name', { synchronize: false })
@Index('IDX_projects_domain_recheck', ['domainCheckedAt'], { where: `"domain_status" = 'verified'` })
export class Project {
  @PrimaryColumn('text')
  id: string;

  @Index()
  @Column('text', { name: 'workspace_id' })
  workspaceId: string;

  @CascadeManyToOne(() => Workspace, 'workspace_id', 'FK_projects_workspace')
  workspace?: Workspace;

  @Column('text')
  name: string;

  /** Globally unique DNS label; the site's host is <slug>.<SITES_DOMAIN>. */
  @Index('UQ_projects_slug', { unique: true })
  @Column('text')
  slug: string;

  @Column('text', { default: 'static_file' })
  type: ProjectType;

  @Column('text', { name: 'default_ttl', default: '7d', transformer: TTL_COLUMN })
  defaultTtl: Ttl;

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

  // Exclusive once verified: attaching proves nothing, so pending claims of one name may coexist.
  @Index('UQ_projects_custom_domain', { unique: true, where: `"domain_status" = 'verified'` })
  @Column('text', { name: 'custom_domain', nullable: true })
  customDomain: string | null;

  /** Verification state of custom_domain (src/domains): set exactly when a domain is attached. */
  @Column('text', { name: 'domain_status', nullable: true })
  domainStatus: DomainStatus | null;

  /** The value the domain's `_statichost-challenge` TXT record must hold; a new one per attached name. */
  @Column('text', { name: 'domain_token', nullable: true })
  domainToken: string | null;

  /** Start of the current verified run. */
  @TimestampColumn('domain_verified_at', { nullable: true })
  domainVerifiedAt: Date | null;

  /** Last DNS check, answered or not; the re-check job picks verified domains by it. */
  @TimestampColumn('domain_checked_at', { nullable: true })
  domainCheckedAt: Date | null;

  /** First failed check of a verified domain since its last success; null while checks pass. */
  @TimestampColumn('domain_failing_since', { nullable: true })
  domainFailingSince: Date | null;

  @CreatedAtColumn()
  createdAt: Date;

  @UpdatedAtColumn()
  updatedAt: Date;
}
