import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

import { GenerateSql } from '../database/generate-sql';
import type { PreviewRow } from '../deployments/deployments.repository';
import { type AliasKind, PreviewAlias } from './preview-alias.entity';

/** What an alias points at, as `point` writes it. */
export type AliasTarget = Pick<PreviewAlias, 'projectId' | 'kind' | 'name' | 'label' | 'deploymentId' | 'buildId' | 'commitSha' | 'branch'>;

/** The site behind an alias host, as the router reads it (a deployment preview's row shape). */
export type AliasSiteRow = PreviewRow;

const SNAPSHOT_ALIAS = (f: { projectId: string; deploymentId: string }): AliasTarget => ({
  projectId: f.projectId,
  kind: 'branch',
  name: 'feature/snapshot',
  label: 'feature-snapshot--snapshot',
  deploymentId: f.deploymentId,
  buildId: null,
  commitSha: null,
  branch: 'feature/snapshot',
});

/** Every query on `preview_aliases`. */
@Injectable()
export class PreviewsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The alias row of one branch or pull request, locked for the rest of the transaction. */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.projectId, 'branch', 'main'] })
  lock(manager: EntityManager, projectId: string, kind: AliasKind, name: string): Promise<PreviewAlias | null> {
    return manager.getRepository(PreviewAlias).findOne({ where: { projectId, kind, name }, lock: { mode: 'pessimistic_write' } });
  }

  /** Who holds `label`, when anyone does. */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, 'main--snapshot'] })
  async labelHolder(manager: EntityManager, label: string): Promise<Pick<PreviewAlias, 'projectId' | 'kind' | 'name'> | null> {
    const rows: { project_id: string; kind: AliasKind; name: string }[] = await manager.query(
      'SELECT project_id, kind, name FROM preview_aliases WHERE label = $1',
      [label],
    );
    return rows.length ? { projectId: rows[0].project_id, kind: rows[0].kind, name: rows[0].name } : null;
  }

  /** Creates the alias or moves it (label included: a renamed slug gives a new one). */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, SNAPSHOT_ALIAS(f), new Date(0)] })
  async upsert(manager: EntityManager, target: AliasTarget, now: Date): Promise<void> {
    await manager.query(
      `INSERT INTO preview_aliases (project_id, kind, name, label, deployment_id, build_id, commit_sha, branch, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
       ON CONFLICT (project_id, kind, name) DO UPDATE SET label = EXCLUDED.label, deployment_id = EXCLUDED.deployment_id,
         build_id = EXCLUDED.build_id, commit_sha = EXCLUDED.commit_sha, branch = EXCLUDED.branch, updated_at = EXCLUDED.updated_at`,
      [target.projectId, target.kind, target.name, target.label, target.deploymentId, target.buildId, target.commitSha, target.branch, now],
    );
  }

  /** Removes an alias; its label, or null when there was none. */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.projectId, 'branch', 'gone'] })
  async delete(manager: EntityManager, projectId: string, kind: AliasKind, name: string): Promise<string | null> {
    const [rows]: [{ label: string }[], number] = await manager.query(
      'DELETE FROM preview_aliases WHERE project_id = $1 AND kind = $2 AND name = $3 RETURNING label',
      [projectId, kind, name],
    );
    return rows.length ? rows[0].label : null;
  }

  /** A project's aliases, the most recently moved first. */
  @GenerateSql({ params: (f) => [f.projectId, 1, 20] })
  async page(projectId: string, page: number, limit: number): Promise<{ entities: PreviewAlias[]; total: number }> {
    const [entities, total] = await this.dataSource.getRepository(PreviewAlias).findAndCount({
      where: { projectId },
      order: { updatedAt: 'DESC', kind: 'ASC', name: 'ASC' },
      take: limit,
      skip: (page - 1) * limit,
    });
    return { entities, total };
  }

  /** The router's read of an alias host: the project's site fields and the deployment the alias serves. */
  @GenerateSql({ params: () => ['main--snapshot'] })
  async siteByLabel(label: string): Promise<AliasSiteRow | undefined> {
    const rows: AliasSiteRow[] = await this.dataSource.query(
      `SELECT p.id, p.workspace_id, p.slug, p.name, p.type, p.gate_type, p.gate_version, p.password_hash,
              d.id AS deployment_id, d.version, d.status, d.expires_at, d.forms
       FROM preview_aliases a JOIN projects p ON p.id = a.project_id JOIN deployments d ON d.id = a.deployment_id
       WHERE a.label = $1`,
      [label],
    );
    return rows[0];
  }
}
