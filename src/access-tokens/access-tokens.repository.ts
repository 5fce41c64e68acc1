import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager, IsNull } from 'typeorm';

import { likeContaining } from '../common/list-search';
import { PAGE_TOTAL, preparedPage } from '../common/page-query';
import { GenerateSql } from '../database/generate-sql';
import { lazyHydrator } from '../database/hydrate';
import type { Scope } from '../shared/principal';
import { AccessToken } from './access-token.entity';
import type { TokenState } from './dto/list-access-tokens.dto';

/** last_used_at is bookkeeping: one write a minute per token is plenty. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/** Which live tokens a caller sees: a project-bound caller only its project's. */
export interface TokenScope {
  workspaceId: string;
  projectId?: string | null;
}

const TOKEN = 'tok_sqlsnapshot0000000000000';

/** What narrows a page of the token list (GET /access-tokens). */
export interface TokenListFilter {
  /** Trimmed text matched anywhere in the name or the visible prefix, case-insensitively. */
  search?: string;
  status?: TokenState;
}

/**
 * `$1` workspace, `$2` limit, `$3` offset; further parameters only for what is used. Expiry
 * is read against the database's clock, as the sweep of other expiring rows is.
 */
function tokensPageQuery(scope: TokenScope, filter: TokenListFilter): { name: string; sql: string; extra: unknown[] } {
  const where = ['t.workspace_id = $1', 't.revoked_at IS NULL'];
  const extra: unknown[] = [];
  const name = ['tokens_page'];
  if (scope.projectId) {
    extra.push(scope.projectId);
    where.push(`t.project_id = $${3 + extra.length}`);
    name.push('bound');
  }
  if (filter.search !== undefined) {
    extra.push(likeContaining(filter.search));
    const n = `$${3 + extra.length}`;
    where.push(`(t.name ILIKE ${n} OR t.prefix ILIKE ${n})`);
    name.push('search');
  }
  if (filter.status !== undefined) {
    where.push(filter.status === 'expired' ? 't.expires_at <= now()' : '(t.expires_at IS NULL OR t.expires_at > now())');
    name.push(filter.status);
  }
  const conditions = where.join(' AND ');
  const sql = `
  SELECT c.${PAGE_TOTAL}, t.*
  FROM (SELECT count(*) AS ${PAGE_TOTAL} FROM access_tokens t WHERE ${conditions}) c
  LEFT JOIN LATERAL (
    SELECT t.* FROM access_tokens t WHERE ${conditions}
    ORDER BY t.created_at DESC, t.id ASC LIMIT $2 OFFSET $3
  ) t ON true
  ORDER BY t.created_at DESC, t.id ASC`;
  return { name: name.join('_'), sql, extra };
}

/** Every query on access_tokens. */
@Injectable()
export class AccessTokensRepository {
  private readonly hydrate = lazyHydrator(() => this.dataSource, AccessToken);

  constructor(private readonly dataSource: DataSource) {}

  /** The unrevoked token stored under this SHA-256 of a secret. */
  @GenerateSql({ params: () => ['0'.repeat(64)] })
  findLiveByHash(tokenHash: string): Promise<AccessToken | null> {
    return this.dataSource.manager.findOneBy(AccessToken, { tokenHash, revokedAt: IsNull() });
  }

  @GenerateSql({ params: (f) => [f.manager, f.tokenId] })
  findLiveById(manager: EntityManager, id: string): Promise<AccessToken | null> {
    return manager.findOneBy(AccessToken, { id, revokedAt: IsNull() });
  }

  /** The caller throttles; the WHERE makes sure two instances do not both write within the resolution. */
  @GenerateSql({ params: (f) => [f.tokenId, new Date(0)] })
  async recordUse(tokenId: string, at: Date): Promise<void> {
    await this.dataSource.query(
      `UPDATE "access_tokens" SET "last_used_at" = $2
        WHERE "id" = $1 AND ("last_used_at" IS NULL OR "last_used_at" <= $2::timestamptz - interval '${LAST_USED_RESOLUTION_MS} milliseconds')`,
      [tokenId, at],
    );
  }

