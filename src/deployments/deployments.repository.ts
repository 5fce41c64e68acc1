import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { PAGE_TOTAL, preparedPage } from '../common/page-query';
import { GenerateSql } from '../database/generate-sql';
import { lazyHydrator } from '../database/hydrate';
import { preparedQuery } from '../database/prepared-query';
import type { SiteRow } from '../projects/projects.repository';
import type { DeclaredForm } from '../shared/forms/declared-form';
import type { PreviewTarget } from '../shared/preview-label';
import { Deployment, type DeploymentStatus } from './deployment.entity';
import { DeploymentFile } from './deployment-file.entity';

export type NewDeployment = Omit<Deployment, 'project'>;

export interface ManifestEntry {
  path: string;
  sha256: string;
  size: number;
  contentType: string;
}

/** A preview host's deployment (whatever its status) and its project. */
export type PreviewRow = Omit<SiteRow, 'live_deployment_id'> & { deployment_id: string; version: number };

/** A deployment the TTL sweeper just expired. */
export interface ExpiredDeployment {
  id: string;
  version: number;
  projectId: string;
  workspaceId: string;
  projectSlug: string;
}

/** A manifest entry as the router reads it (no entity mapping on the hot path). */
export interface ManifestRow {
  path: string;
  sha256: string;
  size: string;
  content_type: string;
}

export interface DeploymentManifestRow extends ManifestRow {
  deployment_id: string;
}

const SNAPSHOT_DEPLOYMENT = (f: { scratchProjectId: string; workspaceId: string }): NewDeployment => ({
  id: 'dep_sqlsnapshot000000000000000',
  projectId: f.scratchProjectId,
  workspaceId: f.workspaceId,
  version: 1_000_000,
  status: 'archived',
  sizeBytes: 1,
  fileCount: 1,
  ttl: '7d',
  expiresAt: new Date(0),
  createdBy: 'usr_sqlsnapshot',
  createdAt: new Date(0),
  ruleWarnings: [],
  forms: [],
});

/**
 * What narrows a page of a project's deployments (GET /projects/:id/deployments); the
 * service reads the search text into one of `version`, `createdBy` or `idPrefix`.
 */
export interface DeploymentListFilter {
  /** The status as the list shows it (effectiveStatus): past `expires_at` is expired, whatever the column says yet. */
  status?: DeploymentStatus;
  version?: number;
  /** A whole `usr_…` or `tok_…` id. */
  createdBy?: string;
  /**
   * The start of a deployment id: `dep_` then only `[0-9a-z]`, so no wildcard but the `_` of `dep_`,
   * which every deployment id has there anyway.
   */
  idPrefix?: string;
}

/** Not yet expired at `$n` (the service's clock, the one the view's status is computed with). */
const unexpired = (n: string) => `(expires_at IS NULL OR expires_at > ${n})`;

/**
 * The deployment list page (see `page`): the total and one page in one statement, always
 * inside the project's range of UQ_deployments_project_version (newest version first), the
 * filters applied to that range. `$1` project, `$2` limit, `$3` offset; further parameters
 * only for the filters used, so each combination is its own prepared statement.
 */
function pageQuery(filter: DeploymentListFilter, now: Date): { name: string; sql: string; extra: unknown[] } {
  const where = ['project_id = $1'];
  const extra: unknown[] = [];
  const name = ['deployments_page'];
  const param = (value: unknown) => {
    extra.push(value);
    return `$${3 + extra.length}`;
  };
  if (filter.status !== undefined) {
    const n = param(now);
    where.push(filter.status === 'expired' ? `(status = 'expired' OR expires_at <= ${n})` : `status = ${param(filter.status)} AND ${unexpired(n)}`);
    name.push(filter.status);
  }
  if (filter.version !== undefined) {
    where.push(`version = ${param(filter.version)}`);
    name.push('version');
  }
  if (filter.createdBy !== undefined) {
    where.push(`created_by = ${param(filter.createdBy)}`);
    name.push('by');
  }
  if (filter.idPrefix !== undefined) {
    where.push(`id LIKE ${param(`${filter.idPrefix}%`)}`);
    name.push('id');
  }
  const conditions = where.join(' AND ');
  const sql = `
  SELECT c.${PAGE_TOTAL}, d.*
  FROM (SELECT count(*) AS ${PAGE_TOTAL} FROM deployments WHERE ${conditions}) c
  LEFT JOIN LATERAL (SELECT * FROM deployments WHERE ${conditions} ORDER BY version DESC LIMIT $2 OFFSET $3) d ON true
  ORDER BY d.version DESC`;
  return { name: name.join('_'), sql, extra };
}

