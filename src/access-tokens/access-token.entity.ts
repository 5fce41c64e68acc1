import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

import { CascadeManyToOne, CreatedAtColumn, ReferenceColumn, TimestampColumn, TokenHashColumn } from '../database/columns';
import { Project } from '../projects/project.entity';
import type { Scope } from '../shared/principal';
import { User } from '../users/user.entity';
import { Workspace } from '../workspaces/workspace.entity';

/** An `sk_live_` API token. The secret itself is never stored, only its SHA-256. */
@Entity('access_tokens')
@Check('CHK_access_tokens_scopes', `cardinality("scopes") > 0 AND "scopes" <@ ARRAY['deploy', 'read', 'delete', 'admin']::text[]`)
export class AccessToken {
  @PrimaryColumn('text')
  id: string;

  @ReferenceColumn('workspace_id', { index: 'IDX_access_tokens_workspace' })
  workspaceId: string;

  @CascadeManyToOne(() => Workspace, 'workspace_id', 'FK_access_tokens_workspace')
  workspace?: Workspace;

  /** Set for a token bound to one project; deleting the project deletes its tokens. */
  @ReferenceColumn('project_id', { index: 'IDX_access_tokens_project', nullable: true })
  projectId: string | null;

  @CascadeManyToOne(() => Project, 'project_id', 'FK_access_tokens_project')
  project?: Project;

  @Column('text')
  name: string;

  @TokenHashColumn('UQ_access_tokens_token_hash')
  tokenHash: string;

  /** The secret's first characters, shown so people can tell their tokens apart. */
  @Column('text')
  prefix: string;

  @Column('text', { array: true })
  scopes: Scope[];

  @TimestampColumn('expires_at', { nullable: true })
  expiresAt: Date | null;

  /** Updated at most once a minute per token, not on every request. */
  @TimestampColumn('last_used_at', { nullable: true })
  lastUsedAt: Date | null;

  /**
   * The person behind the token: its creator, or for a token minted with another
   * token, that token's person. Removing them from the workspace revokes it.
   */
  @ReferenceColumn('created_by', { index: 'IDX_access_tokens_created_by' })
  createdBy: string;

  @CascadeManyToOne(() => User, 'created_by', 'FK_access_tokens_created_by')
  creator?: User;

  @CreatedAtColumn()
  createdAt: Date;

  @TimestampColumn('revoked_at', { nullable: true })
  revokedAt: Date | null;
}
