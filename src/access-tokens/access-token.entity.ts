import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';

import type { Scope } from '../auth/principal';
import { Project } from '../projects/project.entity';
import { User } from '../users/user.entity';
import { Workspace } from '../workspaces/workspace.entity';

/** An `sk_live_` API token. The secret itself is never stored, only its SHA-256. */
@Entity('access_tokens')
@Check('CHK_access_tokens_scopes', `cardinality("scopes") > 0 AND "scopes" <@ ARRAY['deploy', 'read', 'delete', 'admin']::text[]`)
export class AccessToken {
  @PrimaryColumn('text')
  id: string;

  @Index('IDX_access_tokens_workspace')
  @Column('text', { name: 'workspace_id' })
  workspaceId: string;

  @ManyToOne(() => Workspace, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id', foreignKeyConstraintName: 'FK_access_tokens_workspace' })
  workspace?: Workspace;

  /** Set for a token bound to one project; deleting the project deletes its tokens. */
  @Index('IDX_access_tokens_project')
  @Column('text', { name: 'project_id', nullable: true })
  projectId: string | null;

  @ManyToOne(() => Project, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'project_id', foreignKeyConstraintName: 'FK_access_tokens_project' })
  project?: Project;

  @Column('text')
  name: string;

  @Index('UQ_access_tokens_token_hash', { unique: true })
  @Column('text', { name: 'token_hash' })
  tokenHash: string;

  /** The secret's first characters, shown so people can tell their tokens apart. */
  @Column('text')
  prefix: string;

  @Column('text', { array: true })
  scopes: Scope[];

  @Column({ type: 'timestamptz', name: 'expires_at', precision: 3, nullable: true })
  expiresAt: Date | null;

  /** Updated at most once a minute per token, not on every request. */
  @Column({ type: 'timestamptz', name: 'last_used_at', precision: 3, nullable: true })
  lastUsedAt: Date | null;

  /**
   * The person behind the token: its creator, or for a token minted with another
   * token, that token's person. Removing them from the workspace revokes it.
   */
  @Index('IDX_access_tokens_created_by')
  @Column('text', { name: 'created_by' })
  createdBy: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'created_by', foreignKeyConstraintName: 'FK_access_tokens_created_by' })
  creator?: User;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ type: 'timestamptz', name: 'revoked_at', precision: 3, nullable: true })
  revokedAt: Date | null;
}
