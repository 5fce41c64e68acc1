import { Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

import { authError } from '../access/auth.errors';
import type { Credential } from '../access/authorize';
import { missingScopes, scopesForRole, sortScopes } from '../access/permissions';
import { AuditLogService, changedFields } from '../audit/audit-log.service';
import { badRequest, notFound, unauthorized } from '../common/errors';
import { newId } from '../common/ids';
import { Paginated, paginated } from '../common/pagination';
import { iso } from '../common/time';
import { ProjectsService } from '../projects/projects.service';
import type { Principal, Scope } from '../shared/principal';
import type { MemberTokens } from '../workspaces/member-tokens';
import { WorkspacesRepository } from '../workspaces/workspaces.repository';
import { AccessTokenView, accessTokenView, CreatedAccessTokenView, createdAccessTokenView, TokenContextView } from './access-token.view';
import { accessTokensError } from './access-tokens.errors';
import { AccessTokensRepository, LAST_USED_RESOLUTION_MS, type TokenListFilter, type TokenScope } from './access-tokens.repository';
import type { CreateAccessTokenDto } from './dto/create-access-token.dto';
import { RecentSignIn } from './recent-sign-in';
import { generateTokenSecret, hashTokenSecret, isWellFormedTokenSecret, tokenPrefix } from './token-secret';

export { LAST_USED_RESOLUTION_MS };

export interface LiveToken {
  credential: Extract<Credential, { kind: 'token' }>;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
}

@Injectable()
export class AccessTokensService implements MemberTokens {
  private readonly logger = new Logger(AccessTokensService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly tokens: AccessTokensRepository,
    private readonly projects: ProjectsService,
    private readonly audit: AuditLogService,
    private readonly workspaces: WorkspacesRepository,
    private readonly recentSignIn: RecentSignIn,
  ) {}

  /**
   * The unrevoked token stored for a presented secret, or null (unknown, revoked,
   * malformed). Expiry is the caller's check: the bearer guard caches this answer
   * (src/auth/guard/credential-cache.service.ts) and a token expires while cached.
   */
  async findLive(secret: string): Promise<LiveToken | null> {
    if (!isWellFormedTokenSecret(secret)) return null;
    const token = await this.tokens.findLiveByHash(hashTokenSecret(secret));
    if (!token) return null;
    return {
      credential: { kind: 'token', tokenId: token.id, workspaceId: token.workspaceId, scopes: token.scopes, projectId: token.projectId },
      expiresAt: token.expiresAt,
      lastUsedAt: token.lastUsedAt,
    };
  }

  /** last_used_at is bookkeeping: one write a minute per token is plenty (the caller throttles, the WHERE makes sure). */
  async recordUse(tokenId: string, at: Date): Promise<void> {
    try {
      await this.tokens.recordUse(tokenId, at);
    } catch (err) {
      // Bookkeeping must not fail the request it is recording.
      this.logger.warn(`could not record last use of ${tokenId}: ${(err as Error).message}`);
    }
  }

  context(principal: Principal): TokenContextView {
    return { workspaceId: principal.workspaceId!, tokenId: principal.tokenId!, scopes: principal.scopes, projectId: principal.projectId ?? null };
  }

  async create(principal: Principal, dto: CreateAccessTokenDto): Promise<CreatedAccessTokenView> {
    const workspaceId = principal.workspaceId!;
    const scopes = sortScopes(dto.scopes);
    const missing = missingScopes(scopes, principal.scopes);
    if (missing.length > 0) {
      throw authError('insufficient_scope', `You cannot grant a scope you do not hold: ${missing.join(', ')} (you hold: ${principal.scopes.join(', ')})`, {
        missingScopes: missing,
      });
    }
    const requestedExpiry = dto.expires_at ? new Date(dto.expires_at) : null;
    if (requestedExpiry && requestedExpiry.getTime() <= Date.now()) {
      throw badRequest(`expires_at must be in the future (got ${dto.expires_at})`);
    }
    // A token outlives the session that made it (a password reset ends sessions, not tokens):
    // a stolen session must not turn itself into one. A token's own tokens are bounded by it.
    if (principal.kind === 'user') await this.recentSignIn.requireRecentSignIn(principal.userId!, principal.sessionId, 'Creating an API token');

    return this.dataSource.transaction(async (m) => {
      // Under the workspace's lock, which member changes take: a person removed or demoted while
      // this request waited (their tokens revoked in that change) makes no token with what they lost.
      await this.workspaces.lock(m, workspaceId);
      let createdBy = principal.userId;
      let expiresAt = requestedExpiry;
      if (principal.kind === 'token') {
        const parent = await this.tokens.findLiveById(m, principal.tokenId!);
        if (!parent) throw unauthorized();
        // A token's tokens belong to the token's person, and cannot outlive it.
        createdBy = parent.createdBy;
        if (parent.expiresAt) {
          if (!expiresAt) expiresAt = parent.expiresAt;
          else if (expiresAt > parent.expiresAt) {
            throw accessTokensError('token_outlives_creator', `expires_at cannot be later than the expiry of the token creating it (${iso(parent.expiresAt)})`);
          }
        }
      }

      const role = createdBy ? await this.workspaces.activeRole(workspaceId, createdBy, m) : null;
      if (!role) throw unauthorized();
      const lost = missingScopes(scopes, scopesForRole(role));
      if (lost.length > 0) {
        throw authError('insufficient_scope', `You cannot grant a scope you do not hold: ${lost.join(', ')} (your role is ${role} now)`, {
          missingScopes: lost,
        });
      }

      const projectId = dto.projectId ?? null;
      if (principal.projectId) {
        if (projectId === null) {
          throw authError(
            'project_bound_token',
            `A token bound to project ${principal.projectId} cannot create a workspace-wide token: send projectId ${principal.projectId}`,
          );
        }
        if (projectId !== principal.projectId) throw notFound('Project', projectId);
      }
      // The project's owner answers: another workspace's project is a 404 like a made-up id.
      if (projectId !== null) await this.projects.findVisible(principal, projectId, m);

      const secret = generateTokenSecret();
      const token = {
        id: newId('tok'),
        workspaceId,
        projectId,
        name: dto.name,
        tokenHash: hashTokenSecret(secret),
        prefix: tokenPrefix(secret),
        scopes,
        expiresAt,
        lastUsedAt: null,
        createdBy: createdBy!,
        revokedAt: null,
      };
      await this.tokens.insert(m, token);
      await this.audit.record(m, {
        workspaceId,
        action: 'token.created',
        target: { type: 'token', id: token.id, label: token.name },
        changes: changedFields(dto),
      });
      return createdAccessTokenView(await this.tokens.getById(m, token.id), secret);
    });
  }

  /** Live tokens of the workspace (a project-bound caller sees its project's only); never a secret. */
  async list(principal: Principal, filter: TokenListFilter, page: number, limit: number): Promise<Paginated<AccessTokenView>> {
    const { rows, total } = await this.tokens.pageLive(tokenScope(principal), filter, page, limit);
    return paginated(rows.map(accessTokenView), total, page, limit);
  }

  /** Takes effect on the very next request on every instance: the update bumps the auth epoch (see src/auth/sessions/auth-epoch.service.ts). */
  async revoke(principal: Principal, tokenId: string): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      if (!(await this.tokens.revoke(tokenScope(principal), tokenId, new Date(), m))) throw notFound('Access token', tokenId);
      const token = await this.tokens.getById(m, tokenId);
      await this.audit.record(m, { workspaceId: token.workspaceId, action: 'token.revoked', target: { type: 'token', id: token.id, label: token.name } });
    });
  }

  /**
   * Revokes the workspace's live tokens behind `userId` that hold any scope outside
   * `allowed` (all of them when `allowed` is empty), inside the caller's transaction.
   */
  async revokeForUser(m: EntityManager, workspaceId: string, userId: string, allowed: Scope[]): Promise<void> {
    await this.tokens.revokeForUser(m, workspaceId, userId, allowed);
  }

  /** Every live token the user created, in every workspace, inside the caller's transaction (an account taken back). */
  async revokeAllCreatedBy(m: EntityManager, userId: string): Promise<void> {
    await this.tokens.revokeAllCreatedBy(m, userId);
  }
}

function tokenScope(principal: Principal): TokenScope {
  return { workspaceId: principal.workspaceId!, projectId: principal.projectId };
}
