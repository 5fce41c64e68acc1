import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager, IsNull } from 'typeorm';

import { GenerateSql } from '../../database/generate-sql';
import { RefreshToken } from './refresh-token.entity';

const FAMILY = '00000000-0000-4000-8000-000000000000';

/** Every query on refresh_tokens: a session is a family of them (src/auth/sessions.service.ts). */
@Injectable()
export class SessionsRepository {
  constructor(private readonly dataSource: DataSource) {}

  @GenerateSql({
    params: (f) => [
      f.manager,
      { id: FAMILY, familyId: FAMILY, userId: f.userId, tokenHash: '2'.repeat(64), expiresAt: new Date(0), rotatedAt: null, revokedAt: null },
    ],
  })
  async insert(
    manager: EntityManager,
    row: Pick<RefreshToken, 'id' | 'familyId' | 'userId' | 'tokenHash' | 'expiresAt' | 'rotatedAt' | 'revokedAt'>,
  ): Promise<void> {
    await manager.insert(RefreshToken, row);
  }

  /** Locked for the rest of the caller's transaction: two refreshes with one token queue here, and one finds it rotated. */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, '2'.repeat(64)] })
  lockByHash(manager: EntityManager, tokenHash: string): Promise<RefreshToken | null> {
    return manager.findOne(RefreshToken, { where: { tokenHash }, lock: { mode: 'pessimistic_write' } });
  }

  @GenerateSql({ params: (f) => [f.manager, FAMILY, new Date(0)] })
  async markRotated(manager: EntityManager, id: string, at: Date): Promise<void> {
    await manager.update(RefreshToken, { id }, { rotatedAt: at });
  }

  /** Ends a session: its live tokens are revoked, and with them its access JWTs. */
  @GenerateSql({ params: (f) => [f.manager, FAMILY, new Date(0)] })
  async revokeFamily(manager: EntityManager, familyId: string, at: Date): Promise<void> {
    await manager.update(RefreshToken, { familyId, revokedAt: IsNull() }, { revokedAt: at });
  }

  /** Ends every session of the user (which bumps the auth epoch, by trigger). */
  @GenerateSql({ params: (f) => [f.manager, 'usr_sqlsnapshot00000000000000', new Date(0)] })
  async revokeAllOfUser(manager: EntityManager, userId: string, at: Date): Promise<void> {
    await manager.update(RefreshToken, { userId, revokedAt: IsNull() }, { revokedAt: at });
  }

  /** The session's head (its one unrotated token), revoked or not; null when there is none. */
  @GenerateSql({ params: (f) => [f.userId, FAMILY] })
  head(userId: string, familyId: string): Promise<Pick<RefreshToken, 'id' | 'revokedAt'> | null> {
    return this.dataSource.manager.findOne(RefreshToken, {
      select: { id: true, revokedAt: true },
      where: { familyId, userId, rotatedAt: IsNull() },
    });
  }
}
