import { Injectable } from '@nestjs/common';
import { Brackets, DataSource, type EntityManager } from 'typeorm';

import { GenerateSql } from '../database/generate-sql';
import { Project } from '../projects/project.entity';
import type { EnvTarget } from './build-inputs';
import { ProjectEnvVar, ProjectGit } from './git.entities';
import type { SealedSecret } from './git-secrets';

/** The settings a PUT writes; the token as `undefined` keeps the stored one, null removes it. */
export interface GitSettingsRow {
  repository: string;
  productionBranch: string;
  rootDirectory: string;
  installCommand: string | null;
  buildCommand: string | null;
  outputDirectory: string | null;
  nodeVersion: string | null;
  /** Left out: kept as stored (a new row takes the column's default). */
  buildForkPullRequests?: boolean;
  /** Left out: kept as stored; null: inferred (from the host, then from verified deliveries). */
  forge?: GitForge | null;
}

/** Which forge's API a project's builds report to. */
export type GitForge = NonNullable<ProjectGit['forge']>;

/** What the webhook receiver needs of a project: its settings, its workspace and slug. */
export interface WebhookTargetRow {
  settings: ProjectGit;
  workspaceId: string;
  slug: string;
}

const SAMPLE_SETTINGS: GitSettingsRow = {
  repository: 'https://git.example.com/site.git',
  productionBranch: 'main',
  rootDirectory: '',
  installCommand: null,
  buildCommand: 'npm run build',
  outputDirectory: 'dist',
  nodeVersion: '22',
};
const SAMPLE_SEALED: SealedSecret = { keyId: 'k1', nonce: Buffer.alloc(12), ciphertext: Buffer.alloc(20) };

/** An entity from a RETURNING * row (column names to properties; pg has already typed the values). */
function fromRow<T extends object>(dataSource: DataSource, entity: new () => T, row: Record<string, unknown>): T {
  const out = new entity() as Record<string, unknown>;
  for (const column of dataSource.getMetadata(entity).columns) out[column.propertyName] = row[column.databaseName];
  return out as T;
}

/** Every query on project_git and project_env_vars. The caller has already checked the project is the principal's. */
@Injectable()
export class GitRepository {
  constructor(private readonly dataSource: DataSource) {}

  @GenerateSql({ params: (f) => [f.projectId] })
  find(projectId: string): Promise<ProjectGit | null> {
    return this.dataSource.getRepository(ProjectGit).findOneBy({ projectId });
  }

