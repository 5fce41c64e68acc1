import { hostname } from 'node:os';

import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

import { randomString } from '../../common/ids';
import { Clock } from '../../common/time';
import { AppConfig } from '../../config/app-config';
import { previewUrl } from '../../deployments/deployment.view';
import { DeploymentsRepository } from '../../deployments/deployments.repository';
import { PreviewsService } from '../../previews/previews.service';
import { ProjectsRepository } from '../../projects/projects.repository';
import { QuotaService } from '../../quotas/quota.service';
import type { Principal } from '../../shared/principal';
import type { Build } from '../build.entity';
import { BuildEvents } from '../build-events';
import { type BuildOutcome, BuildsRepository } from '../builds.repository';
import { BuildLogsService } from '../logs/build-logs.service';
import { BuildFailure, type ResolvedCommit } from '../pipeline/types';
import { BuildFeedback, BuildInputsSource, PipelinePort, RunnerSource } from '../ports';
import { BuildsUnavailableError } from '../runner/runner';
import { BuildQueue } from './build-queue';

/** Why a builder stopped a build's pipeline. */
type StopReason = 'canceled' | 'timed_out' | 'shutdown';

/** The error a build gets when something other than the build itself went wrong; the details go to the server log. */
export const INTERNAL_FAILURE = 'the build failed on the builder (an internal error; the server log has the details)';

/** Who a build deploys as: its starter, bound to the project, with scope deploy only. */
export function buildPrincipal(build: Pick<Build, 'workspaceId' | 'projectId' | 'createdBy'>): Principal {
  const byToken = build.createdBy.startsWith('tok_');
  return {
    kind: byToken ? 'token' : 'user',
    workspaceId: build.workspaceId,
    scopes: ['deploy'],
    projectId: build.projectId,
    ...(byToken ? { tokenId: build.createdBy } : { userId: build.createdBy }),
  };
}

/**
 * A builder: takes queued builds off the queue (BUILD_CONCURRENCY at once), runs each
 * through the pipeline under a lease it renews, and ends it. It stops a build's pipeline
 * when the build is canceled (seen on the next heartbeat, from any instance), when it
 * runs past BUILD_TIMEOUT_SECONDS, and when the process shuts down.
 */
