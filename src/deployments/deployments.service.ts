import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import type { Principal } from '../auth/principal';
import { conflict, notFound } from '../common/errors';
import { pageWithTotal } from '../common/page-query';
import { Paginated, paginated } from '../common/pagination';
import { Clock } from '../common/time';
import { Project } from '../projects/project.entity';
import { ProjectsService } from '../projects/projects.service';
import { Deployment } from './deployment.entity';
import { DeploymentFile } from './deployment-file.entity';
import { effectiveStatus } from './deployment.view';

/** Reading deployments and moving the live pointer (promote = rollback, archive). */
@Injectable()
export class DeploymentsService {
  constructor(
    @InjectRepository(Deployment) private readonly deployments: Repository<Deployment>,
    @InjectRepository(DeploymentFile) private readonly files: Repository<DeploymentFile>,
    private readonly projects: ProjectsService,
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {}

  async list(principal: Principal, projectId: string, page: number, limit: number): Promise<{ project: Project; page: Paginated<Deployment> }> {
    const project = await this.projects.findVisible(principal, projectId);
    const query = this.deployments.createQueryBuilder('d').where('d.projectId = :projectId', { projectId: project.id }).orderBy('d.version', 'DESC');
    const { entities, total } = await pageWithTotal(query, page, limit);
    return { project, page: paginated(entities, total, page, limit) };
  }

  async get(principal: Principal, projectId: string, deploymentId: string) {
    const project = await this.projects.findVisible(principal, projectId);
    const deployment = await this.deployments.findOneBy({ id: deploymentId, projectId: project.id });
    if (!deployment) throw notFound('Deployment', deploymentId);
    const files = await this.files.find({ where: { deploymentId: deployment.id }, order: { path: 'ASC' } });
    return { project, deployment, files };
  }

  /** Makes a live or archived deployment the live one again; no file is copied. */
  async promote(principal: Principal, projectId: string, deploymentId: string) {
    return this.dataSource.transaction(async (m) => {
      const { project, deployment } = await this.lockForChange(m, principal, projectId, deploymentId);
      if (effectiveStatus(deployment, this.clock.now()) === 'expired') {
        throw conflict(`deployment ${deployment.id} has expired and cannot be promoted`, 'deployment_expired');
      }
      if (project.liveDeploymentId !== deployment.id) {
        if (project.liveDeploymentId) {
          await m.query(`UPDATE deployments SET status = 'archived' WHERE id = $1 AND status = 'live'`, [project.liveDeploymentId]);
        }
        await m.query(`UPDATE deployments SET status = 'live' WHERE id = $1`, [deployment.id]);
        await m.query('UPDATE projects SET live_deployment_id = $1, updated_at = $2 WHERE id = $3', [deployment.id, this.clock.now(), project.id]);
        await this.projects.notifySiteChanged(m, project.id);
        deployment.status = 'live';
      }
      return { project, deployment };
    });
  }

  /** Archives a deployment; archiving the live one takes the site offline until the next deploy or promote. */
  async archive(principal: Principal, projectId: string, deploymentId: string) {
    return this.dataSource.transaction(async (m) => {
      const { project, deployment } = await this.lockForChange(m, principal, projectId, deploymentId);
      if (effectiveStatus(deployment, this.clock.now()) === 'expired') {
        throw conflict(`deployment ${deployment.id} has expired; there is nothing to archive`, 'deployment_expired');
      }
      if (deployment.status !== 'archived') {
        await m.query(`UPDATE deployments SET status = 'archived' WHERE id = $1`, [deployment.id]);
        deployment.status = 'archived';
      }
      if (project.liveDeploymentId === deployment.id) {
        await m.query('UPDATE projects SET live_deployment_id = NULL, updated_at = $1 WHERE id = $2', [this.clock.now(), project.id]);
        await this.projects.notifySiteChanged(m, project.id);
      }
      return { project, deployment };
    });
  }

  /** Locks the project row first (the same order as a deploy) so pointer changes serialise. */
  private async lockForChange(m: EntityManager, principal: Principal, projectId: string, deploymentId: string) {
    const visible = await this.projects.findVisible(principal, projectId, m);
    const project = await m.getRepository(Project).findOneOrFail({ where: { id: visible.id }, lock: { mode: 'pessimistic_write' } });
    const deployment = await m.getRepository(Deployment).findOneBy({ id: deploymentId, projectId: project.id });
    if (!deployment) throw notFound('Deployment', deploymentId);
    return { project, deployment };
  }
}
