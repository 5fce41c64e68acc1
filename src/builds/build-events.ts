import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { EventBus } from '../events/event-bus';
import type { PlatformEvent } from '../events/events';
import { ProjectsRepository } from '../projects/projects.repository';
import type { Build } from './build.entity';
import { buildPageUrl } from './feedback/feedback-message';
import { BuildInputsSource } from './ports';

type BuildFields = Pick<
  Build,
  'id' | 'projectId' | 'workspaceId' | 'status' | 'trigger' | 'ref' | 'branch' | 'commitSha' | 'pullRequest' | 'deploymentId' | 'url' | 'error'
>;

/** What a build's event needs besides the build: its project's slug and production branch, the dashboard's address. */
export interface BuildEventContext {
  projectSlug: string;
  /** null when the project is no longer connected to a repository. */
  productionBranch: string | null;
  apiBaseUrl: string;
  now: Date;
}

/**
 * The event a build in its current status announces: `running` → `build.started`,
 * `ready` → `build.succeeded`, `failed` or `timed_out` → `build.failed`; none for
 * `queued` and `canceled` (a user's cancel is not a failure worth telling anyone of).
 */
export function buildEvent(build: BuildFields, ctx: BuildEventContext): PlatformEvent | null {
  const ref = {
    projectId: build.projectId,
    projectSlug: ctx.projectSlug,
    buildId: build.id,
    branch: build.branch,
    commitSha: build.commitSha,
    trigger: build.trigger,
    pullRequest: build.pullRequest,
    // As the builder decides which environment a build gets: a pull request is never production.
    production: build.pullRequest === null && ctx.productionBranch !== null && (build.branch ?? build.ref) === ctx.productionBranch,
    dashboardUrl: buildPageUrl(ctx.apiBaseUrl, build),
  };
  const head = { workspaceId: build.workspaceId, timestamp: ctx.now };
  switch (build.status) {
    case 'running':
      return { ...head, type: 'build.started', data: ref };
    case 'ready':
      return { ...head, type: 'build.succeeded', data: { ...ref, deploymentId: build.deploymentId ?? '', url: build.url ?? '' } };
    case 'failed':
    case 'timed_out':
      return { ...head, type: 'build.failed', data: { ...ref, error: build.error ?? build.status } };
    default:
      return null;
  }
}

/** Emits a build's event inside the transaction that changed its status (Builder, BuildSweeper). */
@Injectable()
export class BuildEvents {
  constructor(
    private readonly events: EventBus,
    private readonly inputs: BuildInputsSource,
    private readonly projects: ProjectsRepository,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  /** The project's production branch (read outside the transaction: a git settings read). */
  async productionBranch(projectId: string): Promise<string | null> {
    return (await this.inputs.buildInputs(projectId, 'production', { withEnv: false }))?.productionBranch ?? null;
  }

  async emit(m: EntityManager, build: BuildFields, productionBranch: string | null): Promise<void> {
    const project = await this.projects.findInWorkspace(build.projectId, build.workspaceId, m);
    if (!project) return;
    const event = buildEvent(build, { projectSlug: project.slug, productionBranch, apiBaseUrl: this.config.apiBaseUrl, now: this.clock.now() });
    if (event) await this.events.emit(m, event);
  }
}
