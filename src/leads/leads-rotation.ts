import type { DataSource, EntityManager } from 'typeorm';
import { LeadsKeyring } from './keyring';
import { domainAad, leadAad, openEmail, sealEmail, splitEmail } from './lead-crypto';
import { addDomain } from './lead-domains';

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

interface RotationRow {
  id: string;
  workspace_id: string;
  project_id: string;
  key_id: string;
  email_nonce: Buffer;
  email_ciphertext: Buffer;
  index_key_id: string;
  captured_at: Date;
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
  const batchSize = options.batchSize ?? 500;
  const log = options.log ?? silent;
  const current = keyring.current;
  const indexKeyId = keyring.indexKeyId;
  const stats: RotationStats = { examined: 0, resealed: 0, reindexed: 0, merged: 0, failed: 0, remaining: 0 };
  let after = '';
  let batches = 0;
  while (!options.signal?.aborted && (options.maxBatches === undefined || batches < options.maxBatches)) {
    const rows: RotationRow[] = await dataSource.query(
      `SELECT id, workspace_id, project_id, key_id, email_nonce, email_ciphertext, index_key_id, captured_at
       FROM leads WHERE (key_id <> $1 OR index_key_id <> $2 OR domain_hash IS NULL) AND id > $3 ORDER BY id LIMIT $4`,
      [current.id, indexKeyId, after, batchSize],
    );
    if (rows.length === 0) break;
    await dataSource.transaction(async (m) => {
      for (const row of rows) await rotateOne(m, keyring, row, stats, log);
    });
    stats.examined += rows.length;
    after = rows[rows.length - 1].id;
    batches++;
    log.info({ ...stats, lastLeadId: after }, 'leads rotation progress');
  }
  const [{ n }] = await dataSource.query('SELECT count(*)::int AS n FROM leads WHERE key_id <> $1 OR index_key_id <> $2 OR domain_hash IS NULL', [current.id, indexKeyId]);
  stats.remaining = n;
  if (!options.signal?.aborted && (options.maxBatches === undefined || batches < options.maxBatches)) await rotateDomains(dataSource, keyring, stats, log, n === 0);
  return stats;
}

async function rotateOne(m: EntityManager, keyring: LeadsKeyring, row: RotationRow, stats: RotationStats, log: RotationLog): Promise<void> {
  const key = keyring.key(row.key_id);
  const aad = leadAad(row.project_id, row.id);
  const email = key ? openEmail(key, { nonce: row.email_nonce, ciphertext: row.email_ciphertext }, aad) : null;
  if (email === null) {
    stats.failed++;
    log.error(
      { leadId: row.id, projectId: row.project_id, keyId: row.key_id },
      key ? 'lead failed authentication (ciphertext, nonce or row binding altered): left as it is' : 'lead is sealed with a key id that is not configured: left as it is',
    );
    return;
  }
  const index = keyring.index(row.workspace_id);
  const reindex = row.index_key_id !== index.keyId;
  const { local, domain } = splitEmail(email);
  const hash = index.emailHash(row.project_id, email);
  if (reindex) {
    // Captured again while the index key changed: one lead per email, the first capture wins.
    const others: { id: string; captured_at: Date }[] = await m.query(
      'SELECT id, captured_at FROM leads WHERE project_id = $1 AND email_hash = $2 AND id <> $3 FOR UPDATE',
      [row.project_id, hash, row.id],
    );
    const other = others[0];
    if (other) {
      const otherFirst = other.captured_at.getTime() < row.captured_at.getTime() || (other.captured_at.getTime() === row.captured_at.getTime() && other.id < row.id);
      const loser = otherFirst ? row.id : other.id;
      const [deleted] = (await m.query('DELETE FROM leads WHERE id = $1 RETURNING id', [loser])) as [unknown[], number];
      if (deleted.length > 0) await m.query('UPDATE lead_counters SET lead_count = lead_count - 1 WHERE project_id = $1', [row.project_id]);
      stats.merged++;
      if (otherFirst) return;
    }
  }
  const domainHash = await addDomain(m, keyring, row.workspace_id, domain);
  const sealed = sealEmail(keyring.current.key, email, aad);
  const [, updated] = (await m.query(
    `UPDATE leads SET key_id = $1, email_nonce = $2, email_ciphertext = $3, index_key_id = $4, email_hash = $5, search_tokens = $6::int[], domain_hash = $7, local_tokens = $8::int[]
     WHERE id = $9 AND key_id = $10 AND email_nonce = $11`,
    [keyring.current.id, sealed.nonce, sealed.ciphertext, index.keyId, hash, index.tokens(email), domainHash, index.tokens(local), row.id, row.key_id, row.email_nonce],
  )) as [unknown, number];
  if (updated === 1) {
    stats.resealed++;
    if (reindex) stats.reindexed++;
  }
}

/**
 * The domain dictionaries (lead_domains): seals again the entries not under the newest
 * key, and drops those no lead refers to any more: made under an older index key (only
 * once every lead is reindexed) or left by a deleted project.
 */
async function rotateDomains(dataSource: DataSource, keyring: LeadsKeyring, stats: RotationStats, log: RotationLog, leadsDone: boolean): Promise<void> {
  const current = keyring.current;
  let resealed = 0;
  const stale: { workspace_id: string; domain_hash: Buffer; key_id: string; domain_nonce: Buffer; domain_ciphertext: Buffer }[] = await dataSource.query(
    'SELECT workspace_id, domain_hash, key_id, domain_nonce, domain_ciphertext FROM lead_domains WHERE key_id <> $1 AND index_key_id = $2',
    [current.id, keyring.indexKeyId],
  );
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
    const [, updated] = (await dataSource.query(
      'UPDATE lead_domains SET key_id = $1, domain_nonce = $2, domain_ciphertext = $3 WHERE workspace_id = $4 AND domain_hash = $5 AND key_id = $6 AND domain_nonce = $7',
      [current.id, sealed.nonce, sealed.ciphertext, entry.workspace_id, entry.domain_hash, entry.key_id, entry.domain_nonce],
    )) as [unknown, number];
    resealed += updated;
  }
  const [, oldIndex] = leadsDone
    ? ((await dataSource.query('DELETE FROM lead_domains WHERE index_key_id <> $1', [keyring.indexKeyId])) as [unknown, number])
    : [undefined, 0];
  // Same lock as an erasure (lead-domains.ts), so a capture in flight keeps its entry.
  const [, unused] = (await dataSource.query(
    `DELETE FROM lead_domains d WHERE (d.workspace_id, d.domain_hash) IN (
       SELECT workspace_id, domain_hash FROM lead_domains e
       WHERE NOT EXISTS (SELECT 1 FROM leads l WHERE l.workspace_id = e.workspace_id AND l.domain_hash = e.domain_hash)
       FOR UPDATE SKIP LOCKED)
     AND NOT EXISTS (SELECT 1 FROM leads l WHERE l.workspace_id = d.workspace_id AND l.domain_hash = d.domain_hash)`,
  )) as [unknown, number];
  log.info({ domainsResealed: resealed, domainsDropped: oldIndex + unused }, 'leads rotation: domain dictionaries');
}
