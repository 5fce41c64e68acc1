import { Injectable } from '@nestjs/common';

import { badRequest } from '../common/errors';
import { Clock } from '../common/time';
import { type DeployRequest, DeployService } from '../deployments/deploy.service';
import { lazyTarget } from '../deployments/lazy-target';
import { ProjectsRepository } from '../projects/projects.repository';
import type { Tier } from '../quotas/plans';
import { bandwidthQuotaError, deploymentQuotaError, overLimitDeployError, projectQuotaError, storageQuotaError } from '../quotas/quota';
import { QuotaService } from '../quotas/quota.service';
import { type Principal, workspaceOf } from '../shared/principal';
import { type Slug } from '../shared/slug';

export interface PreflightResult {
  project_slug: string;
  /** The project the deploy would go to; null when the deploy would create it. */
  projectId: string | null;
  workspaceId: string;
  createsProject: boolean;
  plan: Tier;
  /** Bytes of files the workspace does not store yet: what the deploy adds to its storage. */
  newBytes: number;
}

/**
 * A dry run of `POST /v1/deployments`: the same body, the same 400/402/403/409/413
 * a deploy would give for it, and nothing stored or counted. Clients call it before
 * uploading a single byte, so a deploy that cannot succeed uploads nothing.
 *
 * It reads without the workspace lock, so a concurrent deploy can still make the
 * real one fail; the deploy itself checks everything again under the lock. Not
 * checked here: the blobs' presence (the deploy's `missing_blobs` round does that)
 * and `_redirects`/`_headers` of digest entries (their bytes are not uploaded yet).
 */
@Injectable()
export class DeployPreflightService {
  constructor(
    private readonly projects: ProjectsRepository,
    private readonly deploys: DeployService,
    private readonly quotas: QuotaService,
    private readonly clock: Clock,
  ) {}

  /** `slug` and `dto.ttl` come parsed, as for the deploy (the controller uses the deploy's parse). */
  async check(principal: Principal, slug: Slug, dto: DeployRequest): Promise<PreflightResult> {
    const workspaceId = workspaceOf(principal);
    // Same order as the deploy, so both give the same first error.
    const plan = await this.quotas.planOf(workspaceId);
    if (dto.ttl !== undefined) this.quotas.assertTtlAllowed(plan, dto.ttl, 'ttl');
    const prepared = this.deploys.prepare(dto.files, plan.limits.maxFileBytes);

    const project = await this.projects.findBySlug(slug);
    const usage = await this.quotas.usage(workspaceId);
    const target = lazyTarget(principal, slug, project);
    if ('project' in target) {
      const { type } = target.project;
      if (dto.type !== undefined && dto.type !== type) {
        throw badRequest(`type: project "${target.project.slug}" is ${type}; a deployment cannot change it to ${dto.type}`);
      }
      // Back on a smaller plan with more projects than it allows: the deploy waits until the workspace fits.
      const over = overLimitDeployError(plan.tier, plan.limits, usage);
      if (over) throw over;
    } else {
      const projects = projectQuotaError(plan.tier, plan.limits, usage.projects);
      if (projects) throw projects;
    }
    const deploys = deploymentQuotaError(plan.tier, plan.limits, usage.deploymentsPerMonth, this.clock.now());
    if (deploys) throw deploys;
    const bandwidth = bandwidthQuotaError(plan.tier, plan.limits, usage.bandwidthBytesPerMonth, this.clock.now());
    if (bandwidth) throw bandwidth;
    const added = await this.quotas.newBytes(workspaceId, prepared.files);
    const storage = storageQuotaError(plan.tier, plan.limits, usage.storageBytes, added);
    if (storage) throw storage;
    return {
      project_slug: slug,
      projectId: project?.id ?? null,
      workspaceId,
      createsProject: !project,
      plan: plan.tier,
      newBytes: added,
    };
  }
}
