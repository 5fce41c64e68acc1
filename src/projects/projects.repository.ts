import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { likeContaining } from '../common/list-search';
import { PAGE_TOTAL, preparedPage } from '../common/page-query';
import { GenerateSql } from '../database/generate-sql';
import { lazyHydrator } from '../database/hydrate';
import { preparedQuery } from '../database/prepared-query';
import type { DeclaredForm } from '../shared/forms/declared-form';
import type { NewSlug } from '../shared/slug';
import { DEFAULT_TTL } from '../shared/ttl';
import type { ProjectSort, ProjectStatus } from './dto/list-projects.dto';
import { Project } from './project.entity';

/** A live deployment's version and size, keyed by its id (the dashboard's project list). */
export interface LiveSummary {
  version: number;
  sizeBytes: number;
  /** When the live deployment was made: the age the list shows. */
  createdAt: Date;
}

/** What the site router needs of a project and its live deployment (sites/site-cache.service.ts). */
export interface SiteRow {
  id: string;
  /** Whose plan the site's bandwidth counts against (the spend cap's pause). */
  workspace_id: string;
  slug: string;
  name: string;
  type: Project['type'];
  gate_type: Project['gateType'];
  gate_version: number;
  password_hash: string | null;
  live_deployment_id: string | null;
  status: string | null;
  expires_at: Date | null;
  /**
   * The deployment's declared forms (issue 30), read with the row: a cold load then
   * needs one more query (the manifest), not two. Null without a live deployment.
   */
  forms: DeclaredForm[] | null;
}

/** The router's read path, tuned: one statement, only the columns it serves from (named: some are prepared). */
function siteQuery(where: string): string {
  return `SELECT p.id, p.workspace_id, p.slug, p.name, p.type, p.gate_type, p.gate_version, p.password_hash, p.live_deployment_id,
              d.status, d.expires_at, d.forms
       FROM projects p LEFT JOIN deployments d ON d.id = p.live_deployment_id
       WHERE ${where}`;
}

const SITE_BY_SLUG = siteQuery('p.slug = $1');
const SITES_BY_SLUGS = siteQuery('p.slug = ANY($1::text[])');

/** A project's names at one point of a transaction (null when it does not exist). */
export interface ProjectNames {
  slug: string | null;
  custom_domain: string | null;
}

/** ProjectNames and the backend that sent the notice (PostgreSQL names it in the delivery). */
export interface NotifiedNames extends ProjectNames {
  backend_pid: number;
}

/** A new project's row: its slug one a new project may take (parsed or derived, never raw text). */
export type NewProjectRow = Pick<Project, 'id' | 'workspaceId' | 'name' | 'type' | 'defaultTtl' | 'gateType' | 'passwordHash'> & { slug: NewSlug };

const SNAPSHOT_PROJECT = {
  id: 'proj_sqlsnapshot00000000000000',
  name: 'snapshot',
  type: 'static_file' as const,
  defaultTtl: DEFAULT_TTL,
  gateType: 'none' as const,
  passwordHash: null,
};

/** What narrows and orders a page of the project list (GET /projects). */
export interface ProjectListFilter {
  /** A project-bound token's project: the list is that project or nothing. */
  onlyProjectId?: string;
  /** Trimmed text matched anywhere in name, slug or custom domain, case-insensitively. */
  search?: string;
  status?: ProjectStatus;
  sort?: ProjectSort;
}

/**
 * Each order twice: inside the page (on the joined tables) and outside it (on the page's
 * columns, as the lateral returns them). `id` breaks ties so pages never overlap.
 * `lower(name)` is the order a reader expects of names ("apple" before "Banana") and is
 * what IDX_projects_workspace_name holds.
 */
