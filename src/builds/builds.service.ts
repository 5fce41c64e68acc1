import { Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

import { AuditLogService } from '../audit/audit-log.service';
import { newId } from '../common/ids';
import { Paginated, paginated } from '../common/pagination';
import { Clock } from '../common/time';
import { gitError } from '../git/git.errors';
import { ProjectsService } from '../projects/projects.service';
import { QuotaService } from '../quotas/quota.service';
import type { AliasSource } from '../shared/preview-alias';
import type { Principal } from '../shared/principal';
import { type Build, type BuildTrigger, isFinished } from './build.entity';
import { buildView } from './build.view';
import { replacedNames, requestRef } from './build-ref';
import { buildsError } from './builds.errors';
import { type BuildFilter, BuildsRepository } from './builds.repository';
import type { BuildView } from './dto/build-views.dto';
import { BuildLogsService, type LogOutput } from './logs/build-logs.service';
import { BuildFeedback, BuildInputsSource, RunnerSource } from './ports';
import { BuildQueue } from './queue/build-queue';
import { BuildsUnavailableError } from './runner/runner';

export interface StartBuild {
  /** Branch, tag or commit; default the production branch. A pull request's build asks for its head ref (`refs/pull/<n>/head`, GitLab `refs/merge-requests/<n>/head`). */
  ref?: string;
  trigger: BuildTrigger;
  pullRequest?: number | null;
  /** The branch the record shows when `ref` does not name it (a pull request's head branch); default: what `ref` names. */
  branch?: string | null;
  /** A pull request from another repository: built only when the project allows it, and always without the project's env vars. */
  fork?: boolean;
  /** Who asked, as the record's `createdBy` shows it, when not a user or token (a forge webhook: `hook:github`). */
  createdBy?: string;
}

/** The pull request whose head `ref` is (GitHub's `refs/pull/<n>/head`, GitLab's `refs/merge-requests/<n>/head`, or their short forms), or null. */
function pullRequestHead(ref: string): number | null {
  // git fetches the short form too (`pull/2/head`).
  const m = /^(?:refs\/)?(?:pull|merge-requests)\/(\d{1,9})\/(?:head|merge)$/.exec(ref);
  return m ? Number(m[1]) : null;
}

/** Who made the request, as a build records it. */
/** A build as the audit log names it: by the ref it builds. */
function buildTarget(id: string, ref: string) {
  return { type: 'build', id, label: ref };
}

function actorOf(principal: Principal): string {
  return principal.tokenId ?? principal.userId ?? 'unknown';
}

/** The build records and the rules of starting, reading and canceling them (the builders run them: queue/builder.service.ts). */
@Injectable()
export class BuildsService {
  private readonly logger = new Logger('Builds');

  constructor(
    private readonly builds: BuildsRepository,
    private readonly projects: ProjectsService,
    private readonly quotas: QuotaService,
    private readonly inputs: BuildInputsSource,
    private readonly runners: RunnerSource,
    private readonly queue: BuildQueue,
    private readonly logs: BuildLogsService,
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
    private readonly feedback: BuildFeedback,
    private readonly audit: AuditLogService,
  ) {}

  /**
   * Queues a build of the project (the API's manual builds; forge webhooks call it too).
   * A newer build of a branch cancels its queued or running older ones, before the
   * concurrency quota counts them.
   */
  async start(principal: Principal, projectId: string, request: StartBuild): Promise<Build> {
    const project = await this.projects.findVisible(principal, projectId);
    const settings = await this.inputs.buildInputs(project.id, 'production', { withEnv: false });
    if (!settings) {
      throw gitError.at(
        409,
        'git_not_connected',
        `project ${project.id} is not connected to a Git repository; connect one with PUT /projects/${project.id}/git`,
      );
    }
    try {
      this.runners.runner();
    } catch (err) {
      if (err instanceof BuildsUnavailableError) throw buildsError('builds_unavailable', err.message);
      throw err;
    }
    const asked = requestRef(request.ref ?? settings.productionBranch);
    const { ref } = asked;
    // A pull request's head ref (`refs/pull/<n>/head`) names no branch: the forge says which.
    let branch = request.branch !== undefined ? request.branch : asked.branch;
    let pullRequest = request.pullRequest ?? null;
    let fork = request.fork ?? false;
    const headOf = request.trigger === 'manual' ? pullRequestHead(ref) : null;
    if (headOf !== null) {
      // Asked by hand (the dashboard's Redeploy of a pull request's build, or the API): the
      // code is whoever opened the pull request's, so it builds as the forge's webhook said
      // it may, and as a fork's (no variables, no cache) when the service never heard of it.
      const origin = await this.builds.pullRequestOrigin(project.id, headOf);
      pullRequest = headOf;
      branch = origin?.branch ?? null;
      fork = origin?.fork ?? true;
    } else if (request.trigger === 'manual' && asked.branch === null) {
      // A bare commit asked by hand may be a fork's: a forge serves every commit of its pull
      // requests from the repository itself. It builds as the repository's own only when a
      // build of a branch, tag or pull request of the repository checked it out already.
      fork = !(await this.builds.commitBuiltAsOwn(project.id, ref));
    }
    const id = newId('bld');
    const build = await this.dataSource.transaction(async (m) => {
      const plan = await this.quotas.lock(m, project.workspaceId);
      if (branch !== null || pullRequest !== null) {
        const what = pullRequest === null ? branch : `pull request ${pullRequest}`;
        const names = pullRequest === null ? replacedNames(branch!) : null;
        await this.builds.cancelReplaced(m, project.id, names, pullRequest, this.clock.now(), `replaced by a newer build of ${what} (${id})`);
      }
      await this.quotas.assertBuildSlot(m, plan);
      // The build's row before its audit entry: the insert waits for the project's row (its
      // reference) while a settings change, a promote or a domain check holds it. Entries are
      // written at the commit now (AuditLogService), which alone breaks that cycle; the order
      // reads as it runs.
      const build = await this.builds.insert(m, {
        id,
        projectId: project.id,
        workspaceId: project.workspaceId,
        trigger: request.trigger,
        ref,
        branch,
        pullRequest,
        fork,
        createdBy: request.createdBy ?? actorOf(principal),
      });
      // A forge's push or pull request comes with no caller: the service's webhook is the actor.
      const actor = request.trigger === 'manual' ? undefined : ({ type: 'system', id: null, label: 'git webhook' } as const);
      await this.audit.record(m, { workspaceId: project.workspaceId, action: 'build.started', actor, target: buildTarget(id, ref), changes: ['ref'] });
      return build;
    });
    try {
      await this.queue.send(build.id);
    } catch (err) {
      this.logger.error(`build ${build.id}: could not be queued: ${(err as Error).message}`, (err as Error).stack);
      return (await this.builds.endIfActive(build.id, this.clock.now(), 'failed', 'the build could not be queued (the server log has the details)')) ?? build;
    }
    return build;
  }

  /**
   * Cancels the active builds of a deleted branch or a closed pull request, in `manager`'s
   * transaction (the alias removal's): a build finishing after the removal would point the
   * alias again, an address for a branch or pull request that is gone. Their builders see it
   * on their next heartbeat and tell the forge, as for any cancel.
   */
  cancelForRemovedAlias(manager: EntityManager, projectId: string, source: AliasSource): Promise<string[]> {
    const [branch, pullRequest, what] =
      source.kind === 'branch'
        ? [source.branch, null, `branch ${source.branch} was deleted`]
        : [null, source.number, `pull request ${source.number} was closed`];
    return this.builds.cancelActiveOfAlias(manager, projectId, branch, pullRequest, this.clock.now(), `${what}: its preview is not built any more`);
  }

  async list(principal: Principal, projectId: string, filter: BuildFilter, page: number, limit: number): Promise<Paginated<BuildView>> {
    const project = await this.projects.findVisible(principal, projectId);
    const { entities, total } = await this.builds.page(project.id, filter, page, limit);
    return paginated(entities.map(buildView), total, page, limit);
  }

  async get(principal: Principal, projectId: string, buildId: string): Promise<Build> {
    const project = await this.projects.findVisible(principal, projectId);
    const build = await this.builds.findInProject(buildId, project.id);
    if (!build) throw buildsError('build_not_found', `build ${buildId} not found in project ${projectId}`);
    return build;
  }

  /** Cancels a queued or running build; a running one's builder sees it on its next heartbeat and kills its processes. */
  async cancel(principal: Principal, projectId: string, buildId: string): Promise<Build> {
    const build = await this.get(principal, projectId, buildId);
    if (isFinished(build.status)) throw buildsError('build_finished', `build ${build.id} has already ended (${build.status}); there is nothing to cancel`);
    const canceled = await this.dataSource.transaction(async (m) => {
      const ended = await this.builds.endIfActive(build.id, this.clock.now(), 'canceled', 'canceled by a user', m);
      if (ended) await this.audit.record(m, { workspaceId: ended.workspaceId, action: 'build.canceled', target: buildTarget(ended.id, ended.ref) });
      return ended;
    });
    if (canceled) this.feedback.buildChanged(canceled.id);
    if (canceled) return canceled;
    const now = (await this.builds.findById(build.id))!;
    if (!isFinished(now.status)) {
      throw buildsError(
        'build_finished',
        `build ${build.id} has already deployed its output (${now.deploymentId}); it ends ready and can no longer be canceled`,
      );
    }
    throw buildsError('build_finished', `build ${build.id} has already ended (${now.status}); there is nothing to cancel`);
  }

  async log(principal: Principal, projectId: string, buildId: string): Promise<Buffer> {
    return this.logs.read(await this.get(principal, projectId, buildId));
  }

  async followLog(principal: Principal, projectId: string, buildId: string, out: LogOutput): Promise<void> {
    const build = await this.get(principal, projectId, buildId);
    await this.logs.follow(build.id, out);
  }
}
