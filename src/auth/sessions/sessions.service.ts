import { createHash, randomUUID } from 'node:crypto';

import { Injectable, Logger } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { DataSource, type EntityManager } from 'typeorm';

import type { Credential } from '../../access/authorize';
import type { RecentSignIn } from '../../access-tokens/recent-sign-in';
import { currentAuditRequest } from '../../audit/audit-context';
import { AuditLogService } from '../../audit/audit-log.service';
import { notFound } from '../../common/errors';
import { isId, randomString } from '../../common/ids';
import { AppConfig } from '../../config/app-config';
import type { TokenPairView } from '../auth.view';
import { invalidCredentials } from '../guard/credentials';
import type { SessionView } from './session.view';
import { sessionsError } from './sessions.errors';
import { SessionsRepository } from './sessions.repository';

const REFRESH_PREFIX = 'rt_';
const REFRESH_RANDOM = 43; // base62: about 256 bits
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface AccessClaims {
  sub: string;
  /** The session: the refresh-token family the JWT was issued with. */
  sid: string;
}

/**
 * How long after a sign-in (or POST /auth/reauthenticate) its session may change the
 * account's credentials: its email, passkeys, TOTP. Past it a stolen session (an XSS, a
 * copied refresh cookie) still works for everything else, but cannot make the account its
 * own. GitHub's sudo mode does the same; 15 minutes covers setting up a new account's
 * security right after signing up, and asks again in a day's long session.
 */
export const RECENT_SIGN_IN_MS = 15 * 60_000;

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');

export interface VerifiedJwt {
  credential: Extract<Credential, { kind: 'user' }>;
  /** The JWT's `exp`, in unix milliseconds. */
  expiresAt: number;
}

export type RefreshOutcome = { ok: true; userId: string; pair: TokenPairView } | { ok: false };

/**
 * Sign-in sessions: a family of single-use refresh tokens (stored as SHA-256 only)
 * plus short-lived access JWTs that name their family, so ending the session (logout,
 * or a stolen refresh token used twice) also ends its JWTs at once.
 */
@Injectable()
export class SessionsService implements RecentSignIn {
  private readonly logger = new Logger(SessionsService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly tokens: SessionsRepository,
    private readonly jwt: JwtService,
    private readonly config: AppConfig,
    private readonly audit: AuditLogService,
  ) {}

  /**
   * A new session for the user, inside the caller's transaction. The client family and
   * network it starts from are those of the request being served (none in a job).
   */
  async start(m: EntityManager, userId: string): Promise<TokenPairView> {
    const familyId = randomUUID();
    const request = currentAuditRequest();
    const now = new Date();
    await this.tokens.insertSession(m, {
      id: familyId,
      userId,
      device: request?.userAgent ?? null,
      ip: request?.ip ?? null,
      lastUsedAt: now,
      authenticatedAt: now,
    });
    const refreshToken = await this.insertRefreshToken(m, userId, familyId);
    return { accessToken: await this.signAccessToken(userId, familyId), refreshToken, expiresIn: this.config.JWT_ACCESS_TTL_SECONDS };
  }

  /**
   * Exchanges a refresh token for a new pair; a reused (already rotated) one revokes its whole
   * family, except just after its rotation (`REFRESH_REUSE_GRACE_SECONDS`) while nothing in the
   * family has rotated since: that is a client whose answer was lost (a tab reloaded or closed
   * mid-refresh, a dropped connection) asking again, and it gets another pair in the family.
   */
  async refresh(refreshToken: string): Promise<RefreshOutcome> {
    if (!refreshToken.startsWith(REFRESH_PREFIX)) return { ok: false };
    const now = new Date();
    const hash = sha256(refreshToken);
    // Returns rather than throws, so a reuse's family revocation is committed.
    const rotated = await this.dataSource.transaction(async (m) => {
      // The session row first, then the token, as revocations take them (SessionsRepository.lockSessions):
      // a rotation and a replay of the same family queue here, so a replay always sees whether the
      // successor was used in the meantime, and a revocation waits for the rotation and sees its token.
      await this.tokens.lockSessionOfToken(m, hash);
      const row = await this.tokens.lockByHash(m, hash);
      if (!row || row.revokedAt || row.expiresAt <= now) return null;
      await this.tokens.touchSession(m, row.familyId, now);
      if (row.rotatedAt) {
        if (!(await this.isReplay(m, { ...row, rotatedAt: row.rotatedAt }, now))) {
          await this.tokens.revokeFamily(m, row.familyId, now);
          this.logger.warn(`refresh token reused: revoked session ${row.familyId} of ${row.userId}`);
          return null;
        }
        this.logger.log(
          `refresh token presented again ${Math.round((now.getTime() - row.rotatedAt.getTime()) / 1000)} s after its rotation: another pair for session ${row.familyId}`,
        );
        // The successor it had is superseded (as if rotated now): the family keeps one live token,
        // so whichever copy is not the one carried on is reuse once its own grace is over.
        await this.tokens.supersedeHead(m, row.familyId, now);
      } else {
        await this.tokens.markRotated(m, row.id, now);
      }
      return { userId: row.userId, familyId: row.familyId, refreshToken: await this.insertRefreshToken(m, row.userId, row.familyId) };
    });
    if (!rotated) return { ok: false };
    return {
      ok: true,
      userId: rotated.userId,
      pair: {
        accessToken: await this.signAccessToken(rotated.userId, rotated.familyId),
        refreshToken: rotated.refreshToken,
        expiresIn: this.config.JWT_ACCESS_TTL_SECONDS,
      },
    };
  }

