import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';

import { CascadeManyToOne, CreatedAtColumn, TimestampColumn, UpdatedAtColumn } from '../database/columns';
import { Workspace } from '../workspaces/workspace.entity';

export const WEBHOOK_FORMATS = ['standard', 'slack'] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

/**
 * A workspace's outgoing webhook endpoint (issue 30). Its signing secret is sealed like
 * the leads' emails (AES-256-GCM under the leads keyring, bound to the row's id) and
 * shown once, at creation or rotation.
 */
@Entity('webhooks')
@Index('IDX_webhooks_workspace', ['workspaceId', 'createdAt'])
@Check('CHK_webhooks_format', `"format" IN ('standard', 'slack')`)
export class Webhook {
  /** `wh_…` */
  @PrimaryColumn('text', { primaryKeyConstraintName: 'PK_webhooks' })
  id: string;

  @Column('text', { name: 'workspace_id' })
  workspaceId: string;

  @CascadeManyToOne(() => Workspace, 'workspace_id', 'FK_webhooks_workspace')
  workspace?: Workspace;

  @Column('text')
  url: string;

  @Column('text', { nullable: true })
  description: string | null;

  /** Event types, or `*` for all. */
  @Column('text', { array: true })
  events: string[];

  @Column('text')
  format: WebhookFormat;

  @Column('boolean', { name: 'include_personal_data', default: false })
  includePersonalData: boolean;

  @Column('boolean', { default: true })
  enabled: boolean;

  /** Why the service turned it off (410, five days of failures); null when enabled or turned off by a user. */
  @Column('text', { name: 'disabled_reason', nullable: true })
  disabledReason: string | null;

  @Column('text', { name: 'secret_key_id' })
  secretKeyId: string;

  @Column('bytea', { name: 'secret_nonce' })
  secretNonce: Buffer;

  @Column('bytea', { name: 'secret_ciphertext' })
  secretCiphertext: Buffer;

  /** The first failed attempt since the last success: five days of it disables the endpoint. */
  @TimestampColumn('failing_since', { nullable: true })
  failingSince: Date | null;

  @CreatedAtColumn()
  createdAt: Date;

  @UpdatedAtColumn()
  updatedAt: Date;
}
