import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';

import { CascadeManyToOne, TimestampColumn } from '../database/columns';
import { Project } from '../projects/project.entity';
import { User } from '../users/user.entity';

export const DIGEST_ITEM_KINDS = ['lead', 'form'] as const;
export type DigestItemKind = (typeof DIGEST_ITEM_KINDS)[number];

/**
 * One new lead or form submission waiting for one recipient's next digest (issue 30).
 * What the visitor typed (the lead's email, the form's fields) is sealed with the leads
 * keyring, bound to this row, as the leads and submissions themselves are; the row is
 * deleted when its digest is queued.
 */
@Entity('notification_digest_items')
@Index('IDX_notification_digest_items_recipient', ['userId', 'workspaceId', 'createdAt'])
@Index('IDX_notification_digest_items_project', ['projectId'])
@Check('CHK_notification_digest_items_kind', `"kind" IN ('lead', 'form')`)
@Check('CHK_notification_digest_items_nonce_length', `octet_length("nonce") = 12`)
export class NotificationDigestItem {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'PK_notification_digest_items' })
  id: string;

  @Column('text', { name: 'user_id' })
  userId: string;

  @CascadeManyToOne(() => User, 'user_id', 'FK_notification_digest_items_user')
  user?: User;

  @Column('text', { name: 'workspace_id' })
  workspaceId: string;

  @Column('text')
  kind: DigestItemKind;

  @Column('text', { name: 'project_id' })
  projectId: string;

  // Deleting the project deletes what waits to be mailed about it (its leads and submissions go too).
  @CascadeManyToOne(() => Project, 'project_id', 'FK_notification_digest_items_project')
  project?: Project;

  @Column('text', { name: 'project_slug' })
  projectSlug: string;

  /** The lead's or the submission's id. */
  @Column('text', { name: 'ref_id' })
  refId: string;

  @Column('text', { name: 'form_name', nullable: true })
  formName: string | null;

  @Column('text', { name: 'key_id' })
  keyId: string;

  @Column('bytea')
  nonce: Buffer;

  @Column('bytea')
  ciphertext: Buffer;

  @TimestampColumn('created_at')
  createdAt: Date;
}