  /**
   * A rotated token presented again is a lost answer retried, not a leak, only within the grace
   * after its rotation and only while it is the family's latest rotation: once its successor has
   * been used, the copy is stale whatever the time, as it is after the grace.
   */
  private async isReplay(m: EntityManager, row: { id: string; familyId: string; rotatedAt: Date }, now: Date): Promise<boolean> {
    if (now.getTime() - row.rotatedAt.getTime() >= this.config.REFRESH_REUSE_GRACE_SECONDS * 1000) return false;
    return (await this.tokens.lastRotated(m, row.familyId)) === row.id;
  }

  /**
   * Throws 403 `reauthentication_required` unless the user proved who they are in this
   * session within RECENT_SIGN_IN_MS (a JWT's session is always theirs while it is open).
   */
  async requireRecentSignIn(userId: string, sessionId: string | undefined, what: string, manager?: EntityManager): Promise<void> {
    const at = sessionId ? await this.tokens.authenticatedAt(userId, sessionId, manager) : null;
    if (at && Date.now() - at.getTime() < RECENT_SIGN_IN_MS) return;
    throw sessionsError(
      'reauthentication_required',
      `${what} needs a sign-in of the last ${RECENT_SIGN_IN_MS / 60_000} minutes: confirm it is you (POST /auth/reauthenticate), then send this again`,
    );
  }

  /** Records, in the caller's transaction, that the user proved who they are in this session just now. */
  async reauthenticated(m: EntityManager, userId: string, sessionId: string): Promise<void> {
    // Purged since the guard let its JWT in (it had ended): that JWT no longer works.
    if (!(await this.tokens.markAuthenticated(m, userId, sessionId, new Date()))) throw invalidCredentials();
  }

  async revoke(familyId: string): Promise<void> {
    await this.dataSource.transaction((m) => this.tokens.revokeFamily(m, familyId, new Date()));
  }

  /**
   * The user, session and expiry (unix ms) a well-signed, unexpired access JWT names, or
   * null. Signature and claims only: whether the session is still open is `isOpen`.
   */
  async verifyJwt(token: string): Promise<VerifiedJwt | null> {
    let claims: AccessClaims & { exp?: number };
    try {
      claims = await this.jwt.verifyAsync<AccessClaims & object>(token);
    } catch {
      return null;
    }
    if (!isId('usr', claims.sub) || typeof claims.sid !== 'string' || !UUID.test(claims.sid) || typeof claims.exp !== 'number') return null;
    return { credential: { kind: 'user', userId: claims.sub, sessionId: claims.sid }, expiresAt: claims.exp * 1000 };
  }

  /** Whether the session (refresh-token family) is still open: its newest token is not revoked. */
  async isOpen(userId: string, sessionId: string): Promise<boolean> {
    const head = await this.tokens.head(userId, sessionId);
    return !!head && !head.revokedAt;
  }

  private signAccessToken(userId: string, familyId: string): Promise<string> {
    return this.jwt.signAsync({ sid: familyId }, { subject: userId });
  }

  private async insertRefreshToken(m: EntityManager, userId: string, familyId: string): Promise<string> {
    const token = `${REFRESH_PREFIX}${randomString(REFRESH_RANDOM, BASE62)}`;
    const expiresAt = new Date(Date.now() + this.config.REFRESH_TOKEN_TTL_DAYS * 86_400_000);
    await this.tokens.insert(m, { id: randomUUID(), familyId, userId, tokenHash: sha256(token), expiresAt, rotatedAt: null, revokedAt: null });
    return token;
  }

  /** The user's open sessions, `current` being the one `currentSessionId` (the JWT's) names. */
  async list(userId: string, currentSessionId: string | undefined): Promise<SessionView[]> {
    const rows = await this.tokens.openSessions(userId, new Date());
    return rows.map((row) => ({
      id: row.id,
      device: row.device,
      createdAt: row.createdAt.toISOString(),
      lastUsedAt: row.lastUsedAt.toISOString(),
      ip: row.ip,
      current: row.id === currentSessionId,
    }));
  }

  /** Ends one of the user's open sessions (404 for anyone else's, or one already over), audited. */
  async end(userId: string, sessionId: string): Promise<void> {
    if (!UUID.test(sessionId)) throw notFound('Session', sessionId);
    await this.dataSource.transaction(async (m) => {
      const ended = await this.tokens.revokeSessionsOfUser(m, userId, [sessionId], null, new Date());
      if (ended.length === 0) throw notFound('Session', sessionId);
      await this.recordEnded(m, userId, ended);
    });
  }

  /** Ends every open session of the user but `keep` (the caller's own), audited; inside the caller's transaction. */
  async endOthers(m: EntityManager, userId: string, keep: string | null): Promise<void> {
    await this.recordEnded(m, userId, await this.tokens.revokeSessionsOfUser(m, userId, null, keep, new Date()));
  }

  /** DELETE /auth/sessions: every session of the user but `keep`, in a transaction of its own. */
  async endOthersNow(userId: string, keep: string | null): Promise<void> {
    await this.dataSource.transaction((m) => this.endOthers(m, userId, keep));
  }

  private async recordEnded(m: EntityManager, userId: string, sessions: { id: string; device: string | null }[]): Promise<void> {
    for (const { id, device } of sessions)
      await this.audit.recordForUser(m, userId, { action: 'session.ended', target: { type: 'session', id, label: device } });
  }
}
