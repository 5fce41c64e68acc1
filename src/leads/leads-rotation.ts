import type { DataSource, EntityManager } from 'typeorm';

import { type LeadsKeyring } from './keyring';
import { domainAad, leadAad, openEmail, sealEmail, splitEmail } from './lead-crypto';
import { addDomain } from './lead-domains';
import { LeadsRepository, type RotationRow } from './leads.repository';

export interface RotationLog {
  info(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface RotationOptions {
  /** Leads per transaction (default 500). */
  batchSize?: number;
  /** Stop cleanly after the batch in progress (e.g. on SIGINT); a later run resumes. */
  signal?: AbortSignal;
  /** Stop after this many batches (tests use it to interrupt a run). */
  maxBatches?: number;
  log?: RotationLog;
}

export interface RotationStats {
  /** Leads not yet under the newest encryption key or the current index key when they were read. */
  examined: number;
  /** Sealed again under the newest key (fresh nonce). */
  resealed: number;
  /** Of those, whose dedupe digest and search tokens were recomputed under a new index key. */
  reindexed: number;
  /** Duplicates found by reindexing (the same email captured again meanwhile): the later capture is deleted. */
  merged: number;
  /** Could not be opened (key id not configured, or ciphertext failing authentication): left as they are, logged. */
  failed: number;
  /** Leads still not under the current keys after this run (failed ones, or all that an interrupted run left). */
  remaining: number;
}

const silent: RotationLog = { info: () => undefined, error: () => undefined };

/**
 * Re-encrypts every lead under the newest key of LEADS_ENCRYPTION_KEYS, and
 * recomputes its blind indexes when LEADS_INDEX_KEY changed (`npm run leads:rotate`).
 *
 * Resumable and idempotent: it only picks leads whose key ids differ from the
 * current ones, walks them by id in short transactions, and writes each one only if
 * it is still as it was read, so an interrupted, repeated or concurrent run never
 * does a lead twice and never undoes a newer write. Leads that cannot be opened are
 * skipped, logged and reported; the app keeps running throughout.
 */
export async function rotateLeads(dataSource: DataSource, keyring: LeadsKeyring, options: RotationOptions = {}): Promise<RotationStats> {
  // A plain function, so that the command runs without the app: the repository needs only the data source.
  const leads = new LeadsRepository(dataSource);
  const batchSize = options.batchSize ?? 500;
  const log = options.log ?? silent;
  const current = keyring.current;
  const indexKeyId = keyring.indexKeyId;
  const stats: RotationStats = { examined: 0, resealed: 0, reindexed: 0, merged: 0, failed: 0, remaining: 0 };
  let after = '';
  let batches = 0;
  while (!options.signal?.aborted && (options.maxBatches === undefined || batches < options.maxBatches)) {
    const rows = await leads.notRotated(current.id, indexKeyId, after, batchSize);
    if (rows.length === 0) break;
    await dataSource.transaction(async (m) => {
      for (const row of rows) await rotateOne(leads, m, keyring, row, stats, log);
    });
    stats.examined += rows.length;
    after = rows[rows.length - 1].id;
    batches++;
    log.info({ ...stats, lastLeadId: after }, 'leads rotation progress');
  }
  const n = await leads.countNotRotated(current.id, indexKeyId);
  stats.remaining = n;
  if (!options.signal?.aborted && (options.maxBatches === undefined || batches < options.maxBatches)) await rotateDomains(leads, keyring, stats, log, n === 0);
  return stats;
}

async function rotateOne(
  leads: LeadsRepository,
  m: EntityManager,
  keyring: LeadsKeyring,
  row: RotationRow,
  stats: RotationStats,
  log: RotationLog,
): Promise<void> {
  const key = keyring.key(row.key_id);
  const aad = leadAad(row.project_id, row.id);
  const email = key ? openEmail(key, { nonce: row.email_nonce, ciphertext: row.email_ciphertext }, aad) : null;
  if (email === null) {
    stats.failed++;
    log.error(
      { leadId: row.id, projectId: row.project_id, keyId: row.key_id },
      key
        ? 'lead failed authentication (ciphertext, nonce or row binding altered): left as it is'
        : 'lead is sealed with a key id that is not configured: left as it is',
    );
    return;
  }
  const index = keyring.index(row.workspace_id);
  const reindex = row.index_key_id !== index.keyId;
  const { local, domain } = splitEmail(email);
  const hash = index.emailHash(row.project_id, email);
  if (reindex) {
    // Captured again while the index key changed: one lead per email, the first capture wins.
    const others = await leads.lockDuplicates(m, row.project_id, hash, row.id);
    const other = others[0];
    if (other) {
      const otherFirst =
        other.captured_at.getTime() < row.captured_at.getTime() || (other.captured_at.getTime() === row.captured_at.getTime() && other.id < row.id);
      const loser = otherFirst ? row.id : other.id;
      if (await leads.delete(m, loser)) await leads.decrementCount(m, row.project_id);
      stats.merged++;
      if (otherFirst) return;
    }
  }
  const domainHash = await addDomain(leads, m, keyring, row.workspace_id, domain);
  const sealed = sealEmail(keyring.current.key, email, aad);
  const updated = await leads.reseal(
    m,
    {
      id: row.id,
      keyId: keyring.current.id,
      emailNonce: sealed.nonce,
      emailCiphertext: sealed.ciphertext,
      indexKeyId: index.keyId,
      emailHash: hash,
      searchTokens: index.tokens(email),
      domainHash,
      localTokens: index.tokens(local),
    },
    { keyId: row.key_id, nonce: row.email_nonce },
  );
  if (updated) {
    stats.resealed++;
    if (reindex) stats.reindexed++;
  }
}

/**
 * The domain dictionaries (lead_domains): seals again the entries not under the newest
 * key, and drops those no lead refers to any more: made under an older index key (only
 * once every lead is reindexed) or left by a deleted project.
 */
async function rotateDomains(leads: LeadsRepository, keyring: LeadsKeyring, stats: RotationStats, log: RotationLog, leadsDone: boolean): Promise<void> {
  const current = keyring.current;
  let resealed = 0;
  const stale = await leads.staleDomains(current.id, keyring.indexKeyId);
  for (const entry of stale) {
    const key = keyring.key(entry.key_id);
    const aad = domainAad(entry.workspace_id, entry.domain_hash);
    const domain = key ? openEmail(key, { nonce: entry.domain_nonce, ciphertext: entry.domain_ciphertext }, aad) : null;
    if (domain === null) {
      stats.failed++;
      log.error({ workspaceId: entry.workspace_id, keyId: entry.key_id }, 'domain dictionary entry cannot be opened: left as it is');
      continue;
    }
    const sealed = sealEmail(current.key, domain, aad);
    resealed += await leads.resealDomain(entry, current.id, sealed.nonce, sealed.ciphertext);
  }
  const oldIndex = leadsDone ? await leads.deleteDomainsOfOtherIndexKeys(keyring.indexKeyId) : 0;
  const unused = await leads.deleteUnusedDomains();
  log.info({ domainsResealed: resealed, domainsDropped: oldIndex + unused }, 'leads rotation: domain dictionaries');
}