@Injectable()
export class Builder implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Builder');
  readonly builderId = `${hostname()}:${process.pid}:${randomString(6)}`;
  private readonly running = new Map<string, { stop: (reason: StopReason) => void; done: Promise<void> }>();

  constructor(
    private readonly queue: BuildQueue,
    private readonly builds: BuildsRepository,
    private readonly logs: BuildLogsService,
    private readonly inputs: BuildInputsSource,
    private readonly runners: RunnerSource,
    private readonly pipeline: PipelinePort,
    private readonly projects: ProjectsRepository,
    private readonly deployments: DeploymentsRepository,
    private readonly previews: PreviewsService,
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly feedback: BuildFeedback,
    private readonly events: BuildEvents,
    private readonly quotas: QuotaService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.BUILD_CONCURRENCY > 0) await this.start(this.config.BUILD_CONCURRENCY);
  }

  /** Starts taking builds; false (with a warning) when no runner can run them here. */
  async start(concurrency: number): Promise<boolean> {
    try {
      this.runners.runner();
    } catch (err) {
      if (!(err instanceof BuildsUnavailableError)) throw err;
      this.logger.warn(`no builder runs in this process: ${err.message}`);
      return false;
    }
    await this.queue.work(concurrency, ({ buildId }) => this.run(buildId));
    this.logger.log(`builder ${this.builderId} takes up to ${concurrency} build(s) at once`);
    return true;
  }

  async onModuleDestroy(): Promise<void> {
    // First no new build: one taken now would run on while the database pool closes.
    await this.queue.stopWorking();
    for (const build of this.running.values()) build.stop('shutdown');
    await Promise.all([...this.running.values()].map((b) => b.done));
  }

  /** Runs one queued build to its end; a build canceled (or taken) before it starts is left alone. */
  async run(buildId: string): Promise<void> {
    const build = await this.builds.findById(buildId);
    if (!build || build.status !== 'queued') return;
    const productionBranch = await this.events.productionBranch(build.projectId);
    const started = this.clock.now();
    const taken = await this.dataSource.transaction(async (m) => {
      if (!(await this.builds.markRunning(buildId, this.builderId, started, this.leaseUntil(), m))) return false;
      await this.events.emit(m, { ...build, status: 'running' }, productionBranch);
      return true;
    });
    if (!taken) return;
    let stopped: StopReason | undefined;
    const controller = new AbortController();
    const stop = (reason: StopReason) => {
      stopped ??= reason;
      controller.abort(new Error(`build ${reason}`));
    };
    let settle!: () => void;
    this.running.set(buildId, { stop, done: new Promise<void>((resolve) => (settle = resolve)) });
    const heartbeat = setInterval(() => void this.heartbeat(buildId, stop), this.heartbeatMs());
    const timeout = setTimeout(() => stop('timed_out'), this.config.BUILD_TIMEOUT_SECONDS * 1000);
    const log = this.logs.writer(buildId);
    let outcome: BuildOutcome | null;
    try {
      outcome = await this.pipelineRun(build, log, controller.signal);
    } catch (err) {
      outcome = this.failure(build, err, stopped);
      if (outcome?.error) log.write('deploy', `Build ${outcome.status === 'timed_out' ? 'timed out' : 'failed'}: ${outcome.error}`, 'system');
    } finally {
      clearInterval(heartbeat);
      clearTimeout(timeout);
    }
    // A ready outcome's deploy committed while the build was still running here (claimDeploy): its output is live, so it ends ready even if stopped since.
    try {
      // Every line is in the table before the build ends: a follower that sees the end has seen them all.
      await log.close();
      if (outcome) {
        const ending = outcome;
        await this.dataSource.transaction(async (m) => {
          const ended = await this.builds.finish(buildId, this.builderId, this.clock.now(), ending, m);
          if (ended) await this.events.emit(m, ended, productionBranch);
          // Its minutes count now: the 50/75/100 % alerts of the month's build minutes (issue 31), in the ending's transaction.
          if (ended?.durationMs) await this.quotas.countBuildMinutes(m, ended.workspaceId, ended.durationMs);
        });
      }
      await this.logs.archive(buildId);
    } catch (err) {
      this.logger.error(`build ${buildId}: ending it failed: ${(err as Error).message}`, (err as Error).stack);
    } finally {
      this.running.delete(buildId);
      settle();
    }
    this.feedback.buildChanged(buildId);
  }

  private async pipelineRun(build: Build, log: ReturnType<BuildLogsService['writer']>, signal: AbortSignal): Promise<BuildOutcome> {
    const settings = await this.inputs.buildInputs(build.projectId, 'production', { withEnv: false });
    if (!settings) throw new BuildFailure('the project is no longer connected to a Git repository');
    // A pull request is never the production branch, even when its head branch has that name.
    const production = build.pullRequest === null && (build.branch ?? build.ref) === settings.productionBranch;
    // A fork's code is not the team's: it never sees the project's variables (issue 29).
    const inputs = (await this.inputs.buildInputs(build.projectId, production ? 'production' : 'preview', { withEnv: !build.fork })) ?? settings;
    let resolved: ResolvedCommit | undefined;
    let alias: string | null = null;
    const result = await this.pipeline.run({
      buildId: build.id,
      principal: buildPrincipal(build),
      ref: build.ref,
      previewOnly: build.pullRequest !== null,
      fork: build.fork,
      inputs,
      runner: this.runners.runner(),
      log,
      signal,
      onResolved: (commit) => {
        resolved = commit;
        return this.builds.setResolved(build.id, commit).then(() => this.feedback.buildChanged(build.id));
      },
      beforeDeployCommit: async (m, deploymentId, published) => {
        if (!(await this.builds.claimDeploy(m, build.id, this.builderId, deploymentId))) {
          throw new BuildFailure('the build ended (canceled, timed out or replaced) before its output was deployed: nothing was published');
        }
        // In the deploy's transaction: the alias moves exactly when the deployment exists.
        if (!published) alias = await this.pointAlias(m, build, deploymentId, resolved);
      },
    });
    await this.builds.setResolved(build.id, result.commit);
    await this.builds.setDetected(build.id, result.detected);
    if (alias !== null)
      log.write('deploy', `served at ${this.previews.url(alias)} (the ${build.pullRequest === null ? 'branch' : 'pull request'}'s preview address)`, 'system');
    const url = alias !== null ? this.previews.url(alias) : await this.deployedUrl(build, result.deploymentId, result.published);
    return { status: 'ready', error: null, deploymentId: result.deploymentId, url };
  }

  /**
   * Moves the build's branch or pull request alias to its deployment, unless a newer build
   * of it got there first; the label, or null (a tag or a bare commit has no alias).
   */
  private async pointAlias(m: EntityManager, build: Build, deploymentId: string, commit: ResolvedCommit | undefined): Promise<string | null> {
    // A ref asked by name is a branch only if the clone found it among the branches (a tag is
    // not); a pull request's head branch is the forge's word (it may live in a fork).
    const branch = build.pullRequest === null && commit !== undefined ? commit.branch : (build.branch ?? commit?.branch ?? null);
    const source =
      build.pullRequest !== null
        ? ({ kind: 'pull_request', number: build.pullRequest } as const)
        : branch !== null
          ? ({ kind: 'branch', branch } as const)
          : null;
    if (!source) return null;
    const project = await this.projects.getById(m, build.projectId);
    return this.previews.point(m, {
      projectId: build.projectId,
      slug: project.slug,
      source,
      deploymentId,
      buildId: build.id,
      commitSha: commit?.sha ?? null,
      branch,
      supersedes: (manager, served) => this.builds.startedAfter(manager, build.id, served),
    });
  }

  /** The live site for a build that published, the deployment's own preview address otherwise (as the deployment routes show them). */
  private async deployedUrl(build: Build, deploymentId: string, published: boolean): Promise<string | null> {
    const project = await this.projects.findInWorkspace(build.projectId, build.workspaceId);
    if (!project) return null;
    if (published) return this.config.siteUrl(project.slug);
    const deployment = await this.deployments.findInProject(deploymentId, project.id, this.dataSource.manager);
    return deployment ? previewUrl(this.config, project, deployment) : null;
  }

  /** How a build that threw ends; null for a cancel (the API has already ended it). */
  private failure(build: Build, err: unknown, stopped: StopReason | undefined): BuildOutcome | null {
    switch (stopped) {
      case 'canceled':
        return null;
      case 'timed_out':
        return { status: 'timed_out', error: `the build ran longer than ${this.config.BUILD_TIMEOUT_SECONDS} s (BUILD_TIMEOUT_SECONDS)` };
      case 'shutdown':
        return { status: 'failed', error: 'the builder shut down during the build; start it again' };
      case undefined:
        break;
    }
    if (err instanceof BuildFailure) return { status: 'failed', error: err.message };
    this.logger.error(`build ${build.id}: ${(err as Error)?.message ?? String(err)}`, (err as Error)?.stack);
    return { status: 'failed', error: INTERNAL_FAILURE };
  }

  private async heartbeat(buildId: string, stop: (reason: StopReason) => void): Promise<void> {
    try {
      if (!(await this.builds.renewLease(buildId, this.builderId, this.leaseUntil()))) stop('canceled');
    } catch (err) {
      this.logger.warn(`build ${buildId}: lease not renewed: ${(err as Error).message}`);
    }
  }

  /** Often enough to see a cancel within a second or so, and to renew the lease many times before it runs out. */
  private heartbeatMs(): number {
    return Math.min(1000, (this.config.BUILD_LEASE_SECONDS * 1000) / 5);
  }

  private leaseUntil(): Date {
    return new Date(this.clock.now().getTime() + this.config.BUILD_LEASE_SECONDS * 1000);
  }
}
