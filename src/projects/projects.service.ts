import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { AuditLogService, changedFields } from '../audit/audit-log.service';
import { badRequest, forbidden, notFound } from '../common/errors';
import { FreshReads } from '../common/fresh-read';
import { newId } from '../common/ids';
import { Paginated, paginated } from '../common/pagination';
import { hashPassword } from '../common/password-hash';
import { AppConfig } from '../config/app-config';
import { QuotaService } from '../quotas/quota.service';
import { customDomainChanges } from '../shared/custom-domain/custom-domain';
import type { DomainName } from '../shared/domain-name';
import { type Principal, workspaceOf } from '../shared/principal';
import { deriveSlug, type NewSlug, withRandomSuffix } from '../shared/slug';
import { DEFAULT_TTL, type Ttl } from '../shared/ttl';
import type { CreateProjectDto } from './dto/create-project.dto';
import type { ProjectSort, ProjectStatus } from './dto/list-projects.dto';
import type { UpdateProjectDto } from './dto/update-project.dto';
import type { GateType, Project, ProjectType } from './project.entity';
import { type ProjectView, projectView } from './project.view';
import { projectsError } from './projects.errors';
import { type LiveSummary, type ProjectListFilter, ProjectsRepository } from './projects.repository';
import { rememberSiteChange, SITE_CHANGED_CHANNEL } from './site-events';

export interface NewProject {
  name: string;
  slug: NewSlug;
  type: ProjectType;
  defaultTtl: Ttl;
  gateType: GateType;
  passwordHash: string | null;
}

/** POST /projects with its slug and default_ttl parsed (by the controller, where they enter). */
export type ProjectCreate = Omit<CreateProjectDto, 'slug' | 'default_ttl'> & { slug?: NewSlug; default_ttl?: Ttl };
/** PATCH /projects/:id with its default_ttl and custom_domain parsed (by the controller). */
export type ProjectUpdate = Omit<UpdateProjectDto, 'default_ttl' | 'custom_domain'> & { default_ttl?: Ttl; custom_domain?: DomainName | null };

/** GET /projects's query, validated (dto/list-projects.dto.ts). */
export interface ProjectListQuery {
  page: number;
  limit: number;
  search?: string;
  status?: ProjectStatus;
  sort?: ProjectSort;
}

const SLUG_ATTEMPTS = 5;

/** A project as the audit log names it. */
export function projectTarget(project: Pick<Project, 'id' | 'name'>) {
  return { type: 'project', id: project.id, label: project.name };
}

/** A derived slug, then variants with a short random suffix. */
function* candidateSlugs(base: NewSlug): Iterable<NewSlug> {
  yield base;
  for (let attempt = 1; attempt < SLUG_ATTEMPTS; attempt++) yield withRandomSuffix(base);
}

@Injectable()
export class ProjectsService {
  private readonly pages = new FreshReads<Paginated<ProjectView>>();

  constructor(
    private readonly projects: ProjectsRepository,
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly quotas: QuotaService,
    private readonly audit: AuditLogService,
  ) {}

  /** A project the principal may see: its workspace's, and only its own when the token is project-bound. */
  async findVisible(principal: Principal, projectId: string, manager?: EntityManager): Promise<Project> {
    const project = await this.projects.findInWorkspace(projectId, workspaceOf(principal), manager);
    if (!project || (principal.projectId && principal.projectId !== project.id)) throw notFound('Project', projectId);
    return project;
  }