  @GenerateSql({
    params: (f) => [
      f.manager,
      {
        id: TOKEN,
        workspaceId: f.workspaceId,
        projectId: null,
        name: 'fixture',
        tokenHash: '1'.repeat(64),
        prefix: 'sk_live_fixt',
        scopes: ['read'],
        expiresAt: null,
        lastUsedAt: null,
        createdBy: f.userId,
        revokedAt: null,
      },
    ],
  })
  async insert(
    manager: EntityManager,
    row: Pick<
      AccessToken,
      'id' | 'workspaceId' | 'projectId' | 'name' | 'tokenHash' | 'prefix' | 'scopes' | 'expiresAt' | 'lastUsedAt' | 'createdBy' | 'revokedAt'
    >,
  ): Promise<void> {
    await manager.insert(AccessToken, manager.create(AccessToken, row));
  }

  @GenerateSql({ params: (f) => [f.manager, f.tokenId] })
  getById(manager: EntityManager, id: string): Promise<AccessToken> {
    return manager.findOneByOrFail(AccessToken, { id });
  }

  /**
   * A page of the caller's live (unrevoked) tokens, newest first, narrowed by `filter`, with
   * the exact total of the narrowed list. Prepared, one statement per combination of
   * filters (common/page-query.ts), by IDX_access_tokens_workspace.
   */
  @GenerateSql(
    { name: 'workspace-wide caller', params: (f) => [{ workspaceId: f.workspaceId }, {}, 1, 20] },
    { name: 'project-bound caller', params: (f) => [{ workspaceId: f.workspaceId, projectId: f.projectId }, {}, 1, 20] },
    { name: 'search, expired', params: (f) => [{ workspaceId: f.workspaceId }, { search: 'sk_live_ci%', status: 'expired' }, 1, 20] },
    { name: 'active', params: (f) => [{ workspaceId: f.workspaceId }, { status: 'active' }, 1, 20] },
  )
  async pageLive(scope: TokenScope, filter: TokenListFilter, page: number, limit: number): Promise<{ rows: AccessToken[]; total: number }> {
    const query = tokensPageQuery(scope, filter);
    const { rows, total } = await preparedPage(this.dataSource, query.name, query.sql, [scope.workspaceId, limit, (page - 1) * limit, ...query.extra]);
    return { rows: rows.map(this.hydrate), total };
  }

  /**
   * Takes effect on the very next request on every instance: the update bumps the auth
   * epoch (see src/auth/sessions/auth-epoch.service.ts). False when no live token matched.
   */
  @GenerateSql(
    { name: 'workspace-wide caller', params: (f) => [{ workspaceId: f.workspaceId }, TOKEN, new Date(0)] },
    { name: 'project-bound caller', params: (f) => [{ workspaceId: f.workspaceId, projectId: f.projectId }, TOKEN, new Date(0)] },
  )
  async revoke(scope: TokenScope, tokenId: string, at: Date, manager: EntityManager = this.dataSource.manager): Promise<boolean> {
    const result = await manager.update(AccessToken, { id: tokenId, ...liveIn(scope) }, { revokedAt: at });
    return !!result.affected;
  }

  /**
   * Revokes the workspace's live tokens behind `userId` that hold any scope outside
   * `allowed` (all of them when `allowed` is empty), inside the caller's transaction.
   */
  /** Revokes every live token `userId` created, in every workspace, inside the caller's transaction. */
  @GenerateSql({ params: (f) => [f.manager, f.userId] })
  async revokeAllCreatedBy(manager: EntityManager, userId: string): Promise<void> {
    await manager.query(`UPDATE "access_tokens" SET "revoked_at" = now() WHERE "created_by" = $1 AND "revoked_at" IS NULL`, [userId]);
  }

  @GenerateSql({ params: (f) => [f.manager, 'ws_none', f.userId, ['read']] })
  async revokeForUser(manager: EntityManager, workspaceId: string, userId: string, allowed: Scope[]): Promise<void> {
    await manager.query(
      `UPDATE "access_tokens" SET "revoked_at" = now()
        WHERE "workspace_id" = $1 AND "created_by" = $2 AND "revoked_at" IS NULL AND NOT ("scopes" <@ $3::text[])`,
      [workspaceId, userId, allowed],
    );
  }
}

function liveIn(scope: TokenScope) {
  return { workspaceId: scope.workspaceId, revokedAt: IsNull(), ...(scope.projectId ? { projectId: scope.projectId } : {}) };
}