/** Every query on `deployments` and their manifests (`deployment_files`). */
@Injectable()
export class DeploymentsRepository {
  private readonly hydrate = lazyHydrator(() => this.dataSource, Deployment);

  constructor(private readonly dataSource: DataSource) {}

  /** Newest version first, on UQ_deployments_project_version; hand-written and prepared (common/page-query.ts). */
  @GenerateSql(
    { params: (f) => [f.projectId, {}, 1, 20, new Date(0)] },
    { name: 'archived, id prefix', params: (f) => [f.projectId, { status: 'archived', idPrefix: 'dep_3kx' }, 1, 20, new Date(0)] },
    { name: 'expired, version', params: (f) => [f.projectId, { status: 'expired', version: 12 }, 1, 20, new Date(0)] },
    { name: 'deployed by', params: (f) => [f.projectId, { createdBy: 'tok_0123456789abcdefghijklmn' }, 1, 20, new Date(0)] },
  )
  async page(projectId: string, filter: DeploymentListFilter, page: number, limit: number, now: Date): Promise<{ entities: Deployment[]; total: number }> {
    const query = pageQuery(filter, now);
    const { rows, total } = await preparedPage(this.dataSource, query.name, query.sql, [projectId, limit, (page - 1) * limit, ...query.extra]);
    return { entities: rows.map(this.hydrate), total };
  }

  @GenerateSql({ params: (f) => [f.deploymentId, f.projectId] })
  findInProject(id: string, projectId: string, manager: EntityManager = this.dataSource.manager): Promise<Deployment | null> {
    return manager.getRepository(Deployment).findOneBy({ id, projectId });
  }

  /** The manifest, by path. */
  @GenerateSql({ params: (f) => [f.deploymentId] })
  files(deploymentId: string): Promise<DeploymentFile[]> {
    return this.dataSource.getRepository(DeploymentFile).find({ where: { deploymentId }, order: { path: 'ASC' } });
  }

  /** The deployment a preview label names, by version of a slug or by id, with its project. */
  @GenerateSql(
    { name: 'by version', params: (f) => [{ slug: f.projectSlug, version: 1 }] },
    { name: 'by id', params: (f) => [{ deploymentId: f.deploymentId }] },
  )
  async previewSite(target: PreviewTarget): Promise<PreviewRow | undefined> {
    const byVersion = 'version' in target;
    const rows: PreviewRow[] = await this.dataSource.query(
      `SELECT p.id, p.workspace_id, p.slug, p.name, p.type, p.gate_type, p.gate_version, p.password_hash,
              d.id AS deployment_id, d.version, d.status, d.expires_at, d.forms
       FROM deployments d JOIN projects p ON p.id = d.project_id
       WHERE ${byVersion ? 'p.slug = $1 AND d.version = $2' : 'd.id = $1'}`,
      byVersion ? [target.slug, target.version] : [target.deploymentId],
    );
    return rows[0];
  }

  /**
   * What earlier deploys found in these HTML blobs (html_form_scans, keyed by content):
   * a memo the deploy owns, so a redeploy parses only new HTML. The table's entity sits
   * in src/forms beside the forms it describes; deployments may not import forms (layers),
   * so it is queried here by name.
   */
  @GenerateSql({ params: () => [['0'.repeat(64)]] })
  async formScans(sha256s: string[]): Promise<Map<string, Omit<DeclaredForm, 'page'>[]>> {
    if (sha256s.length === 0) return new Map();
    const rows: { sha256: string; forms: Omit<DeclaredForm, 'page'>[] }[] = await this.dataSource.query(
      'SELECT sha256, forms FROM html_form_scans WHERE sha256 = ANY($1::text[])',
      [sha256s],
    );
    return new Map(rows.map((r) => [r.sha256, r.forms]));
  }

