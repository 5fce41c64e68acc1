import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';

import type { Credential } from '../../access/authorize';
import { AccessTokensService, LAST_USED_RESOLUTION_MS } from '../../access-tokens/access-tokens.service';
import { hashTokenSecret } from '../../access-tokens/token-secret';
import { Clock } from '../../common/time';
import type { Role } from '../../shared/principal';
import { MembersService } from '../../workspaces/members.service';
import { SessionsService } from '../sessions/sessions.service';
import { TwoFactorService } from '../two-factor/two-factor.service';

type TokenCredential = Extract<Credential, { kind: 'token' }>;
type UserCredential = Extract<Credential, { kind: 'user' }>;

interface TokenEntry {
  epoch: string;
  credential: TokenCredential;
  expiresAt: number | null;
  /** When last_used_at was last written (or read); by the Clock, which tests move. */
  usedAt: number | null;
}

interface JwtEntry {
  /** The epoch the session was last found open in; null: signature checked, session not yet. */
  epoch: string | null;
  credential: UserCredential;
  expiresAt: number;
}

interface RoleEntry {
  epoch: string;
  role: Role;
  requireTwoFactor: boolean;
}

/** An active membership as the guard needs it: the role, and whether the workspace requires a second factor. */
export interface Membership {
  role: Role;
  requireTwoFactor: boolean;
}

const MAX_ENTRIES = 20_000;

/**
 * What the bearer guard learns from the database about a credential, kept in memory
 * per auth epoch (AuthEpoch): an API token's row, whether a JWT's session is open, a
 * user's role in a workspace. An entry is used only while the epoch the request read
 * is the one it was loaded in; any revocation, logout or membership change anywhere
 * bumps the epoch, so the next request on every instance goes back to the database.
 * Expiry needs no epoch: a token's and a JWT's expiry are checked on every use.
 *
 * Only positive answers are kept: an unknown token or a non-member costs a query each
 * time, so no row created later (a token, an accepted invitation) can be hidden by a
 * cached "no". Bounded (LRU), so made-up JWTs cannot grow it without limit (they fail
 * their signature and are not kept anyway).
 */
@Injectable()
export class CredentialCache {
  private readonly tokens = new LRUCache<string, TokenEntry>({ max: MAX_ENTRIES });
  private readonly jwts = new LRUCache<string, JwtEntry>({ max: MAX_ENTRIES });
  private readonly roles = new LRUCache<string, RoleEntry>({ max: MAX_ENTRIES });
  /** Users found to have a second factor, by the epoch they were found in (turning TOTP off bumps it). */
  private readonly secondFactors = new LRUCache<string, string>({ max: MAX_ENTRIES });
  /** Loads in flight by epoch and key: a burst of requests after an epoch change sends one query per credential. */
  private readonly loading = new Map<string, Promise<unknown>>();

  constructor(
    private readonly accessTokens: AccessTokensService,
    private readonly sessions: SessionsService,
    private readonly members: MembersService,
    private readonly clock: Clock,
    private readonly twoFactor: TwoFactorService,
  ) {}

  /** The live API token behind a well-formed secret, or null (unknown, revoked, expired). */
  async token(secret: string, epoch: string): Promise<TokenCredential | null> {
    const hash = hashTokenSecret(secret);
    let entry = this.tokens.get(hash);
    if (!entry || entry.epoch !== epoch) {
      const found = await this.once(`t:${epoch}:${hash}`, () => this.accessTokens.findLive(secret));
      if (!found) {
        this.tokens.delete(hash);
        return null;
      }
      // Several requests may share one load: the entry may already be there.
      entry = this.tokens.get(hash);
      if (!entry || entry.epoch !== epoch) {
        entry = {
          epoch,
          credential: found.credential,
          expiresAt: found.expiresAt?.getTime() ?? null,
          usedAt: entry?.usedAt ?? found.lastUsedAt?.getTime() ?? null,
        };
        this.tokens.set(hash, entry);
      }
    }
    if (entry.expiresAt !== null && entry.expiresAt <= Date.now()) return null;
    const now = this.clock.now();
    if (entry.usedAt === null || now.getTime() - entry.usedAt >= LAST_USED_RESOLUTION_MS) {
      entry.usedAt = now.getTime();
      await this.accessTokens.recordUse(entry.credential.tokenId, now);
    }
    return entry.credential;
  }

  /** The user and session behind a valid access JWT whose session is open, or null. */
  async user(jwt: string, epoch: string): Promise<UserCredential | null> {
    let entry = this.jwts.get(jwt);
    if (!entry) {
      // Only a JWT whose signature and claims checked out is ever kept.
      const verified = await this.sessions.verifyJwt(jwt);
      if (!verified) return null;
      entry = { epoch: null, ...verified };
      this.jwts.set(jwt, entry, { ttl: Math.max(1, entry.expiresAt - Date.now()) });
    }
    if (entry.expiresAt <= Date.now()) return null;
    if (entry.epoch !== epoch) {
      const { userId, sessionId } = entry.credential;
      if (!(await this.once(`s:${epoch}:${sessionId}`, () => this.sessions.isOpen(userId, sessionId)))) return null;
      entry.epoch = epoch;
    }
    return entry.credential;
  }

  /** The user's role as an active member of the workspace, or null. */
  async activeRole(workspaceId: string, userId: string, epoch: string): Promise<Role | null> {
    return (await this.membership(workspaceId, userId, epoch))?.role ?? null;
  }

  /** The user's active membership of the workspace with its two-factor policy, or null. */
  async membership(workspaceId: string, userId: string, epoch: string): Promise<Membership | null> {
    const key = `${workspaceId}:${userId}`;
    const entry = this.roles.get(key);
    if (entry && entry.epoch === epoch) return { role: entry.role, requireTwoFactor: entry.requireTwoFactor };
    const found = await this.once(`r:${epoch}:${key}`, () => this.members.activeMembership(workspaceId, userId));
    if (found) this.roles.set(key, { epoch, ...found });
    else this.roles.delete(key);
    return found;
  }

  /**
   * Whether the user has a second factor (TOTP on, or a passkey). Only a yes is kept, like
   * every answer here: someone who just enrolled is let in on their next request.
   */
  async hasSecondFactor(userId: string, epoch: string): Promise<boolean> {
    if (this.secondFactors.get(userId) === epoch) return true;
    const has = await this.once(`f:${epoch}:${userId}`, () => this.twoFactor.hasSecondFactor(userId));
    if (has) this.secondFactors.set(userId, epoch);
    else this.secondFactors.delete(userId);
    return has;
  }

  private once<T>(key: string, load: () => Promise<T>): Promise<T> {
    const running = this.loading.get(key) as Promise<T> | undefined;
    if (running) return running;
    const started = load().finally(() => this.loading.delete(key));
    this.loading.set(key, started);
    return started;
  }
}
