import type { EntityManager } from 'typeorm';
import type { LeadsKeyring } from './keyring';
import { domainAad, sealEmail } from './lead-crypto';

/**
 * Makes sure the workspace's domain dictionary holds `domain` (under the current
 * index key) and keeps it there until the transaction ends: its entry is locked FOR
 * KEY SHARE, which captures share with each other but which holds off an erasure
 * removing the entry (removeDomainIfUnused) until the lead being written is visible.
 * Returns the domain's digest.
 */
export async function addDomain(m: EntityManager, keyring: LeadsKeyring, workspaceId: string, domain: string): Promise<Buffer> {
  const index = keyring.index(workspaceId);
  const hash = index.domainHash(domain);
  for (;;) {
    const held: unknown[] = await m.query('SELECT 1 FROM lead_domains WHERE workspace_id = $1 AND domain_hash = $2 FOR KEY SHARE', [workspaceId, hash]);
    if (held.length > 0) return hash;
    const key = keyring.current;
    const sealed = sealEmail(key.key, domain, domainAad(workspaceId, hash));
    const inserted: unknown[] = await m.query(
      `INSERT INTO lead_domains (workspace_id, domain_hash, index_key_id, key_id, domain_nonce, domain_ciphertext, search_tokens)
       VALUES ($1, $2, $3, $4, $5, $6, $7::int[]) ON CONFLICT (workspace_id, domain_hash) DO NOTHING RETURNING 1`,
      [workspaceId, hash, index.keyId, key.id, sealed.nonce, sealed.ciphertext, index.tokens(domain)],
    );
    if (inserted.length > 0) return hash;
    // Another transaction inserted it meanwhile (or is erasing it): look again.
  }
}

/** After a lead was deleted: drops its domain from the dictionary when no lead of the workspace has it any more. */
export async function removeDomainIfUnused(m: EntityManager, workspaceId: string, domainHash: Buffer | null): Promise<void> {
  if (!domainHash) return;
  // Waits for captures of this domain in flight, so that the check below sees their leads.
  const entry: unknown[] = await m.query('SELECT 1 FROM lead_domains WHERE workspace_id = $1 AND domain_hash = $2 FOR UPDATE', [workspaceId, domainHash]);
  if (entry.length === 0) return;
  await m.query(
    `DELETE FROM lead_domains WHERE workspace_id = $1 AND domain_hash = $2
     AND NOT EXISTS (SELECT 1 FROM leads WHERE workspace_id = $1 AND domain_hash = $2)`,
    [workspaceId, domainHash],
  );
}