  /**
   * A page of projects as the API shows them, narrowed and ordered as asked, with their
   * live deployments' version, size and age (read in the same query). Identical lists
   * asked for at the same time share one read and one mapping (common/fresh-read.ts): the
   * answer is read-only, and never older than the request. A project-bound token sees
   * its own project whatever the filter, or nothing.
   */
  list(principal: Principal, query: ProjectListQuery): Promise<Paginated<ProjectView>> {
    const workspaceId = workspaceOf(principal);
    const { page, limit, search, status, sort } = query;
    const filter: ProjectListFilter = { onlyProjectId: principal.projectId ?? undefined, search, status, sort };
    return this.pages.get(JSON.stringify([workspaceId, filter, page, limit]), async () => {
      const { entities, total, live } = await this.projects.page(workspaceId, filter, page, limit);
      return paginated(
        entities.map((p) => projectView(p, this.config, live)),
        total,
        page,
        limit,
      );
    });
  }

  /**
   * Version and size of these projects' live deployments, in one query (a list page of
   * 100 projects must not cost 100 lookups).
   */
  async liveSummaries(projects: Project[]): Promise<Map<string, LiveSummary>> {
    const ids = projects.map((p) => p.liveDeploymentId).filter((id): id is string => id !== null);
    if (ids.length === 0) return new Map();
    return this.projects.liveDeployments(ids);
  }

  async create(principal: Principal, dto: ProjectCreate): Promise<Project> {
    if (principal.projectId) throw forbidden('A project-bound token cannot create projects');
    const workspaceId = workspaceOf(principal);
    const fields: Omit<NewProject, 'slug'> = {
      name: dto.name.trim(),
      type: dto.type ?? 'static_file',
      defaultTtl: dto.default_ttl ?? DEFAULT_TTL,
      gateType: dto.gate_type ?? 'none',
      passwordHash: dto.password !== undefined ? await hashPassword(dto.password) : null,
    };
    if (fields.gateType === 'password' && !fields.passwordHash) {
      throw badRequest('password: required when gate_type is password');
    }
    // An omitted default_ttl is not refused: deploys shorten it to the plan's longest.
    if (dto.default_ttl !== undefined) await this.quotas.assertTtlAllowedFor(workspaceId, fields.defaultTtl, 'default_ttl');
    return this.dataSource.transaction(async (m) => {
      const project = await this.insertProject(m, workspaceId, fields, dto.slug);
      await this.audit.record(m, { workspaceId, action: 'project.created', target: projectTarget(project), changes: changedFields(dto) });
      return project;
    });
  }

  /**
   * Inserts a project from the create form. An explicit slug that is taken is a 409;
   * a derived one gets a short random suffix until it is free.
   */
  async insertProject(manager: EntityManager, workspaceId: string, fields: Omit<NewProject, 'slug'>, explicitSlug?: NewSlug): Promise<Project> {
    const base = explicitSlug ?? deriveSlug(fields.name);
    const project = await this.insertFirstFree(manager, workspaceId, fields, explicitSlug !== undefined ? [base] : candidateSlugs(base));
    if (project) return project;
    if (explicitSlug !== undefined) throw projectsError('slug_taken', `slug "${base}" is already taken`);
    throw projectsError('slug_taken', `could not find a free slug derived from "${base}"; choose a slug`);
  }

  /**
   * The project a lazy deploy to a new slug creates, with the create form's defaults.
   * Null when the slug was taken meanwhile (the insert waited for the taker's commit).
   */
  insertLazyProject(manager: EntityManager, workspaceId: string, slug: NewSlug, type?: ProjectType): Promise<Project | null> {
    const fields = { name: slug, type: type ?? 'static_file', defaultTtl: DEFAULT_TTL, gateType: 'none', passwordHash: null } as const;
    return this.insertFirstFree(manager, workspaceId, fields, [slug]);
  }

  /** The one way a project is created: the plan's slot, then the first free slug. */
  private async insertFirstFree(
    manager: EntityManager,
    workspaceId: string,
    fields: Omit<NewProject, 'slug'>,
    slugs: Iterable<NewSlug>,
  ): Promise<Project | null> {
    // 402 at the plan's project limit; locks the workspace so concurrent creates count one another.
    await this.quotas.assertProjectSlot(manager, workspaceId);
    for (const slug of slugs) {
      const id = newId('proj');
      if (await this.projects.insertIfSlugFree(manager, { id, workspaceId, slug, ...fields })) return this.projects.getById(manager, id);
    }
    return null;
  }

