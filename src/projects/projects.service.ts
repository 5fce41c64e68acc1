import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import type { Principal } from '../auth/principal';
import { QuotaService } from '../billing/quota.service';
import { uniqueViolation } from '../common/db-errors';
import { badRequest, forbidden, notFound } from '../common/errors';
import { newId } from '../common/ids';
import { pageWithTotal } from '../common/page-query';
import { Paginated, paginated } from '../common/pagination';
import { hashPassword } from '../common/password-hash';
import { AppConfig } from '../config/app-config';
import { customDomainChanges } from '../domains/custom-domain';
import { InvalidTtlError, parseTtl } from '../deployments/ttl';
import { CreateProjectDto } from './dto/create-project.dto';
import { UpdateProjectDto } from './dto/update-project.dto';
import { GateType, Project, ProjectType } from './project.entity';
import type { LiveSummary } from './project.view';
import { notifySiteChanged } from './site-events';
import { deriveSlug, newSlugProblem, withRandomSuffix } from './slug';
import { projectsError } from './projects.errors';

export interface NewProject {
  name: string;
  slug: string;
  type: ProjectType;
  defaultTtl: string;
  gateType: GateType;
  passwordHash: string | null;
}

const SLUG_ATTEMPTS = 5;

export function checkTtl(value: string, field: string): string {
  try {
    return parseTtl(value, field).text;
  } catch (err) {
    if (err instanceof InvalidTtlError) throw badRequest(err.message);
    throw err;
  }
}

/** The workspace a principal acts in; routes that reach here always have one. */
export function workspaceOf(principal: Principal): string {
  if (!principal.workspaceId) throw badRequest('X-Workspace-Id header is required');
  return principal.workspaceId;
}

@Injectable()
export class ProjectsService {
  constructor(
    @InjectRepository(Project) private readonly projects: Repository<Project>,
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly quotas: QuotaService,
  ) {}

  /** A project the principal may see: its workspace's, and only its own when the token is project-bound. */
  async findVisible(principal: Principal, projectId: string, manager?: EntityManager): Promise<Project> {
    const repo = manager ? manager.getRepository(Project) : this.projects;
    const project = await repo.findOneBy({ id: projectId, workspaceId: workspaceOf(principal) });
    if (!project || (principal.projectId && principal.projectId !== project.id)) throw notFound('Project', projectId);
    return project;
  }

  async list(principal: Principal, page: number, limit: number): Promise<Paginated<Project>> {
    const query = this.projects.createQueryBuilder('p').where('p.workspaceId = :workspaceId', { workspaceId: workspaceOf(principal) });
    if (principal.projectId) query.andWhere('p.id = :projectId', { projectId: principal.projectId });
    const { entities, total } = await pageWithTotal(query.orderBy('p.createdAt', 'DESC').addOrderBy('p.id', 'ASC'), page, limit);
    return paginated(entities, total, page, limit);
  }

  /**
   * Version and size of these projects' live deployments, in one query (a list page of
   * 100 projects must not cost 100 lookups). Read-only, by primary key, on the
   * deployments table: the live pointer is the projects module's own column.
   */
  async liveSummaries(projects: Project[]): Promise<Map<string, LiveSummary>> {
    const ids = projects.map((p) => p.liveDeploymentId).filter((id): id is string => id !== null);
    if (ids.length === 0) return new Map();
    const rows: { id: string; version: number; size_bytes: string }[] = await this.dataSource.query(
      'SELECT id, version, size_bytes FROM deployments WHERE id = ANY($1)',
      [ids],
    );
    return new Map(rows.map((r) => [r.id, { version: r.version, sizeBytes: Number(r.size_bytes) }]));
  }