const ORDERS: Record<ProjectSort | 'created', { inner: string; outer: string }> = {
  created: { inner: 'p.created_at DESC, p.id DESC', outer: 'p.created_at DESC, p.id DESC' },
  name: { inner: 'lower(p.name) ASC, p.id ASC', outer: 'lower(p.name) ASC, p.id ASC' },
  '-name': { inner: 'lower(p.name) DESC, p.id DESC', outer: 'lower(p.name) DESC, p.id DESC' },
  lastDeploy: { inner: 'd.created_at ASC NULLS LAST, p.id ASC', outer: 'p.live_created_at ASC NULLS LAST, p.id ASC' },
  '-lastDeploy': { inner: 'd.created_at DESC NULLS LAST, p.id DESC', outer: 'p.live_created_at DESC NULLS LAST, p.id DESC' },
};

const LIVE_JOIN = ' LEFT JOIN deployments d ON d.id = p.live_deployment_id';
const SERVED = `coalesce(d.status <> 'expired' AND (d.expires_at IS NULL OR d.expires_at > now()), false)`;

/**
 * The project list page (see `page`): the total and one page in one statement, by
 * IDX_projects_workspace_created (default order) or IDX_projects_workspace_name (by name).
 * `$1` workspace, `$2` limit, `$3` offset; further parameters only for the filters used,
 * so each combination is its own prepared statement with its own plan.
 */
function pageQuery(filter: ProjectListFilter): { name: string; sql: string; extra: unknown[] } {
  const where = ['p.workspace_id = $1'];
  const extra: unknown[] = [];
  const name = ['projects_page'];
  if (filter.onlyProjectId !== undefined) {
    extra.push(filter.onlyProjectId);
    where.push(`p.id = $${3 + extra.length}`);
    name.push('bound');
  }
  if (filter.search !== undefined) {
    extra.push(likeContaining(filter.search));
    const n = `$${3 + extra.length}`;
    where.push(`(p.name ILIKE ${n} OR p.slug ILIKE ${n} OR p.custom_domain ILIKE ${n})`);
    name.push('search');
  }
  if (filter.status !== undefined) {
    // Served means what the router serves: a live pointer to a deployment not yet expired
    // (the sweeper marks expiry late; `expires_at` is the truth, as in effectiveStatus).
    where.push(`${filter.status === 'live' ? '' : 'NOT '}${SERVED}`);
    name.push(filter.status);
  }
  const sort = filter.sort ?? 'created';
  const order = ORDERS[sort];
  if (sort !== 'created') name.push(sort.replace('-', 'desc_'));
  const conditions = where.join(' AND ');
  const sql = `
  SELECT c.${PAGE_TOTAL}, p.*
  FROM (SELECT count(*) AS ${PAGE_TOTAL} FROM projects p${filter.status !== undefined ? LIVE_JOIN : ''} WHERE ${conditions}) c
  LEFT JOIN LATERAL (
    SELECT p.*, d.version AS live_version, d.size_bytes AS live_size_bytes, d.created_at AS live_created_at
    FROM projects p${LIVE_JOIN}
    WHERE ${conditions}
    ORDER BY ${order.inner} LIMIT $2 OFFSET $3
  ) p ON true
  ORDER BY ${order.outer}`;
  return { name: name.join('_'), sql, extra };
}

const IN_WORKSPACE = 'SELECT * FROM projects WHERE id = $1 AND workspace_id = $2';

@Injectable()
export class ProjectsRepository {
  private readonly hydrate = lazyHydrator(() => this.dataSource, Project);

  constructor(private readonly dataSource: DataSource) {}

  /** Prepared: nearly every project route starts here (ProjectsService.findVisible). */
  @GenerateSql({ params: (f) => [f.projectId, f.workspaceId] })
  async findInWorkspace(id: string, workspaceId: string, manager?: EntityManager): Promise<Project | null> {
    const [row] = await preparedQuery<Record<string, unknown>>(this.dataSource, 'projects_in_workspace', IN_WORKSPACE, [id, workspaceId], manager);
    return row ? this.hydrate(row) : null;
  }

  /** Slugs are global: the project may be another workspace's. */
  @GenerateSql({ params: (f) => [f.projectSlug] })
  findBySlug(slug: string, manager: EntityManager = this.dataSource.manager): Promise<Project | null> {
    return manager.getRepository(Project).findOneBy({ slug });
  }

