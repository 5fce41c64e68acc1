import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';

import { CascadeManyToOne, TimestampColumn } from '../database/columns';
import { Project } from '../projects/project.entity';
import { TokensColumn } from './token-column';

/**
 * A visitor's email captured by an email gate. The address itself is only ever
 * stored sealed (AES-256-GCM, see lead-crypto.ts); the other columns are keyed
 * digests that let the service dedupe and search without decrypting every row.
 * docs/security.md ("Leads: encryption and search") explains what they leak.
 */
@Entity('leads')
@Index('UQ_leads_project_email_hash', ['projectId', 'emailHash'], { unique: true })
@Index('IDX_leads_workspace_captured', ['workspaceId', 'capturedAt', 'id'])
@Index('IDX_leads_project_captured', ['projectId', 'capturedAt', 'id'])
@Index('IDX_leads_workspace_domain', ['workspaceId', 'domainHash', 'capturedAt', 'id'])
@Index('IDX_leads_project_domain', ['projectId', 'domainHash', 'capturedAt', 'id'])
@Index('IDX_leads_unsplit', ['workspaceId'], { where: `"domain_hash" IS NULL` })
@Check('CHK_leads_email_nonce_length', `octet_length("email_nonce") = 12`)
export class Lead {
  @PrimaryColumn('text', { primaryKeyConstraintName: 'PK_leads' })
  id: string;

  /** Denormalised from the project: workspace-wide lists and search use one index. */
  @Column('text', { name: 'workspace_id' })
  workspaceId: string;

  @Column('text', { name: 'project_id' })
  projectId: string;

  @CascadeManyToOne(() => Project, 'project_id', 'FK_leads_project')
  project?: Project;

  /** Id of the encryption key that sealed the email (LEADS_ENCRYPTION_KEYS). */
  @Column('text', { name: 'key_id' })
  keyId: string;

  /** The random 96-bit GCM nonce of this row. */
  @Column('bytea', { name: 'email_nonce' })
  emailNonce: Buffer;

  /** GCM ciphertext of the normalised email followed by its 16-byte tag. */
  @Column('bytea', { name: 'email_ciphertext' })
  emailCiphertext: Buffer;

  /** Id of the index key that computed email_hash and search_tokens (LEADS_INDEX_KEY). */
  @Column('text', { name: 'index_key_id' })
  indexKeyId: string;

  /** Keyed digest of (project, email): one lead per email and project. */
  @Column('bytea', { name: 'email_hash' })
  emailHash: Buffer;

  /** Keyed, truncated trigram tokens of the email (blind index for substring search). */
  @TokensColumn('search_tokens', 'IDX_leads_search_tokens')
  searchTokens: number[];

  /**
   * Keyed digest of the email's domain (WorkspaceIndex.domainHash), its plaintext in the
   * workspace's lead_domains dictionary. NULL for leads captured before it existed, until
   * `npm run leads:rotate` fills it in; searches of such a workspace decrypt every candidate.
   */
  @Column('bytea', { name: 'domain_hash', nullable: true })
  domainHash: Buffer | null;

  /** Keyed, truncated trigram tokens of the local part only (what is before the last '@'). */
  @TokensColumn('local_tokens', 'IDX_leads_local_tokens', { nullable: true })
  localTokens: number[] | null;

  @TimestampColumn('captured_at')
  capturedAt: Date;
}
