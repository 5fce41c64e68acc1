import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';

import { CascadeManyToOne, TimestampColumn } from '../database/columns';
import { Lead } from '../leads/lead.entity';
import { TokensColumn } from '../leads/token-column';
import { Form } from './form.entity';

/**
 * One visitor's submission of a form (issue 30). What the visitor typed is only ever
 * stored sealed with the leads keyring (AES-256-GCM, the field map as JSON, the form and
 * submission ids as additional data), searchable through keyed trigram tokens over the
 * values, as leads are (docs/security.md).
 */
@Entity('form_submissions')
@Index('IDX_form_submissions_form_created', ['formId', 'createdAt', 'id'])
@Index('IDX_form_submissions_form_spam_created', ['formId', 'spam', 'createdAt', 'id'])
@Index('IDX_form_submissions_lead', ['leadId'], { where: `"lead_id" IS NOT NULL` })
@Check('CHK_form_submissions_nonce_length', `octet_length("nonce") = 12`)
export class FormSubmission {
  /** `fsub_…` */
  @PrimaryColumn('text', { primaryKeyConstraintName: 'PK_form_submissions' })
  id: string;

  @Column('text', { name: 'form_id' })
  formId: string;

  @CascadeManyToOne(() => Form, 'form_id', 'FK_form_submissions_form')
  form?: Form;

  @Column('text', { name: 'project_id' })
  projectId: string;

  @Column('text', { name: 'workspace_id' })
  workspaceId: string;

  /** The deployment that served the form when it was submitted. */
  @Column('text', { name: 'deployment_id' })
  deploymentId: string;

  /** Id of the encryption key that sealed the fields (LEADS_ENCRYPTION_KEYS). */
  @Column('text', { name: 'key_id' })
  keyId: string;

  @Column('bytea')
  nonce: Buffer;

  /** GCM ciphertext of the fields as JSON, followed by its 16-byte tag. */
  @Column('bytea')
  ciphertext: Buffer;

  /** Id of the index key that computed search_tokens (LEADS_INDEX_KEY). */
  @Column('text', { name: 'index_key_id' })
  indexKeyId: string;

  /** Keyed, truncated trigram tokens of the field values (blind index for substring search). */
  @TokensColumn('search_tokens', 'IDX_form_submissions_search_tokens')
  searchTokens: number[];

  /** Kept, not dropped, when it looks like spam; a user can mark it ham or spam. */
  @Column('boolean', { default: false })
  spam: boolean;

  /** Why it was judged spam (`honeypot`, `rate_limited`…), or `user` when a user marked it; null when ham. */
  @Column('text', { name: 'spam_reason', nullable: true })
  spamReason: string | null;

  /**
   * The email gate's lead of the same visitor, when the site has one and the visitor passed
   * it (their gate cookie names it). Erasing the lead unlinks the submission, which stays:
   * it is what the visitor sent, with its own erasure (docs/forms.md).
   */
  @Column('text', { name: 'lead_id', nullable: true })
  leadId: string | null;

  @ManyToOne(() => Lead, { onDelete: 'SET NULL', nullable: true })
  @JoinColumn({ name: 'lead_id', foreignKeyConstraintName: 'FK_form_submissions_lead' })
  lead?: Lead | null;

  @TimestampColumn('created_at')
  createdAt: Date;
}