  /**
   * The site at `<slug>.<SITES_DOMAIN>`, with its live deployment's status. Prepared: every
   * site a cold instance serves starts here (the router's cold load, issue 35).
   */
  @GenerateSql({ params: (f) => [f.projectSlug] })
  async siteBySlug(slug: string): Promise<SiteRow | undefined> {
    const [row] = await preparedQuery<SiteRow>(this.dataSource, 'site_by_slug', SITE_BY_SLUG, [slug]);
    return row;
  }

  /** The sites of several slugs in one statement (the router's batched cold loads); slugs without a project have no row. */
  @GenerateSql({ params: (f) => [[f.projectSlug, 'no-such-slug']] })
  sitesBySlugs(slugs: string[]): Promise<SiteRow[]> {
    return preparedQuery<SiteRow>(this.dataSource, 'sites_by_slugs', SITES_BY_SLUGS, [slugs]);
  }

  /** The site at a custom domain: pending and failed domains are not served. */
  @GenerateSql({ params: () => ['www.example.com'] })
  async siteByVerifiedDomain(host: string): Promise<SiteRow | undefined> {
    const rows: SiteRow[] = await this.dataSource.query(siteQuery(`p.custom_domain = $1 AND p.domain_status = 'verified'`), [host]);
    return rows[0];
  }

  /** Whether another project has verified `domain` (it is exclusive once verified). */
  @GenerateSql({ params: (f) => [f.manager, 'www.example.com', f.projectId] })
  async domainVerifiedElsewhere(manager: EntityManager, domain: string, projectId: string): Promise<boolean> {
    const rows: unknown[] = await manager.query(`SELECT 1 FROM projects WHERE custom_domain = $1 AND domain_status = 'verified' AND id <> $2`, [
      domain,
      projectId,
    ]);
    return rows.length > 0;
  }

  /** A project never changes workspace: callers may cache this. */
  @GenerateSql({ params: (f) => [f.projectId] })
  async workspaceIdOf(id: string): Promise<string | undefined> {
    const rows: { workspace_id: string }[] = await this.dataSource.query('SELECT workspace_id FROM projects WHERE id = $1', [id]);
    return rows[0]?.workspace_id;
  }

  @GenerateSql({ params: (f) => [f.manager, f.projectId] })
  getById(manager: EntityManager, id: string): Promise<Project> {
    return manager.getRepository(Project).findOneByOrFail({ id });
  }

