import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';

import { CascadeManyToOne, CreatedAtColumn, KeyedRow, UpdatedAtColumn } from '../database/columns';
import { Deployment } from '../deployments/deployment.entity';
import { Project } from '../projects/project.entity';

export const ALIAS_KINDS = ['branch', 'pull_request'] as const;
export type AliasKind = (typeof ALIAS_KINDS)[number];

/**
 * A branch's or a pull request's stable preview address (issue 29): the DNS label
 * `label` under SITES_DOMAIN (src/shared/preview-alias.ts) serves `deploymentId`, the
 * newest ready build of that branch or pull request. One row per (project, kind, name);
 * a label is unique across all projects, so a host names at most one alias.
 */
@Entity('preview_aliases')
@Check('CHK_preview_aliases_kind', `"kind" IN ('branch', 'pull_request')`)
@Index('UQ_preview_aliases_label', ['label'], { unique: true })
export class PreviewAlias extends KeyedRow('preview_aliases', 'project', () => Project) {
  @PrimaryColumn('text', { primaryKeyConstraintName: 'PK_preview_aliases' })
  kind: AliasKind;

  /** The branch name, or the pull request's number as text. */
  @PrimaryColumn('text', { primaryKeyConstraintName: 'PK_preview_aliases' })
  name: string;

  @Column('text')
  label: string;

  /** The deployment served; a deleted deployment takes its alias with it. */
  @Column('text', { name: 'deployment_id' })
  deploymentId: string;

  @CascadeManyToOne(() => Deployment, 'deployment_id', 'FK_preview_aliases_deployment')
  deployment?: Deployment;

  /** The build that made the deployment (null when it was made otherwise). */
  @Column('text', { name: 'build_id', nullable: true })
  buildId: string | null;

  @Column('text', { name: 'commit_sha', nullable: true })
  commitSha: string | null;

  /** The branch built: the alias's own for a branch, the head branch of a pull request. */
  @Column('text', { nullable: true })
  branch: string | null;

  @CreatedAtColumn()
  createdAt: Date;

  @UpdatedAtColumn()
  updatedAt: Date;
}
