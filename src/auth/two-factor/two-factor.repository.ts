import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager, LessThan } from 'typeorm';

import { GenerateSql } from '../../database/generate-sql';
import { LoginChallenge, RecoveryCode, TotpCredential } from './two-factor.entities';

const HASH = 'a'.repeat(64);

/** Every query on totp_credentials, recovery_codes and login_challenges (issue 32). */
@Injectable()
export class TwoFactorRepository {
  constructor(private readonly dataSource: DataSource) {}

  @GenerateSql({ params: (f) => [f.manager, f.userId] })
  findTotp(manager: EntityManager, userId: string): Promise<TotpCredential | null> {
    return manager.findOneBy(TotpCredential, { userId });
  }

  /** Locked for the rest of the caller's transaction: two answers with one code queue here, and one finds its step used. */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.userId] })
  lockTotp(manager: EntityManager, userId: string): Promise<TotpCredential | null> {
    return manager.findOne(TotpCredential, { where: { userId }, lock: { mode: 'pessimistic_write' } });
  }

  /** A new enrolment, replacing one not confirmed yet (an enabled one is refused before this is called). */
  @GenerateSql({
    params: (f) => [f.manager, { userId: f.userId, secretKeyId: 'k1', secretNonce: Buffer.alloc(12), secretCiphertext: Buffer.alloc(36) }],
  })
  async upsertPendingTotp(manager: EntityManager, row: Pick<TotpCredential, 'userId' | 'secretKeyId' | 'secretNonce' | 'secretCiphertext'>): Promise<void> {
    await manager.query(
      `INSERT INTO totp_credentials (user_id, secret_key_id, secret_nonce, secret_ciphertext) VALUES ($1, $2, $3, $4)
       ON CONFLICT (user_id) DO UPDATE SET secret_key_id = $2, secret_nonce = $3, secret_ciphertext = $4, created_at = now(), last_used_step = NULL
       WHERE totp_credentials.enabled_at IS NULL`,
      [row.userId, row.secretKeyId, row.secretNonce, row.secretCiphertext],
    );
  }

  /** Records the step of the code just accepted, and turns the credential on when `enable` is given. */
  @GenerateSql({ params: (f) => [f.manager, f.userId, 1, new Date(0)] })
  async useStep(manager: EntityManager, userId: string, step: number, enable: Date | null): Promise<void> {
    await manager.query(`UPDATE totp_credentials SET last_used_step = $2, enabled_at = COALESCE(enabled_at, $3) WHERE user_id = $1`, [userId, step, enable]);
  }

  /** TOTP off, with its recovery codes (bumps the auth epoch, by trigger). */
  @GenerateSql({ params: (f) => [f.manager, f.userId] })
  async deleteTotp(manager: EntityManager, userId: string): Promise<void> {
    await manager.delete(TotpCredential, { userId });
    await manager.delete(RecoveryCode, { userId });
  }

  /** The user's recovery codes become `hashes` (the old ones die). */
  @GenerateSql({ params: (f) => [f.manager, f.userId, [HASH]] })
  async replaceRecoveryCodes(manager: EntityManager, userId: string, hashes: string[]): Promise<void> {
    await manager.delete(RecoveryCode, { userId });
    await manager.insert(
      RecoveryCode,
      hashes.map((codeHash) => ({ codeHash, userId })),
    );
  }

  /** Uses up a recovery code: true when it was the user's and unused (deleted here, so it works once). */
  @GenerateSql({ params: (f) => [f.manager, f.userId, HASH] })
  async useRecoveryCode(manager: EntityManager, userId: string, codeHash: string): Promise<boolean> {
    const result = await manager.delete(RecoveryCode, { userId, codeHash });
    return (result.affected ?? 0) > 0;
  }

  @GenerateSql({ params: (f) => [f.userId] })
  countRecoveryCodes(userId: string): Promise<number> {
    return this.dataSource.manager.countBy(RecoveryCode, { userId });
  }

  /** Whether the user's TOTP is on (the guard asks this for members of workspaces that require a second factor). */
  @GenerateSql({ params: (f) => [f.userId] })
  async totpEnabled(userId: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.manager.query('SELECT 1 FROM totp_credentials WHERE user_id = $1 AND enabled_at IS NOT NULL', [userId]);
    return rows.length > 0;
  }

  @GenerateSql({ params: (f) => [f.manager, { tokenHash: HASH, userId: f.userId, expiresAt: new Date(0) }, new Date(0)] })
  async insertChallenge(manager: EntityManager, row: Pick<LoginChallenge, 'tokenHash' | 'userId' | 'expiresAt'>, now: Date): Promise<void> {
    // Expired challenges of the user go as a new one comes: no job needed to keep the table small.
    await manager.delete(LoginChallenge, { userId: row.userId, expiresAt: LessThan(now) });
    await manager.insert(LoginChallenge, row);
  }

  /** The unexpired challenge with this hash, locked for the caller's transaction (one answer at a time). */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, HASH, new Date(0)] })
  async lockChallenge(manager: EntityManager, tokenHash: string, now: Date): Promise<LoginChallenge | null> {
    const found = await manager.findOne(LoginChallenge, { where: { tokenHash }, lock: { mode: 'pessimistic_write' } });
    return found && found.expiresAt > now ? found : null;
  }

  /** The same without a lock: whose challenge it is, before the answer is judged. */
  @GenerateSql({ params: () => [HASH, new Date(0)] })
  async findChallenge(tokenHash: string, now: Date): Promise<LoginChallenge | null> {
    const found = await this.dataSource.manager.findOneBy(LoginChallenge, { tokenHash });
    return found && found.expiresAt > now ? found : null;
  }

  @GenerateSql({ params: (f) => [f.manager, HASH] })
  async deleteChallenge(manager: EntityManager, tokenHash: string): Promise<void> {
    await manager.delete(LoginChallenge, { tokenHash });
  }
}
