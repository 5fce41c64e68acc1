import type { DataSource } from 'typeorm';

import type { LeadsKeyring } from '../leads/keyring';
import { FormsRepository } from './forms.repository';
import { fieldTokens, openFields, sealFields, submissionAad } from './submission-crypto';

export interface SubmissionsRotationLog {
  error(fields: object, message: string): void;
}

export interface SubmissionsRotationStats {
  /** Sealed again under the newest key, with their search tokens under the current index key. */
  resealed: number;
  /** Could not be opened (key gone, or altered): left as they are, logged. */
  failed: number;
  /** Still not under the current keys after the run. */
  remaining: number;
}

const BATCH = 500;

/**
 * Seals form submissions again under the newest key of LEADS_ENCRYPTION_KEYS and
 * recomputes their search tokens under the current LEADS_INDEX_KEY (`npm run leads:rotate`
 * runs it after the leads), so an old key can be dropped without losing them: a
 * submission under a key no longer configured is left out of every list and export.
 * Like the leads' rotation: walks by id, writes each only if unchanged since read,
 * leaves what it cannot open (logged), and may run again or beside the app.
 */
export async function rotateSubmissions(
  dataSource: DataSource,
  keyring: LeadsKeyring,
  log: SubmissionsRotationLog,
  signal?: AbortSignal,
): Promise<SubmissionsRotationStats> {
  const forms = new FormsRepository(dataSource);
  const current = keyring.current;
  const stats: SubmissionsRotationStats = { resealed: 0, failed: 0, remaining: 0 };
  for (let after = ''; !signal?.aborted;) {
    const rows = await forms.notRotated(current.id, keyring.indexKeyId, after, BATCH);
    if (rows.length === 0) break;
    for (const row of rows) {
      const aad = submissionAad(row.form_id, row.id);
      const key = keyring.key(row.key_id);
      const fields = key ? openFields(key, { nonce: row.nonce, ciphertext: row.ciphertext }, aad) : null;
      if (fields === null) {
        stats.failed++;
        log.error(
          { submissionId: row.id, formId: row.form_id, keyId: row.key_id },
          key ? 'submission failed authentication: left as it is' : 'submission is sealed with a key id that is not configured: left as it is',
        );
        continue;
      }
      const index = keyring.index(row.workspace_id);
      const sealed = sealFields(current.key, fields, aad);
      const next = {
        id: row.id,
        keyId: current.id,
        nonce: sealed.nonce,
        ciphertext: sealed.ciphertext,
        indexKeyId: index.keyId,
        searchTokens: fieldTokens(index, fields),
      };
      if (await forms.reseal(next, { keyId: row.key_id, nonce: row.nonce })) stats.resealed++;
    }
    after = rows[rows.length - 1].id;
  }
  stats.remaining = await forms.countNotRotated(current.id, keyring.indexKeyId);
  return stats;
}