  /** The stored repository and whether a token is kept for it, locked until the caller's transaction ends (a settings save's). */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.projectId] })
  async lockTokenOrigin(manager: EntityManager, projectId: string): Promise<{ repository: string; hasToken: boolean } | null> {
    const [row]: { repository: string; has_token: boolean }[] = await manager.query(
      'SELECT repository, token_ciphertext IS NOT NULL AS has_token FROM project_git WHERE project_id = $1 FOR UPDATE',
      [projectId],
    );
    return row ? { repository: row.repository, hasToken: row.has_token } : null;
  }

  /**
   * Inserts or replaces the settings in one statement (two saves at once cannot both
   * insert). `token` undefined leaves the stored token as it is.
   */
  @GenerateSql(
    { name: 'keep token', inTransaction: true, params: (f) => [f.projectId, SAMPLE_SETTINGS, undefined] },
    { name: 'set token', inTransaction: true, params: (f) => [f.projectId, SAMPLE_SETTINGS, SAMPLE_SEALED] },
    {
      name: 'fork builds and forge',
      inTransaction: true,
      params: (f) => [f.projectId, { ...SAMPLE_SETTINGS, buildForkPullRequests: true, forge: 'gitea' }, undefined],
    },
  )
  async upsert(
    projectId: string,
    settings: GitSettingsRow,
    token: SealedSecret | null | undefined,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<ProjectGit> {
    const tokenColumns =
      token === undefined ? {} : { tokenKeyId: token?.keyId ?? null, tokenNonce: token?.nonce ?? null, tokenCiphertext: token?.ciphertext ?? null };
    const repo = manager.getRepository(ProjectGit);
    const { buildForkPullRequests, forge, ...replaced } = settings;
    const kept = {
      ...(buildForkPullRequests === undefined ? {} : { buildForkPullRequests }),
      ...(forge === undefined ? {} : { forge }),
    };
    const result = await repo
      .createQueryBuilder()
      .insert()
      .values({ projectId, ...replaced, ...kept, ...(token === undefined ? {} : tokenColumns) })
      .orUpdate(
        [
          'repository',
          'production_branch',
          'root_directory',
          'install_command',
          'build_command',
          'output_directory',
          'node_version',
          ...(buildForkPullRequests === undefined ? [] : ['build_fork_pull_requests']),
          ...(forge === undefined ? [] : ['forge']),
          ...(token === undefined ? [] : ['token_key_id', 'token_nonce', 'token_ciphertext']),
          'updated_at',
        ],
        ['project_id'],
      )
      .returning('*')
      .execute();
    return fromRow(this.dataSource, ProjectGit, (result.raw as Record<string, unknown>[])[0]);
  }

  /** The settings with the project's workspace and slug (the webhook receiver has no principal to find them by). */
  @GenerateSql({ params: (f) => [f.projectId] })
  async findWebhookTarget(projectId: string): Promise<WebhookTargetRow | null> {
    const row = await this.dataSource
      .getRepository(ProjectGit)
      .createQueryBuilder('g')
      .innerJoin(Project, 'p', 'p.id = g.project_id')
      .addSelect(['p.workspace_id AS p_workspace_id', 'p.slug AS p_slug'])
      .where('g.project_id = :projectId', { projectId })
      .getRawAndEntities();
    const settings = row.entities[0];
    if (!settings) return null;
    const raw = row.raw[0] as { p_workspace_id: string; p_slug: string };
    return { settings, workspaceId: raw.p_workspace_id, slug: raw.p_slug };
  }

  /** Replaces the webhook secret (the old one stops opening at once); false when the project is not connected. */
  @GenerateSql({ inTransaction: true, params: (f) => [f.projectId, SAMPLE_SEALED] })
  async setWebhookSecret(projectId: string, sealed: SealedSecret, manager: EntityManager = this.dataSource.manager): Promise<boolean> {
    const result = await manager
      .getRepository(ProjectGit)
      .createQueryBuilder()
      .update()
      .set({ webhookKeyId: sealed.keyId, webhookNonce: sealed.nonce, webhookCiphertext: sealed.ciphertext })
      .where('project_id = :projectId', { projectId })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /** Records the forge a verified delivery came from, unless one is already set (by the user or an earlier delivery). */
  @GenerateSql({ inTransaction: true, params: (f) => [f.projectId, 'gitea'] })
  async setForgeIfUnset(projectId: string, forge: GitForge): Promise<void> {
    await this.dataSource
      .getRepository(ProjectGit)
      .createQueryBuilder()
      .update()
      .set({ forge, updatedAt: () => '"updated_at"' })
      .where('project_id = :projectId AND forge IS NULL', { projectId })
      .execute();
  }

  /** True when there was a row. */
  @GenerateSql({ inTransaction: true, params: (f) => [f.projectId] })
  async remove(projectId: string, manager: EntityManager = this.dataSource.manager): Promise<boolean> {
    const result = await manager.getRepository(ProjectGit).delete({ projectId });
    return (result.affected ?? 0) > 0;
  }

  /** The project's variables, by name. */
  @GenerateSql({ params: (f) => [f.projectId] })
  listEnv(projectId: string): Promise<ProjectEnvVar[]> {
    return this.dataSource.getRepository(ProjectEnvVar).find({ where: { projectId }, order: { name: 'ASC' } });
  }

  /** Inserts or replaces a variable in one statement. */
  @GenerateSql({ inTransaction: true, params: (f) => [f.projectId, 'API_KEY', ['production'], SAMPLE_SEALED] })
  async upsertEnv(
    projectId: string,
    name: string,
    targets: EnvTarget[],
    value: SealedSecret,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<ProjectEnvVar> {
    const repo = manager.getRepository(ProjectEnvVar);
    const result = await repo
      .createQueryBuilder()
      .insert()
      .values({ projectId, name, targets, keyId: value.keyId, valueNonce: value.nonce, valueCiphertext: value.ciphertext })
      .orUpdate(['targets', 'key_id', 'value_nonce', 'value_ciphertext', 'updated_at'], ['project_id', 'name'])
      .returning('*')
      .execute();
    return fromRow(this.dataSource, ProjectEnvVar, (result.raw as Record<string, unknown>[])[0]);
  }

  /** True when there was such a variable. */
  @GenerateSql({ inTransaction: true, params: (f) => [f.projectId, 'API_KEY'] })
  async removeEnv(projectId: string, name: string, manager: EntityManager = this.dataSource.manager): Promise<boolean> {
    const result = await manager.getRepository(ProjectEnvVar).delete({ projectId, name });
    return (result.affected ?? 0) > 0;
  }

  // --- Rotation (./git-rotation.ts): secrets not sealed under the newest key, walked in key order ---

  /** Projects whose access token is sealed under another key than `keyId`, after `afterProjectId`. */
  @GenerateSql({ params: () => ['k1', '', 500] })
  tokensNotUnder(keyId: string, afterProjectId: string, limit: number): Promise<ProjectGit[]> {
    return this.dataSource
      .getRepository(ProjectGit)
      .createQueryBuilder('g')
      .where('g.token_key_id IS NOT NULL AND g.token_key_id <> :keyId', { keyId })
      .andWhere('g.project_id > :after', { after: afterProjectId })
      .orderBy('g.project_id', 'ASC')
      .limit(limit)
      .getMany();
  }

  /** Projects whose webhook secret is sealed under another key than `keyId`, after `afterProjectId`. */
  @GenerateSql({ params: () => ['k1', '', 500] })
  webhookSecretsNotUnder(keyId: string, afterProjectId: string, limit: number): Promise<ProjectGit[]> {
    return this.dataSource
      .getRepository(ProjectGit)
      .createQueryBuilder('g')
      .where('g.webhook_key_id IS NOT NULL AND g.webhook_key_id <> :keyId', { keyId })
      .andWhere('g.project_id > :after', { after: afterProjectId })
      .orderBy('g.project_id', 'ASC')
      .limit(limit)
      .getMany();
  }

  /** Variables sealed under another key than `keyId`, after (`afterProjectId`, `afterName`). */
  @GenerateSql({ params: () => ['k1', '', '', 500] })
  envNotUnder(keyId: string, afterProjectId: string, afterName: string, limit: number): Promise<ProjectEnvVar[]> {
    return this.dataSource
      .getRepository(ProjectEnvVar)
      .createQueryBuilder('v')
      .where('v.key_id <> :keyId', { keyId })
      .andWhere(
        new Brackets((w) =>
          w.where('v.project_id > :after', { after: afterProjectId }).orWhere('v.project_id = :after AND v.name > :name', { name: afterName }),
        ),
      )
      .orderBy('v.project_id', 'ASC')
      .addOrderBy('v.name', 'ASC')
      .limit(limit)
      .getMany();
  }

  /** Secrets of both tables not under `keyId`. */
  @GenerateSql({ params: () => ['k1'] })
  async countNotUnder(keyId: string): Promise<number> {
    const [row] = (await this.dataSource.query(
      `SELECT (SELECT count(*) FROM project_git WHERE token_key_id IS NOT NULL AND token_key_id <> $1)
            + (SELECT count(*) FROM project_git WHERE webhook_key_id IS NOT NULL AND webhook_key_id <> $1)
            + (SELECT count(*) FROM project_env_vars WHERE key_id <> $1) AS n`,
      [keyId],
    )) as { n: string }[];
    return Number(row.n);
  }

  /** Writes the token sealed again, only if it is still the one that was read (by its nonce); true when written. */
  @GenerateSql({ inTransaction: true, params: (f) => [f.projectId, Buffer.alloc(12), SAMPLE_SEALED] })
  async resealToken(projectId: string, oldNonce: Buffer, sealed: SealedSecret): Promise<boolean> {
    const result = await this.dataSource
      .getRepository(ProjectGit)
      .createQueryBuilder()
      .update()
      .set({ tokenKeyId: sealed.keyId, tokenNonce: sealed.nonce, tokenCiphertext: sealed.ciphertext, updatedAt: () => '"updated_at"' })
      .where('project_id = :projectId AND token_nonce = :oldNonce', { projectId, oldNonce })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /** Writes the webhook secret sealed again, only if it is still the one that was read (by its nonce); true when written. */
  @GenerateSql({ inTransaction: true, params: (f) => [f.projectId, Buffer.alloc(12), SAMPLE_SEALED] })
  async resealWebhookSecret(projectId: string, oldNonce: Buffer, sealed: SealedSecret): Promise<boolean> {
    const result = await this.dataSource
      .getRepository(ProjectGit)
      .createQueryBuilder()
      .update()
      .set({ webhookKeyId: sealed.keyId, webhookNonce: sealed.nonce, webhookCiphertext: sealed.ciphertext, updatedAt: () => '"updated_at"' })
      .where('project_id = :projectId AND webhook_nonce = :oldNonce', { projectId, oldNonce })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /** Writes a value sealed again, only if it is still the one that was read (by its nonce); true when written. */
  @GenerateSql({ inTransaction: true, params: (f) => [f.projectId, 'API_KEY', Buffer.alloc(12), SAMPLE_SEALED] })
  async resealEnv(projectId: string, name: string, oldNonce: Buffer, sealed: SealedSecret): Promise<boolean> {
    const result = await this.dataSource
      .getRepository(ProjectEnvVar)
      .createQueryBuilder()
      .update()
      .set({ keyId: sealed.keyId, valueNonce: sealed.nonce, valueCiphertext: sealed.ciphertext, updatedAt: () => '"updated_at"' })
      .where('project_id = :projectId AND name = :name AND value_nonce = :oldNonce', { projectId, name, oldNonce })
      .execute();
    return (result.affected ?? 0) > 0;
  }
}