  /** Remembers scans (outside the deploy's transaction: a memo of content, right whether or not the deploy commits). */
  @GenerateSql({ inTransaction: true, params: (f) => [[{ sha256: '0'.repeat(64), forms: [] }], new Date(0), f.manager] })
  async saveFormScans(
    scans: { sha256: string; forms: Omit<DeclaredForm, 'page'>[] }[],
    now: Date,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<void> {
    if (scans.length === 0) return;
    await manager.query(
      `INSERT INTO html_form_scans (sha256, forms, scanned_at)
       SELECT sha256, forms, $3 FROM unnest($1::text[], $2::jsonb[]) AS s(sha256, forms)
       ON CONFLICT (sha256) DO NOTHING`,
      [scans.map((s) => s.sha256), scans.map((s) => JSON.stringify(s.forms)), now],
    );
  }

  /** A deployment's files for the router (read once per deployment: they never change). Prepared, as the site row's read (a cold load is these two). */
  @GenerateSql({ params: (f) => [f.deploymentId] })
  manifestRows(deploymentId: string): Promise<ManifestRow[]> {
    return preparedQuery<ManifestRow>(
      this.dataSource,
      'manifest_rows',
      'SELECT path, sha256, size, content_type FROM deployment_files WHERE deployment_id = $1',
      [deploymentId],
    );
  }

  /** Several deployments' files in one statement (the router's batched cold loads), each row with its deployment. */
  @GenerateSql({ params: (f) => [[f.deploymentId]] })
  manifestRowsOf(deploymentIds: string[]): Promise<DeploymentManifestRow[]> {
    return preparedQuery<DeploymentManifestRow>(
      this.dataSource,
      'manifest_rows_of',
      'SELECT deployment_id, path, sha256, size, content_type FROM deployment_files WHERE deployment_id = ANY($1::text[])',
      [deploymentIds],
    );
  }

  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, SNAPSHOT_DEPLOYMENT(f)] })
  async insert(manager: EntityManager, values: NewDeployment): Promise<Deployment> {
    const deployment = manager.getRepository(Deployment).create(values);
    await manager.getRepository(Deployment).insert(deployment);
    return deployment;
  }

  /** One statement for the whole manifest, however many files. */
  @GenerateSql({
    inTransaction: true,
    params: (f) => [f.manager, f.scratchDeploymentId, [{ path: 'snapshot.html', sha256: '0'.repeat(64), size: 1, contentType: 'text/html' }]],
  })
  async insertFiles(manager: EntityManager, deploymentId: string, files: ManifestEntry[]): Promise<void> {
    await manager.query(
      `INSERT INTO deployment_files (deployment_id, path, sha256, size, content_type)
       SELECT $1, * FROM unnest($2::text[], $3::text[], $4::bigint[], $5::text[])`,
      [deploymentId, files.map((x) => x.path), files.map((x) => x.sha256), files.map((x) => x.size), files.map((x) => x.contentType)],
    );
  }

  /** The previous live deployment steps down; an expired one stays expired. Its version when it did step down, else null. */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.scratchDeploymentId] })
  async archiveIfLive(manager: EntityManager, id: string): Promise<number | null> {
    const [rows]: [{ version: number }[], number] = await manager.query(
      `UPDATE deployments SET status = 'archived' WHERE id = $1 AND status = 'live' RETURNING version`,
      [id],
    );
    return rows[0]?.version ?? null;
  }

  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.scratchDeploymentId] })
  async markLive(manager: EntityManager, id: string): Promise<void> {
    await manager.query(`UPDATE deployments SET status = 'live' WHERE id = $1`, [id]);
  }

  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.scratchDeploymentId] })
  async markArchived(manager: EntityManager, id: string): Promise<void> {
    await manager.query(`UPDATE deployments SET status = 'archived' WHERE id = $1`, [id]);
  }

  /** Marks every deployment past its expiry as expired; returns each (with its project's slug, for the `deployment.archived` event). */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, new Date(0)] })
  async expireDue(manager: EntityManager, now: Date): Promise<ExpiredDeployment[]> {
    const [rows]: [ExpiredDeployment[], number] = await manager.query(
      `UPDATE deployments d SET status = 'expired'
       FROM projects p
       WHERE p.id = d.project_id AND d.status <> 'expired' AND d.expires_at IS NOT NULL AND d.expires_at <= $1
       RETURNING d.id, d.version, d.project_id AS "projectId", d.workspace_id AS "workspaceId", p.slug AS "projectSlug"`,
      [now],
    );
    return rows;
  }
}
