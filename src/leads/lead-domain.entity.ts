import { Column, Entity, PrimaryColumn } from 'typeorm';

import { KeyedRow } from '../database/columns';
import { Workspace } from '../workspaces/workspace.entity';
import { TokensColumn } from './token-column';

/**
 * The distinct email domains of a workspace's leads, sealed like the emails: a search
 * decrypts this short list to find the domains that contain the search text, and
 * then counts and pages their leads by `leads.domain_hash` without decrypting them
 * (docs/security.md, "Leads: encryption and search"). There is an entry for every
 * domain_hash of the workspace's leads: captures and rotation add it in the same
 * transaction as the lead, erasure removes it with the domain's last lead.
 */
@Entity('lead_domains')
export class LeadDomain extends KeyedRow('lead_domains', 'workspace', () => Workspace) {
  /** WorkspaceIndex.domainHash of the domain. */
  @PrimaryColumn('bytea', { name: 'domain_hash', primaryKeyConstraintName: 'PK_lead_domains' })
  domainHash: Buffer;

  /** Id of the index key that computed domain_hash and search_tokens. */
  @Column('text', { name: 'index_key_id' })
  indexKeyId: string;

  /** Id of the encryption key that sealed the domain. */
  @Column('text', { name: 'key_id' })
  keyId: string;

  @Column('bytea', { name: 'domain_nonce' })
  domainNonce: Buffer;

  /** AES-256-GCM of the domain and its tag; AAD binds it to (workspace, domain_hash). */
  @Column('bytea', { name: 'domain_ciphertext' })
  domainCiphertext: Buffer;

  /** The domain's trigram tokens (as in leads.search_tokens): which entries a search need decrypt. */
  @TokensColumn('search_tokens', 'IDX_lead_domains_search_tokens')
  searchTokens: number[];
}
