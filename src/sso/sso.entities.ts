import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';

import { CascadeManyToOne, CascadeOneToOne, CreatedAtColumn, TimestampColumn, UpdatedAtColumn } from '../database/columns';
import { Workspace } from '../workspaces/workspace.entity';

export const SSO_ROLES = ['admin', 'viewer'] as const;
export type SsoRole = (typeof SSO_ROLES)[number];

/**
 * A workspace's OpenID provider (issue 32): one per workspace. The client secret is
 * sealed like webhook secrets (AES-256-GCM under the leads keyring, bound to the
 * workspace id) and never leaves the service.
 */
@Entity('sso_connections')
@Check('CHK_sso_connections_default_role', `"default_role" IN ('admin', 'viewer')`)
export class SsoConnection {
  @PrimaryColumn('text', { name: 'workspace_id', primaryKeyConstraintName: 'PK_sso_connections' })
  workspaceId: string;

  @CascadeOneToOne(() => Workspace, 'workspace_id', 'FK_sso_connections_workspace')
  workspace?: Workspace;

  @Column('text')
  issuer: string;

  @Column('text', { name: 'client_id' })
  clientId: string;

  @Column('text', { name: 'secret_key_id' })
  secretKeyId: string;

  @Column('bytea', { name: 'secret_nonce' })
  secretNonce: Buffer;

  @Column('bytea', { name: 'secret_ciphertext' })
  secretCiphertext: Buffer;

  @Column('text', { name: 'default_role' })
  defaultRole: SsoRole;

  @Column('boolean', { default: false })
  enforce: boolean;

  /**
   * The owner who last turned `enforce` on: they keep a password sign-in (break glass),
   * so a broken provider cannot lock the workspace out. No foreign key: a deleted user
   * simply matches nobody.
   */
  @Column('text', { name: 'enforced_by', nullable: true })
  enforcedBy: string | null;

  @CreatedAtColumn()
  createdAt: Date;

  @UpdatedAtColumn()
  updatedAt: Date;
}

/**
 * An email domain a workspace's SSO claims. Claimed only once its TXT record is seen
 * (the custom domains' check), and by one workspace at a time: the partial unique
 * index lets several workspaces list a domain while none or one has verified it.
 */
@Entity('sso_domains')
@Index('UQ_sso_domains_verified', ['domain'], { unique: true, where: `"verified_at" IS NOT NULL` })
export class SsoDomain {
  @PrimaryColumn('text', { name: 'workspace_id', primaryKeyConstraintName: 'PK_sso_domains' })
  workspaceId: string;

  @CascadeManyToOne(() => SsoConnection, 'workspace_id', 'FK_sso_domains_connection')
  connection?: SsoConnection;

  @PrimaryColumn('text', { primaryKeyConstraintName: 'PK_sso_domains' })
  domain: string;

  /** The value of the TXT record at `_statichost-challenge.<domain>`. */
  @Column('text')
  token: string;

  @TimestampColumn('verified_at', { nullable: true })
  verifiedAt: Date | null;

  @CreatedAtColumn()
  createdAt: Date;
}

/**
 * A sign-in under way at the provider: what the callback needs to check its answer
 * (PKCE verifier, nonce, the browser it must come back to), found by the SHA-256 of its
 * `state`. Single use (deleted when the callback comes back) and short-lived; in
 * PostgreSQL so any instance can take the callback.
 */
@Entity('sso_logins')
export class SsoLogin {
  @PrimaryColumn('text', { name: 'state_hash', primaryKeyConstraintName: 'PK_sso_logins' })
  stateHash: string;

  @Column('text', { name: 'workspace_id' })
  workspaceId: string;

  @CascadeManyToOne(() => Workspace, 'workspace_id', 'FK_sso_logins_workspace')
  workspace?: Workspace;

  @Column('text', { name: 'code_verifier' })
  codeVerifier: string;

  @Column('text')
  nonce: string;

  /**
   * The SHA-256 of the random value the start put in the browser's cookie (sso-cookie.ts):
   * the callback is taken only from the browser that started the sign-in, so a callback URL
   * someone else finished at the provider signs nobody in (login CSRF).
   */
  @Column('text', { name: 'browser_hash' })
  browserHash: string;

  @Index('IDX_sso_logins_expires')
  @TimestampColumn('expires_at')
  expiresAt: Date;
}
