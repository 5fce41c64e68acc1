import type { DataSource } from 'typeorm';

import type { LeadsKeyring } from '../leads/keyring';
import { GitRepository } from './git.repository';
import { accessTokenAad, envValueAad, openSecret, sealSecret, webhookSecretAad } from './git-secrets';

export interface GitRotationLog {
  error(fields: object, message: string): void;
}

export interface GitRotationStats {
  /** Sealed again under the newest key. */
  resealed: number;
  /** Could not be opened (key gone, or altered): left as they are, logged. */
  failed: number;
  /** Still not under the newest key after the run. */
  remaining: number;
}

const BATCH = 500;

/**
 * Seals the projects' access tokens, webhook secrets and environment variable values again under the
 * newest key of LEADS_ENCRYPTION_KEYS (`npm run leads:rotate` runs it after the leads),
 * so an old key can be dropped. Like the leads' rotation: walks the rows in key order,
 * writes each only if it is unchanged since read, leaves what it cannot open (logged),
 * and may run again or beside the app.
 */
export async function rotateGitSecrets(dataSource: DataSource, keyring: LeadsKeyring, log: GitRotationLog): Promise<GitRotationStats> {
  const repo = new GitRepository(dataSource);
  const current = keyring.current.id;
  const stats: GitRotationStats = { resealed: 0, failed: 0, remaining: 0 };
  const attempt = (what: object, open: () => string): string | null => {
    try {
      return open();
    } catch (err) {
      stats.failed++;
      log.error(what, `${(err as Error).message}: left as it is`);
      return null;
    }
  };
  for (let after = ''; ;) {
    const rows = await repo.tokensNotUnder(current, after, BATCH);
    if (rows.length === 0) break;
    for (const row of rows) {
      const aad = accessTokenAad(row.projectId);
      const sealed = { keyId: row.tokenKeyId!, nonce: row.tokenNonce!, ciphertext: row.tokenCiphertext! };
      const token = attempt({ projectId: row.projectId, keyId: row.tokenKeyId }, () =>
        openSecret(keyring, sealed, aad, `The access token of ${row.projectId}`),
      );
      if (token !== null && (await repo.resealToken(row.projectId, sealed.nonce, sealSecret(keyring, token, aad)))) stats.resealed++;
    }
    after = rows[rows.length - 1].projectId;
  }
  for (let after = ''; ;) {
    const rows = await repo.webhookSecretsNotUnder(current, after, BATCH);
    if (rows.length === 0) break;
    for (const row of rows) {
      const aad = webhookSecretAad(row.projectId);
      const sealed = { keyId: row.webhookKeyId!, nonce: row.webhookNonce!, ciphertext: row.webhookCiphertext! };
      const secret = attempt({ projectId: row.projectId, keyId: row.webhookKeyId }, () =>
        openSecret(keyring, sealed, aad, `The webhook secret of ${row.projectId}`),
      );
      if (secret !== null && (await repo.resealWebhookSecret(row.projectId, sealed.nonce, sealSecret(keyring, secret, aad)))) stats.resealed++;
    }
    after = rows[rows.length - 1].projectId;
  }
  for (let after = { projectId: '', name: '' }; ;) {
    const rows = await repo.envNotUnder(current, after.projectId, after.name, BATCH);
    if (rows.length === 0) break;
    for (const row of rows) {
      const aad = envValueAad(row.projectId, row.name);
      const sealed = { keyId: row.keyId, nonce: row.valueNonce, ciphertext: row.valueCiphertext };
      const value = attempt({ projectId: row.projectId, name: row.name, keyId: row.keyId }, () =>
        openSecret(keyring, sealed, aad, `Environment variable ${row.name} of ${row.projectId}`),
      );
      if (value !== null && (await repo.resealEnv(row.projectId, row.name, sealed.nonce, sealSecret(keyring, value, aad)))) stats.resealed++;
    }
    after = rows[rows.length - 1];
  }
  stats.remaining = await repo.countNotUnder(current);
  return stats;
}