  /** Locks the row for the rest of the transaction and reads it as it is once locked. */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.projectId] })
  lock(manager: EntityManager, id: string): Promise<Project | null> {
    return manager.getRepository(Project).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
  }

  /**
   * A page of the workspace's projects, narrowed and ordered by `filter`, with the exact
   * total of the narrowed list. The live deployment's version, size and creation time ride
   * along (one round trip for the list page): the live pointer is this module's column, and
   * the deployments module depends on this one.
   * Hand-written and prepared: the list is the dashboard's hottest read (common/page-query.ts).
   */
  @GenerateSql(
    { name: 'workspace', params: (f) => [f.workspaceId, {}, 1, 20] },
    { name: 'project-bound', params: (f) => [f.workspaceId, { onlyProjectId: f.projectId }, 1, 20] },
    { name: 'search, live, by name', params: (f) => [f.workspaceId, { search: '50%_off', status: 'live', sort: 'name' }, 1, 20] },
    { name: 'none, newest deploy first', params: (f) => [f.workspaceId, { status: 'none', sort: '-lastDeploy' }, 1, 20] },
  )
  async page(workspaceId: string, filter: ProjectListFilter, page: number, limit: number) {
    const query = pageQuery(filter);
    const { rows, total } = await preparedPage(this.dataSource, query.name, query.sql, [workspaceId, limit, (page - 1) * limit, ...query.extra]);
    const live = new Map<string, LiveSummary>();
    for (const row of rows) {
      const id = row.live_deployment_id as string | null;
      if (id && row.live_version !== null) {
        live.set(id, { version: Number(row.live_version), sizeBytes: Number(row.live_size_bytes), createdAt: row.live_created_at as Date });
      }
    }
    return { entities: rows.map(this.hydrate), total, live };
  }

  /**
   * Version and size of live deployments, by primary key. The one read of the deployments
   * table here: the live pointer is this module's column, and the deployments module
   * depends on this one, not the other way round.
   */
  @GenerateSql({ params: (f) => [[f.deploymentId]] })
  async liveDeployments(ids: string[]): Promise<Map<string, LiveSummary>> {
    const rows: { id: string; version: number; size_bytes: string; created_at: Date }[] = await this.dataSource.query(
      'SELECT id, version, size_bytes, created_at FROM deployments WHERE id = ANY($1)',
      [ids],
    );
    return new Map(rows.map((r) => [r.id, { version: r.version, sizeBytes: Number(r.size_bytes), createdAt: r.created_at }]));
  }

  /** Inserts the project unless its slug is taken (then waits for the taker's commit and returns false). */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, { ...SNAPSHOT_PROJECT, workspaceId: f.workspaceId, slug: f.projectSlug }] })
  async insertIfSlugFree(manager: EntityManager, values: NewProjectRow): Promise<boolean> {
    const inserted = await manager.createQueryBuilder().insert().into(Project).values(values).orIgnore().returning(['id']).execute();
    return inserted.raw.length > 0;
  }

  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.scratchProjectId, { name: 'renamed' }] })
  async update(manager: EntityManager, id: string, changes: Partial<Project>): Promise<void> {
    await manager.getRepository(Project).update({ id }, changes);
  }

  /** Deletes the project; its deployments and leads go with it (foreign keys cascade). */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.scratchProjectId] })
  async delete(manager: EntityManager, id: string): Promise<void> {
    await manager.getRepository(Project).delete({ id });
  }

  /**
   * Sends the site-change notice (delivered by PostgreSQL on commit) and reads the
   * project's names as they are at this point of the transaction, in one round trip:
   * a change that renames or deletes the project must still purge the names it had.
   * The backend's pid lets this instance tell its own notice when it comes back.
   */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, 'statichost_sql_snapshot', f.projectId] })
  async notifyAndReadNames(manager: EntityManager, channel: string, projectId: string): Promise<NotifiedNames> {
    const [row] = (await manager.query(
      // The custom domain only once verified: a pending claim may name a domain another project serves (whose CDN the purge webhook would flush).
      `SELECT pg_notify($1, $2), pg_backend_pid() AS backend_pid, p.slug, CASE WHEN p.domain_status = 'verified' THEN p.custom_domain END AS custom_domain
         FROM (SELECT 1) one LEFT JOIN projects p ON p.id = $2`,
      [channel, projectId],
    )) as NotifiedNames[];
    return row;
  }

  /**
   * The next version number of a deployment of the project. The row lock it takes
   * serialises deploys of one project: versions are dense and unique. Undefined when
   * the project is gone.
   */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.scratchProjectId] })
  async nextVersion(manager: EntityManager, id: string): Promise<{ last_version: number; live_deployment_id: string | null } | undefined> {
    // TypeORM answers an UPDATE with [rows, rowCount].
    const [[bumped]]: [{ last_version: number; live_deployment_id: string | null }[], number] = await manager.query(
      'UPDATE projects SET last_version = last_version + 1 WHERE id = $1 RETURNING last_version, live_deployment_id',
      [id],
    );
    return bumped;
  }

  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.scratchProjectId, f.scratchDeploymentId, new Date(0)] })
  async setLiveDeployment(manager: EntityManager, projectId: string, deploymentId: string, now: Date): Promise<void> {
    await manager.query('UPDATE projects SET live_deployment_id = $1, updated_at = $2 WHERE id = $3', [deploymentId, now, projectId]);
  }

  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.scratchProjectId, new Date(0)] })
  async clearLiveDeployment(manager: EntityManager, projectId: string, now: Date): Promise<void> {
    await manager.query('UPDATE projects SET live_deployment_id = NULL, updated_at = $1 WHERE id = $2', [now, projectId]);
  }
}
