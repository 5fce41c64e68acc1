import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager, IsNull, Not } from 'typeorm';

import { GenerateSql } from '../../database/generate-sql';
import { RefreshToken } from './refresh-token.entity';
import { AuthSession } from './session.entity';

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

  /** Marks the family's live unrotated token rotated: a lost answer's retry gets the family's next token instead. */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, FAMILY, new Date(0)] })
  async supersedeHead(manager: EntityManager, familyId: string, at: Date): Promise<void> {
    await manager.update(RefreshToken, { familyId, rotatedAt: IsNull(), revokedAt: IsNull() }, { rotatedAt: at });
  }

  /** The id of the family's token rotated last (null: none rotated yet). */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, FAMILY] })
  async lastRotated(manager: EntityManager, familyId: string): Promise<string | null> {
    const row = await manager.findOne(RefreshToken, {
      select: { id: true },
      where: { familyId, rotatedAt: Not(IsNull()) },
      order: { rotatedAt: 'DESC', createdAt: 'DESC' },
    });
    return row?.id ?? null;
  }

  /**
   * Locks the session of a presented refresh token (the row its family names), before the
   * token itself: the order every revocation takes them in (lockSessions). One statement, in
   * the refresh's transaction.
   */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, '0'.repeat(64)] })
  async lockSessionOfToken(manager: EntityManager, tokenHash: string): Promise<void> {
    await manager.query('SELECT id FROM auth_sessions WHERE id = (SELECT family_id FROM refresh_tokens WHERE token_hash = $1) FOR UPDATE', [tokenHash]);
  }

  /**
   * Locks sessions' rows until the transaction ends. Refreshes and revocations both lock the
   * session before its tokens: a revocation waits for a rotation under way, and its UPDATE
   * (a statement begun after that rotation committed) then sees the token the rotation
   * added. Revoking the tokens alone waited on the presented token only, and left its
   * successor, inserted meanwhile, alive.
   */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.userId, [FAMILY]] })
  async lockSessions(manager: EntityManager, userId: string | null, familyIds: string[] | null): Promise<void> {
    await manager.query(
      `SELECT id FROM auth_sessions WHERE ($1::text IS NULL OR user_id = $1) AND ($2::uuid[] IS NULL OR id = ANY($2::uuid[])) ORDER BY id FOR UPDATE`,
      [userId, familyIds],
    );
  }

  /** Ends a session: its live tokens are revoked, and with them its access JWTs. Call in a transaction (lockSessions). */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, FAMILY, new Date(0)] })
  async revokeFamily(manager: EntityManager, familyId: string, at: Date): Promise<void> {
    await this.lockSessions(manager, null, [familyId]);
    await manager.update(RefreshToken, { familyId, revokedAt: IsNull() }, { revokedAt: at });
  }

  /** Ends every session of the user (which bumps the auth epoch, by trigger). Call in a transaction (lockSessions). */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, 'usr_sqlsnapshot00000000000000', new Date(0)] })
  async revokeAllOfUser(manager: EntityManager, userId: string, at: Date): Promise<void> {
    await this.lockSessions(manager, userId, null);
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

  /** What the person will see of a new session (issue 32). */
  @GenerateSql({
    params: (f) => [f.manager, { id: FAMILY, userId: f.userId, device: 'Chrome', ip: '203.0.113.0/24', lastUsedAt: new Date(0), authenticatedAt: new Date(0) }],
  })
  async insertSession(manager: EntityManager, row: Pick<AuthSession, 'id' | 'userId' | 'device' | 'ip' | 'lastUsedAt' | 'authenticatedAt'>): Promise<void> {
    await manager.insert(AuthSession, row);
  }

  /** When the user last proved who they are in the session (null: no such session of theirs). */
  @GenerateSql({ params: (f) => [f.userId, FAMILY] })
  async authenticatedAt(userId: string, id: string, manager: EntityManager = this.dataSource.manager): Promise<Date | null> {
    const row = await manager.findOne(AuthSession, { select: { authenticatedAt: true }, where: { id, userId } });
    return row?.authenticatedAt ?? null;
  }

  /** Records a proof of identity given in the session; false when it is not the user's (or gone). */
  @GenerateSql({ params: (f) => [f.manager, f.userId, FAMILY, new Date(0)] })
  async markAuthenticated(manager: EntityManager, userId: string, id: string, at: Date): Promise<boolean> {
    const result = await manager.update(AuthSession, { id, userId }, { authenticatedAt: at });
    return (result.affected ?? 0) > 0;
  }

  @GenerateSql({ params: (f) => [f.manager, FAMILY, new Date(0)] })
  async touchSession(manager: EntityManager, id: string, at: Date): Promise<void> {
    await manager.update(AuthSession, { id }, { lastUsedAt: at });
  }

  /** The user's open sessions (their head neither revoked nor expired), most recently used first. */
  @GenerateSql({ params: (f) => [f.userId, new Date(0)] })
  openSessions(userId: string, now: Date): Promise<Pick<AuthSession, 'id' | 'device' | 'ip' | 'createdAt' | 'lastUsedAt'>[]> {
    return this.dataSource.manager
      .createQueryBuilder(AuthSession, 's')
      .select(['s.id', 's.device', 's.ip', 's.createdAt', 's.lastUsedAt'])
      .where('s.userId = :userId', { userId })
      .andWhere(
        `EXISTS (SELECT 1 FROM refresh_tokens r WHERE r.family_id = s.id AND r.user_id = s.user_id
           AND r.rotated_at IS NULL AND r.revoked_at IS NULL AND r.expires_at > :now)`,
        { now },
      )
      .orderBy('s.lastUsedAt', 'DESC')
      .addOrderBy('s.id')
      .getMany();
  }

  /**
   * Ends the user's open sessions among `familyIds` (every one but `except` when `familyIds`
   * is null) and says which ended: another user's session, or one already over, ends none.
   */
  @GenerateSql({ params: (f) => [f.manager, f.userId, [FAMILY], null, new Date(0)] })
  async revokeSessionsOfUser(
    manager: EntityManager,
    userId: string,
    familyIds: string[] | null,
    except: string | null,
    at: Date,
  ): Promise<{ id: string; device: string | null }[]> {
    await this.lockSessions(manager, userId, familyIds);
    const rows: { id: string; device: string | null }[] = await manager.query(
      `WITH open AS (
         SELECT family_id FROM refresh_tokens
          WHERE user_id = $1 AND rotated_at IS NULL AND revoked_at IS NULL AND expires_at > $4
            AND ($2::uuid[] IS NULL OR family_id = ANY($2::uuid[])) AND ($3::uuid IS NULL OR family_id <> $3::uuid)
       ), ended AS (
         UPDATE refresh_tokens SET revoked_at = $4 WHERE user_id = $1 AND revoked_at IS NULL AND family_id IN (SELECT family_id FROM open)
         RETURNING family_id
       )
       SELECT e.family_id AS id, s.device FROM (SELECT DISTINCT family_id FROM ended) e
         LEFT JOIN auth_sessions s ON s.id = e.family_id ORDER BY e.family_id`,
      [userId, familyIds, except, at],
    );
    return rows;
  }

  /**
   * Forgets up to `limit` refresh tokens that expired before `before`, and the sessions left
   * without any token that were last used before it; counts of each. An expired token is
   * refused whether its row is there or not, so nothing a person could still use goes.
   */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, new Date(0), 1000] })
  async purgeExpired(manager: EntityManager, before: Date, limit: number): Promise<{ tokens: number; sessions: number }> {
    const rows: { tokens: number; sessions: number }[] = await manager.query(
      `WITH gone AS (
         DELETE FROM refresh_tokens WHERE id IN (SELECT id FROM refresh_tokens WHERE expires_at < $1 LIMIT $2) RETURNING family_id
       ), ended AS (
         DELETE FROM auth_sessions s WHERE s.last_used_at < $1 AND s.id IN (SELECT family_id FROM gone)
           AND NOT EXISTS (SELECT 1 FROM refresh_tokens r WHERE r.family_id = s.id AND r.expires_at >= $1)
         RETURNING 1
       )
       SELECT (SELECT count(*)::int FROM gone) AS tokens, (SELECT count(*)::int FROM ended) AS sessions`,
      [before, limit],
    );
    return rows[0];
  }
}
