import type { EntityManager } from 'typeorm';

import type { LeadsKeyring } from './keyring';
import { domainAad, sealEmail } from './lead-crypto';
import type { LeadsRepository } from './leads.repository';

/**
 * Makes sure the workspace's domain dictionary holds `domain` (under the current
 * index key) and keeps it there until the transaction ends: its entry is locked FOR
 * KEY SHARE, which captures share with each other but which holds off an erasure
 * removing the entry (removeDomainIfUnused) until the lead being
 * written is visible. Returns the domain's digest.
 */
export async function addDomain(leads: LeadsRepository, m: EntityManager, keyring: LeadsKeyring, workspaceId: string, domain: string): Promise<Buffer> {
  const index = keyring.index(workspaceId);
  const hash = index.domainHash(domain);
  for (;;) {
    if (await leads.holdDomain(m, workspaceId, hash)) return hash;
    const key = keyring.current;
    const sealed = sealEmail(key.key, domain, domainAad(workspaceId, hash));
    const inserted = await leads.insertDomain(m, {
      workspaceId,
      domainHash: hash,
      indexKeyId: index.keyId,
      keyId: key.id,
      nonce: sealed.nonce,
      ciphertext: sealed.ciphertext,
      searchTokens: index.tokens(domain),
    });
    if (inserted) return hash;
    // Another transaction inserted it meanwhile (or is erasing it): look again.
  }
}

/** After a lead was deleted: drops its domain from the dictionary when no lead of the workspace has it any more. */
export async function removeDomainIfUnused(leads: LeadsRepository, m: EntityManager, workspaceId: string, domainHash: Buffer | null): Promise<void> {
  if (!domainHash) return;
  // Waits for captures of this domain in flight, so that the check below sees their leads.
  if (!(await leads.lockDomainForRemoval(m, workspaceId, domainHash))) return;
  await leads.deleteDomainIfUnused(m, workspaceId, domainHash);
}
