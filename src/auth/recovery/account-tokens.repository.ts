import { Injectable } from '@nestjs/common';
import { type EntityManager, IsNull } from 'typeorm';

import { GenerateSql } from '../../database/generate-sql';
import { AccountToken, type AccountTokenPurpose } from './account-token.entity';

const TOKEN = '00000000-0000-4000-8000-000000000001';

/** Every query on account_tokens (email verification and password reset links). */
@Injectable()
export class AccountTokensRepository {
  @GenerateSql({
    params: (f) => [
      f.manager,
      { id: TOKEN, userId: f.userId, purpose: 'verify_email', email: f.email, tokenHash: '3'.repeat(64), expiresAt: new Date(0), usedAt: null },
    ],
  })
  async insert(manager: EntityManager, row: Pick<AccountToken, 'id' | 'userId' | 'purpose' | 'email' | 'tokenHash' | 'expiresAt' | 'usedAt'>): Promise<void> {
    await manager.insert(AccountToken, row);
  }

  /** With `lock`, held for the rest of the caller's transaction: two uses of one link queue here, and one finds it used. */
  @GenerateSql(
    { name: 'peek', params: (f) => [f.manager, '3'.repeat(64), 'verify_email', false] },
    { name: 'locked', inTransaction: true, params: (f) => [f.manager, '3'.repeat(64), 'verify_email', true] },
  )
  findByHash(manager: EntityManager, tokenHash: string, purpose: AccountTokenPurpose, lock: boolean): Promise<AccountToken | null> {
    return manager.findOne(AccountToken, { where: { tokenHash, purpose }, lock: lock ? { mode: 'pessimistic_write' } : undefined });
  }

  @GenerateSql({ params: (f) => [f.manager, TOKEN, new Date(0)] })
  async markUsed(manager: EntityManager, id: string, at: Date): Promise<void> {
    await manager.update(AccountToken, { id }, { usedAt: at });
  }

  /** Marks the user's unused tokens of `purpose` used; with `email`, only those mailed to it. */
  @GenerateSql(
    { name: 'every address', params: (f) => [f.manager, 'usr_sqlsnapshot00000000000000', 'verify_email', new Date(0)] },
    { name: 'one address', params: (f) => [f.manager, 'usr_sqlsnapshot00000000000000', 'verify_email', new Date(0), f.email] },
  )
  async markUnusedUsed(manager: EntityManager, userId: string, purpose: AccountTokenPurpose, at: Date, email?: string): Promise<void> {
    await manager.update(AccountToken, { userId, purpose, usedAt: IsNull(), ...(email === undefined ? {} : { email }) }, { usedAt: at });
  }
}