  async create(principal: Principal, dto: CreateProjectDto): Promise<Project> {
    if (principal.projectId) throw forbidden('A project-bound token cannot create projects');
    const workspaceId = workspaceOf(principal);
    if (dto.slug !== undefined) {
      const problem = newSlugProblem(dto.slug);
      if (problem) throw projectsError('invalid_slug', `slug: ${problem}`);
    }
    const fields: Omit<NewProject, 'slug'> = {
      name: dto.name.trim(),
      type: dto.type ?? 'static_file',
      defaultTtl: checkTtl(dto.default_ttl ?? '7d', 'default_ttl'),
      gateType: dto.gate_type ?? 'none',
      passwordHash: dto.password !== undefined ? await hashPassword(dto.password) : null,
    };
    if (fields.gateType === 'password' && !fields.passwordHash) {
      throw badRequest('password: required when gate_type is password');
    }
    // An omitted default_ttl is not refused: deploys shorten it to the plan's longest.
    if (dto.default_ttl !== undefined) await this.quotas.assertTtlAllowedFor(workspaceId, fields.defaultTtl, 'default_ttl');
    return this.dataSource.transaction((m) => this.insertProject(m, workspaceId, fields, dto.slug));
  }

  /**
   * Inserts a project. An explicit slug that is taken is a 409; a derived one
   * gets a short random suffix until it is free.
   */
  async insertProject(manager: EntityManager, workspaceId: string, fields: Omit<NewProject, 'slug'>, explicitSlug?: string): Promise<Project> {
    // 402 at the plan's project limit; locks the workspace so concurrent creates count one another.
    await this.quotas.assertProjectSlot(manager, workspaceId);
    const base = explicitSlug ?? deriveSlug(fields.name);
    for (let attempt = 0; attempt < SLUG_ATTEMPTS; attempt++) {
      const slug = explicitSlug ?? (attempt === 0 ? base : withRandomSuffix(base));
      const id = newId('proj');
      const inserted = await manager
        .createQueryBuilder()
        .insert()
        .into(Project)
        .values({ id, workspaceId, slug, ...fields })
        .orIgnore()
        .returning(['id'])
        .execute();
      if (inserted.raw.length > 0) return manager.getRepository(Project).findOneByOrFail({ id });
      if (explicitSlug) throw projectsError('slug_taken', `slug "${slug}" is already taken`);
    }
    throw projectsError('slug_taken', `could not find a free slug derived from "${base}"; choose a slug`);
  }

  async update(principal: Principal, projectId: string, dto: UpdateProjectDto): Promise<Project> {
    const passwordHash = dto.password !== undefined ? await hashPassword(dto.password) : undefined;
    return this.dataSource.transaction(async (m) => {
      const project = await this.findVisible(principal, projectId, m);
      await m.getRepository(Project).findOne({ where: { id: project.id }, lock: { mode: 'pessimistic_write' } });
      const changes: Partial<Project> = {};
      if (dto.name !== undefined) changes.name = dto.name.trim();
      if (dto.default_ttl !== undefined) {
        changes.defaultTtl = checkTtl(dto.default_ttl, 'default_ttl');
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
      if (dto.custom_domain !== undefined) Object.assign(changes, customDomainChanges(dto.custom_domain, project, this.config));
      if (gateChanged) changes.gateVersion = project.gateVersion + 1;
      if (Object.keys(changes).length === 0) return project;
      // Before the write, so the names the site had (an old custom domain) are purged too.
      await notifySiteChanged(m, project.id);
      try {
        await m.getRepository(Project).update({ id: project.id }, changes);
      } catch (err) {
        if (uniqueViolation(err) === 'UQ_projects_custom_domain') {
          throw projectsError('domain_taken', `custom_domain "${changes.customDomain}" is already attached to a project`);
        }
        throw err;
      }
      return m.getRepository(Project).findOneByOrFail({ id: project.id });
    });
  }

  async remove(principal: Principal, projectId: string): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      const project = await this.findVisible(principal, projectId, m);
      await notifySiteChanged(m, project.id); // while the project still has its names
      await m.getRepository(Project).delete({ id: project.id });
    });
  }
}
