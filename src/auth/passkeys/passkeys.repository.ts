import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager, LessThanOrEqual } from 'typeorm';

import { GenerateSql } from '../../database/generate-sql';
import { Passkey, PasskeyChallenge, type PasskeyChallengePurpose } from './passkey.entities';

const PASSKEY = 'pk_sqlsnapshot000000000000000';
const CHALLENGE = '00000000-0000-4000-8000-000000000002';
const HASH = '4'.repeat(64);

/** Every query on passkeys and passkey_challenges. */
@Injectable()
export class PasskeysRepository {
  constructor(private readonly dataSource: DataSource) {}

  @GenerateSql({
    params: (f) => [f.manager, { id: CHALLENGE, tokenHash: HASH, purpose: 'registration', userId: f.userId, expiresAt: new Date(0) }],
  })
  async insertChallenge(m: EntityManager, row: PasskeyChallenge): Promise<void> {
    await m.insert(PasskeyChallenge, row);
  }

  /** Challenges nobody answered in time; called when a new one is issued, so the table stays as small as the traffic of the last minutes. */
  @GenerateSql({ params: (f) => [f.manager, new Date(0)] })
  async deleteExpiredChallenges(m: EntityManager, now: Date): Promise<void> {
    await m.delete(PasskeyChallenge, { expiresAt: LessThanOrEqual(now) });
  }

  /**
   * Takes the challenge out (single use: of two answers racing, one finds it) and returns
   * it when it was this purpose's, for this user (none for a sign-in) and not expired.
   */
  @GenerateSql({ params: (f) => [f.manager, HASH, 'registration', f.userId, new Date(0)] })
  async takeChallenge(m: EntityManager, tokenHash: string, purpose: PasskeyChallengePurpose, userId: string | null, now: Date): Promise<boolean> {
    // PostgreSQL's driver answers a DELETE … RETURNING with [rows, count].
    const [rows] = (await m.query(`DELETE FROM "passkey_challenges" WHERE "token_hash" = $1 RETURNING "purpose", "user_id", "expires_at"`, [tokenHash])) as [
      { purpose: string; user_id: string | null; expires_at: Date }[],
      number,
    ];
    const row = rows[0];
    return !!row && row.purpose === purpose && row.user_id === userId && row.expires_at > now;
  }

  @GenerateSql({ params: (f) => [f.manager, f.userId] })
  listForUser(m: EntityManager, userId: string): Promise<Passkey[]> {
    return m.find(Passkey, { where: { userId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /**
   * How many passkeys the user has, with their account row held (FOR NO KEY UPDATE, which
   * the passkeys' foreign-key checks do not wait on) until the caller's transaction ends:
   * two registrations of one person queue here, so the cap cannot be passed by racing.
   */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.userId] })
  async countForUserLocked(m: EntityManager, userId: string): Promise<number> {
    // Two statements: a count in the locking statement would read the snapshot taken before its wait, missing the passkey the other registration just added.
    await m.query(`SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE`, [userId]);
    return m.count(Passkey, { where: { userId } });
  }

  @GenerateSql({ params: (f) => [f.userId] })
  countForUser(userId: string): Promise<number> {
    return this.dataSource.manager.count(Passkey, { where: { userId } });
  }

  /** The user's passkey, locked for the caller's transaction; another user's is null, as if it did not exist. */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.userId, PASSKEY] })
  findForUser(m: EntityManager, userId: string, id: string): Promise<Passkey | null> {
    return m.findOne(Passkey, { where: { id, userId }, lock: { mode: 'pessimistic_write' } });
  }

  /** Locked: two sign-ins with one passkey queue here, so the signature counter only moves forward. */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, 'c3FsLXNuYXBzaG90'] })
  findByCredentialId(m: EntityManager, credentialId: string): Promise<Passkey | null> {
    return m.findOne(Passkey, { where: { credentialId }, lock: { mode: 'pessimistic_write' } });
  }

  @GenerateSql({
    inTransaction: true,
    params: (f) => [
      f.manager,
      {
        id: PASSKEY,
        userId: f.userId,
        credentialId: 'c3FsLXNuYXBzaG90',
        publicKey: Buffer.from('00', 'hex'),
        counter: 0,
        transports: ['internal'],
        deviceType: 'multiDevice',
        backedUp: false,
        name: 'Laptop',
        lastUsedAt: null,
      },
    ],
  })
  async insert(m: EntityManager, row: Omit<Passkey, 'createdAt' | 'user'>): Promise<void> {
    await m.insert(Passkey, row);
  }

  @GenerateSql({ params: (f) => [f.manager, PASSKEY, 'Laptop'] })
  async rename(m: EntityManager, id: string, name: string): Promise<void> {
    await m.update(Passkey, { id }, { name });
  }

  @GenerateSql({ params: (f) => [f.manager, PASSKEY, { counter: 1, backedUp: true, lastUsedAt: new Date(0) }] })
  async markUsed(m: EntityManager, id: string, use: Pick<Passkey, 'counter' | 'backedUp' | 'lastUsedAt'>): Promise<void> {
    await m.update(Passkey, { id }, use);
  }

  @GenerateSql({ params: (f) => [f.manager, PASSKEY] })
  async delete(m: EntityManager, id: string): Promise<void> {
    await m.delete(Passkey, { id });
  }

  /** Every passkey of the user, for an account taken back from whoever held it (bumps the auth epoch, by trigger). */
  @GenerateSql({ params: (f) => [f.manager, f.userId] })
  async deleteAllOfUser(m: EntityManager, userId: string): Promise<{ id: string; name: string }[]> {
    // PostgreSQL's driver answers a DELETE … RETURNING with [rows, count].
    const [rows] = (await m.query(`DELETE FROM "passkeys" WHERE "user_id" = $1 RETURNING "id", "name"`, [userId])) as [{ id: string; name: string }[], number];
    return rows;
  }
}