  /**
   * Announces, inside the caller's transaction, that what the project's site serves
   * changed (see site-events.ts): every instance drops its cached state on commit.
   */
  async notifySiteChanged(manager: EntityManager, projectId: string): Promise<void> {
    rememberSiteChange(manager, projectId, await this.projects.notifyAndReadNames(manager, SITE_CHANGED_CHANNEL, projectId));
  }

  /** Whether another project has verified `domain` (a custom domain is exclusive once verified). */
  domainVerifiedElsewhere(manager: EntityManager, domain: string, projectId: string): Promise<boolean> {
    return this.projects.domainVerifiedElsewhere(manager, domain, projectId);
  }

  async update(principal: Principal, projectId: string, dto: ProjectUpdate): Promise<Project> {
    const passwordHash = dto.password !== undefined ? await hashPassword(dto.password) : undefined;
    return this.dataSource.transaction(async (m) => {
      const visible = await this.findVisible(principal, projectId, m);
      // Every change is decided from the row as it stands under the lock: another PATCH may have
      // committed while this one waited (a domain detached, the gate's version bumped).
      const project = await this.projects.lock(m, visible.id);
      if (!project) throw notFound('Project', projectId);
      const changes: Partial<Project> = {};
      if (dto.name !== undefined) changes.name = dto.name.trim();
      if (dto.default_ttl !== undefined) {
        changes.defaultTtl = dto.default_ttl;
        await this.quotas.assertTtlAllowedFor(project.workspaceId, changes.defaultTtl, 'default_ttl', m);
      }
      let gateChanged = false;
      if (passwordHash !== undefined) {
        changes.passwordHash = passwordHash;
        gateChanged = true;
      }
      if (dto.gate_type !== undefined && dto.gate_type !== project.gateType) {
        if (dto.gate_type === 'password' && !(passwordHash ?? project.passwordHash)) {
          throw badRequest('password: required when setting gate_type to password (no password is set yet)');
        }
        changes.gateType = dto.gate_type;
        gateChanged = true;
      }
      // Normalised and validated by src/domains; a new name starts pending, null detaches.
      if (dto.custom_domain !== undefined) Object.assign(changes, customDomainChanges(dto.custom_domain, project));
      if (gateChanged) changes.gateVersion = project.gateVersion + 1;
      // Every accepted PATCH is recorded, a no-op one too: what was asked is what a reviewer reads.
      await this.audit.record(m, {
        workspaceId: project.workspaceId,
        action: 'project.updated',
        target: projectTarget(project),
        changes: changedFields(dto),
      });
      if (Object.keys(changes).length === 0) return project;
      // Before the write, so the names the site had (an old custom domain) are purged too.
      await this.notifySiteChanged(m, project.id);
      // Only a verified name is exclusive; one another project is still waiting on can be attached
      // here too, and whoever the domain's DNS names verifies it.
      if (changes.customDomain && (await this.projects.domainVerifiedElsewhere(m, changes.customDomain, project.id))) throw domainTaken(changes.customDomain);
      await this.projects.update(m, project.id, changes);
      return this.projects.getById(m, project.id);
    });
  }

  async remove(principal: Principal, projectId: string): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      const project = await this.findVisible(principal, projectId, m);
      await this.notifySiteChanged(m, project.id); // while the project still has its names
      await this.projects.delete(m, project.id);
      await this.audit.record(m, { workspaceId: project.workspaceId, action: 'project.deleted', target: projectTarget(project) });
    });
  }
}

/** 409 for a custom domain another project has verified. */
export function domainTaken(domain: string) {
  return projectsError('domain_taken', `custom_domain "${domain}" is already verified by another project; its DNS names that project's token`);
}
