import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { AuditLogService } from '../audit/audit-log.service';
import { notFound } from '../common/errors';
import { FreshReads } from '../common/fresh-read';
import { Paginated, paginated } from '../common/pagination';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { EventBus } from '../events/event-bus';
import type { Project } from '../projects/project.entity';
import { ProjectsRepository } from '../projects/projects.repository';
import { ProjectsService } from '../projects/projects.service';
import type { Principal } from '../shared/principal';
import type { Deployment, DeploymentStatus } from './deployment.entity';
import { deploymentTarget, type DeploymentView, effectiveStatus, projectDeploymentView } from './deployment.view';
import { searchFilter } from './deployment-search';
import { deploymentsError } from './deployments.errors';
import { DeploymentsRepository } from './deployments.repository';

export interface DeploymentListQuery {
  page: number;
  limit: number;
  status?: DeploymentStatus;
  /** Trimmed, non-empty (ListDeploymentsQueryDto). */
  search?: string;
}

/** Reading deployments and moving the live pointer (deploy, promote = rollback, archive). */
@Injectable()
export class DeploymentsService {
  private readonly pages = new FreshReads<Paginated<DeploymentView>>();

  constructor(
    private readonly deployments: DeploymentsRepository,
    private readonly projectRows: ProjectsRepository,
    private readonly projects: ProjectsService,
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly events: EventBus,
    private readonly audit: AuditLogService,
  ) {}

  /**
   * A page of the project's deployments, as the API shows them, narrowed by status and
   * search. Identical pages asked for at the same time share one read and one mapping (as
   * ProjectsService.list).
   */
  list(principal: Principal, projectId: string, query: DeploymentListQuery): Promise<Paginated<DeploymentView>> {
    const { page, limit, status, search } = query;
    // JSON, not a joined string: a path parameter may hold any character, a separator too.
    const key = JSON.stringify([principal.workspaceId, principal.projectId, projectId, page, limit, status ?? null, search ?? null]);
    return this.pages.get(key, async () => {
      const project = await this.projects.findVisible(principal, projectId);
      const filter = searchFilter(search);
      const now = this.clock.now();
      // A text that can name no deployment (a version past the column's range, a character no id has) matches nothing.
      const { entities, total } = filter ? await this.deployments.page(project.id, { ...filter, status }, page, limit, now) : { entities: [], total: 0 };
      return paginated(
        entities.map((d) => projectDeploymentView(this.config, project, d, now)),
        total,
        page,
        limit,
      );
    });
  }

  async get(principal: Principal, projectId: string, deploymentId: string) {
    const project = await this.projects.findVisible(principal, projectId);
    const deployment = await this.deployments.findInProject(deploymentId, project.id);
    if (!deployment) throw notFound('Deployment', deploymentId);
    const files = await this.deployments.files(deployment.id);
    return { project, deployment, files };
  }

  /** Makes a live or archived deployment the live one again; no file is copied. */
  async promote(principal: Principal, projectId: string, deploymentId: string) {
    return this.dataSource.transaction(async (m) => {
      const { project, deployment } = await this.lockForChange(m, principal, projectId, deploymentId);
      if (effectiveStatus(deployment, this.clock.now()) === 'expired') {
        throw deploymentsError('deployment_expired', `deployment ${deployment.id} has expired and cannot be promoted`);
      }
      if (project.liveDeploymentId !== deployment.id) {
        const previousDeploymentId = project.liveDeploymentId;
        await this.makeLive(m, project, deployment, this.clock.now());
        await this.events.emit(m, {
          type: 'deployment.promoted',
          workspaceId: project.workspaceId,
          timestamp: this.clock.now(),
          data: {
            projectId: project.id,
            projectSlug: project.slug,
            deploymentId: deployment.id,
            version: deployment.version,
            url: this.config.siteUrl(project.slug),
            previousDeploymentId,
          },
        });
      }
      await this.audit.record(m, { workspaceId: project.workspaceId, action: 'deployment.promoted', target: deploymentTarget(project, deployment) });
      return { project, deployment };
    });
  }

  /**
   * The one way a deployment becomes the live one (a deploy that publishes, a promote):
   * the previous live one is archived, the project points at this one, and every
   * instance is told. Inside a transaction that locked the project row (deploys and
   * promotes of one project serialise there); `project.liveDeploymentId` is the
   * pointer as read under that lock.
   */
  async makeLive(
    m: EntityManager,
    project: Pick<Project, 'id' | 'slug' | 'workspaceId' | 'liveDeploymentId'>,
    deployment: Deployment,
    now: Date,
  ): Promise<void> {
    const previous = project.liveDeploymentId;
    if (previous && previous !== deployment.id) {
      const version = await this.deployments.archiveIfLive(m, previous);
      // Null when the pointer named one that had already expired: it did not step down now.
      if (version !== null) {
        await this.events.emit(m, {
          type: 'deployment.archived',
          workspaceId: project.workspaceId,
          timestamp: now,
          data: { projectId: project.id, projectSlug: project.slug, deploymentId: previous, version, reason: 'replaced' },
        });
      }
    }
    // A deploy inserts its deployment already live; a promoted one is archived until now.
    if (deployment.status !== 'live') {
      await this.deployments.markLive(m, deployment.id);
      deployment.status = 'live';
    }
    await this.projectRows.setLiveDeployment(m, project.id, deployment.id, now);
    await this.projects.notifySiteChanged(m, project.id);
  }

  /** Archives a deployment; archiving the live one takes the site offline until the next deploy or promote. */
  async archive(principal: Principal, projectId: string, deploymentId: string) {
    return this.dataSource.transaction(async (m) => {
      const { project, deployment } = await this.lockForChange(m, principal, projectId, deploymentId);
      if (effectiveStatus(deployment, this.clock.now()) === 'expired') {
        throw deploymentsError('deployment_expired', `deployment ${deployment.id} has expired; there is nothing to archive`);
      }
      if (deployment.status !== 'archived') {
        await this.deployments.markArchived(m, deployment.id);
        deployment.status = 'archived';
        await this.events.emit(m, {
          type: 'deployment.archived',
          workspaceId: project.workspaceId,
          timestamp: this.clock.now(),
          data: { projectId: project.id, projectSlug: project.slug, deploymentId: deployment.id, version: deployment.version, reason: 'archived' },
        });
      }
      if (project.liveDeploymentId === deployment.id) {
        await this.projectRows.clearLiveDeployment(m, project.id, this.clock.now());
        await this.projects.notifySiteChanged(m, project.id);
      }
      await this.audit.record(m, { workspaceId: project.workspaceId, action: 'deployment.archived', target: deploymentTarget(project, deployment) });
      return { project, deployment };
    });
  }

  /** Locks the project row first (the same order as a deploy) so pointer changes serialise. */
  private async lockForChange(m: EntityManager, principal: Principal, projectId: string, deploymentId: string) {
    const visible = await this.projects.findVisible(principal, projectId, m);
    const project = await this.projectRows.lock(m, visible.id);
    // Deleted between the two reads: as if it had never been there.
    if (!project) throw notFound('Project', projectId);
    const deployment = await this.deployments.findInProject(deploymentId, project.id, m);
    if (!deployment) throw notFound('Deployment', deploymentId);
    return { project, deployment };
  }
}
