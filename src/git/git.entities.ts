import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

import { CreatedAtColumn, KeyedRow, UpdatedAtColumn } from '../database/columns';
import { Project } from '../projects/project.entity';
import type { EnvTarget } from './build-inputs';

/**
 * A project's connection to a Git repository and how its builds run (one row per
 * project, gone with it). The access token is only ever stored sealed
 * (./git-secrets.ts); commands and paths are stored as checked (./git-fields.ts).
 */
@Entity('project_git')
@Check('CHK_project_git_token', `("token_key_id" IS NULL) = ("token_ciphertext" IS NULL) AND ("token_nonce" IS NULL) = ("token_ciphertext" IS NULL)`)
@Check('CHK_project_git_token_nonce_length', `octet_length("token_nonce") = 12`)
@Check(
  'CHK_project_git_webhook_secret',
  `("webhook_key_id" IS NULL) = ("webhook_ciphertext" IS NULL) AND ("webhook_nonce" IS NULL) = ("webhook_ciphertext" IS NULL)`,
)
@Check('CHK_project_git_webhook_nonce_length', `octet_length("webhook_nonce") = 12`)
@Check('CHK_project_git_forge', `"forge" IN ('github', 'gitlab', 'gitea', 'forgejo')`)
export class ProjectGit extends KeyedRow('project_git', 'project', () => Project, 'one') {
  /** The normalised https:// clone URL (./repository-url.ts). */
  @Column('text')
  repository: string;

  @Column('text', { name: 'production_branch' })
  productionBranch: string;

  /** '' for the repository's root. */
  @Column('text', { name: 'root_directory', default: '' })
  rootDirectory: string;

  @Column('text', { name: 'install_command', nullable: true })
  installCommand: string | null;

  @Column('text', { name: 'build_command', nullable: true })
  buildCommand: string | null;

  @Column('text', { name: 'output_directory', nullable: true })
  outputDirectory: string | null;

  @Column('text', { name: 'node_version', nullable: true })
  nodeVersion: string | null;

  /** Id of the leads encryption key that sealed the access token. */
  @Column('text', { name: 'token_key_id', nullable: true })
  tokenKeyId: string | null;

  @Column('bytea', { name: 'token_nonce', nullable: true })
  tokenNonce: Buffer | null;

  /** AES-256-GCM of the access token and its tag; AAD binds it to the project. */
  @Column('bytea', { name: 'token_ciphertext', nullable: true })
  tokenCiphertext: Buffer | null;

  /** Id of the leads encryption key that sealed the webhook secret (issue 29); null: no secret yet, every delivery is refused. */
  @Column('text', { name: 'webhook_key_id', nullable: true })
  webhookKeyId: string | null;

  @Column('bytea', { name: 'webhook_nonce', nullable: true })
  webhookNonce: Buffer | null;

  /** AES-256-GCM of the webhook secret and its tag; AAD binds it to the project. */
  @Column('bytea', { name: 'webhook_ciphertext', nullable: true })
  webhookCiphertext: Buffer | null;

  /** Pull requests from forks are built (without the project's env vars) only when true. */
  @Column('boolean', { name: 'build_fork_pull_requests', default: false })
  buildForkPullRequests: boolean;

  /** Which forge's API hears back (statuses, comments); null: known from the repository's host or the last verified delivery. */
  @Column('text', { nullable: true })
  forge: 'github' | 'gitlab' | 'gitea' | 'forgejo' | null;

  @CreatedAtColumn()
  createdAt: Date;

  @UpdatedAtColumn()
  updatedAt: Date;
}

/** A build environment variable of a project; its value only ever stored sealed. */
@Entity('project_env_vars')
@Check('CHK_project_env_vars_targets', `cardinality("targets") > 0 AND "targets" <@ ARRAY['production', 'preview']::text[]`)
@Check('CHK_project_env_vars_value_nonce_length', `octet_length("value_nonce") = 12`)
export class ProjectEnvVar extends KeyedRow('project_env_vars', 'project', () => Project) {
  @PrimaryColumn('text', { primaryKeyConstraintName: 'PK_project_env_vars' })
  name: string;

  /** Which builds get it, in ENV_TARGETS order. */
  @Column('text', { array: true })
  targets: EnvTarget[];

  /** Id of the leads encryption key that sealed the value. */
  @Column('text', { name: 'key_id' })
  keyId: string;

  @Column('bytea', { name: 'value_nonce' })
  valueNonce: Buffer;

  /** AES-256-GCM of the value and its tag; AAD binds it to (project, name). */
  @Column('bytea', { name: 'value_ciphertext' })
  valueCiphertext: Buffer;

  @CreatedAtColumn()
  createdAt: Date;

  @UpdatedAtColumn()
  updatedAt: Date;
}
