import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

import { notFound } from '../common/errors';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { EventBus } from '../events/event-bus';
import type { Ttl } from '../shared/ttl';
import type { Tier } from './plans';
import { Limits, PlansService } from './plans.service';
import {
  bandwidthQuotaError,
  buildMinutes,
  buildMinutesQuotaError,
  concurrentBuildQuotaError,
  deploymentQuotaError,
  effectiveTier,
  monthKey,
  monthStart,
  nextMonthStart,
  overLimitDeployError,
  PlanState,
  projectQuotaError,
  storageQuotaError,
  ttlQuotaError,
} from './quota';
import { type BlobSizes, type PlanRow, type ProjectBytes, QuotaRepository } from './quota.repository';
import { crossedThresholds, type ThresholdMetric } from './usage-thresholds';

/** The plan a workspace is on, as read for one request. */
export interface WorkspacePlan {
  workspaceId: string;
  tier: Tier;
  limits: Limits;
}

export interface WorkspaceUsage {
  projects: number;
  deploymentsPerMonth: number;
  storageBytes: number;
  concurrentBuilds: number;
  buildMinutesPerMonth: number;
  /** Bytes served this month, as of the last analytics flush. */
  bandwidthBytesPerMonth: number;
  /** When the monthly deployment count starts again. */
  deploymentsResetAt: Date;
}

/**
 * Counts what the plan meters and answers 402 when a request would go past it.
 *
 * Counting and the write it guards happen in one transaction that first locks the
 * workspace row (`FOR NO KEY UPDATE`, which still lets other transactions insert rows
 * that reference the workspace), so concurrent creates and deploys of one workspace
 * queue there and each sees the ones before it. Lock order everywhere: workspace,
 * then project, then blobs.
 *
 * Storage is kept as the set of the workspace's distinct blobs and their sum:
 * a deploy looks up only its own files in it (and adds the new ones), so its cost
 * does not grow with the workspace's history.
 */
@Injectable()
export class QuotaService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly usageRows: QuotaRepository,
    private readonly plans: PlansService,
    private readonly clock: Clock,
    private readonly events: EventBus,
    private readonly config: AppConfig,
  ) {}

  /** The plan in force, without a lock: for checks that need no count (file size, TTL). */
  async planOf(workspaceId: string, manager: EntityManager = this.dataSource.manager): Promise<WorkspacePlan> {
    return this.readPlan(manager, workspaceId, false);
  }

  /** Locks the workspace for the rest of the transaction and returns its plan. */
  async lock(manager: EntityManager, workspaceId: string): Promise<WorkspacePlan> {
    return this.readPlan(manager, workspaceId, true);
  }

  /** Inside the transaction that inserts a project: 402 when the workspace has as many as its plan allows. */
  async assertProjectSlot(manager: EntityManager, workspaceId: string): Promise<void> {
    const plan = await this.lock(manager, workspaceId);
    if (plan.limits.projects === null) return;
    const n = await this.usageRows.countProjects(manager, workspaceId);
    const error = projectQuotaError(plan.tier, plan.limits, n);
    if (error) throw error;
  }

  /** 402 when the plan does not allow `ttl`; `field` names the input. */
  assertTtlAllowed(plan: WorkspacePlan, ttl: Ttl, field: string): void {
    const error = ttlQuotaError(plan.tier, plan.limits, ttl, field);
    if (error) throw error;
  }

  /** Reads the plan and checks `ttl` against it (project create and update). */
  async assertTtlAllowedFor(workspaceId: string, ttl: Ttl, field: string, manager?: EntityManager): Promise<void> {
    this.assertTtlAllowed(await this.planOf(workspaceId, manager), ttl, field);
  }

  /**
   * Inside the transaction that queues a build, after `lock`: 402 when the workspace
   * already has as many builds queued or running as its plan allows, has used this
   * month's build minutes, or could not deploy the build's output (more projects than its
   * plan allows, or the month's bandwidth used).
   */
  async assertBuildSlot(manager: EntityManager, plan: WorkspacePlan): Promise<void> {
    const now = this.clock.now();
    const { limits, tier, workspaceId } = plan;
    if (limits.concurrentBuilds !== null) {
      const error = concurrentBuildQuotaError(tier, limits, await this.usageRows.activeBuilds(manager, workspaceId));
      if (error) throw error;
    }
    if (limits.buildMinutesPerMonth !== null) {
      const error = buildMinutesQuotaError(tier, limits, await this.usageRows.buildMinutesSince(manager, workspaceId, monthStart(now)), now);
      if (error) throw error;
    }
    // A build exists to deploy: what would refuse its deploy (issue 31) refuses it now, before it spends minutes.
    if (limits.projects !== null) {
      const error = overLimitDeployError(tier, limits, { projects: await this.usageRows.countProjects(manager, workspaceId) });
      if (error) throw error;
    }
    if (limits.bandwidthBytesPerMonth !== null) {
      const error = bandwidthQuotaError(tier, limits, await this.usageRows.monthlyBandwidth(manager, workspaceId, monthKey(now)), now);
      if (error) throw error;
    }
  }

  /**
   * Inside the deploy's transaction, after `lock`: checks this month's deployments
   * and the storage the new files add, then counts the deployment. A 402 rolls the
   * whole transaction back, so nothing of the deploy is written.
   */
  async chargeDeployment(manager: EntityManager, plan: WorkspacePlan, files: { sha256: string; size: number }[]): Promise<void> {
    const now = this.clock.now();
    const month = monthKey(now);
    const { limits, tier, workspaceId } = plan;
    // A workspace back on a smaller plan keeps what it has, but deploys wait until it fits.
    if (limits.projects !== null) {
      const error = overLimitDeployError(tier, limits, { projects: await this.usageRows.countProjects(manager, workspaceId) });
      if (error) throw error;
    }
    if (limits.deploymentsPerMonth !== null) {
      const deployments = await this.usageRows.monthlyDeployments(manager, workspaceId, month);
      const error = deploymentQuotaError(tier, limits, deployments, now);
      if (error) throw error;
    }
    if (limits.bandwidthBytesPerMonth !== null) {
      const error = bandwidthQuotaError(tier, limits, await this.usageRows.monthlyBandwidth(manager, workspaceId, month), now);
      if (error) throw error;
    }
    await this.freshStorage(manager, workspaceId);
    const blobs = distinctBlobs(files);
    const { used, added } = await this.usageRows.storageUsedAndAdded(manager, workspaceId, blobs);
    const error = storageQuotaError(tier, limits, used, added);
    if (error) throw error;
    // Counted whatever the plan, so the figure is right when the plan changes.
    if (added > 0) await this.usageRows.addBlobs(manager, workspaceId, blobs, added);
    const deployments = await this.usageRows.countDeployment(manager, workspaceId, month);
    await this.announceThresholds(manager, workspaceId, month, now, 'deploymentsPerMonth', deployments - 1, deployments, limits.deploymentsPerMonth);
    await this.announceThresholds(manager, workspaceId, month, now, 'storageBytes', used, used + added, limits.storageBytes);
  }

  /**
   * `usage.threshold` for each threshold this change crossed, once per metric, threshold
   * and month (storage too: a workspace hovering at 75 % hears of it once a month, not
   * at every deploy that dips and climbs back); in the charging transaction, so a deploy
   * that rolls back (a 402 further on, a failure) announces nothing.
   */
  private async announceThresholds(
    manager: EntityManager,
    workspaceId: string,
    month: string,
    now: Date,
    metric: ThresholdMetric,
    before: number,
    after: number,
    limit: number | null,
  ): Promise<void> {
    for (const percent of crossedThresholds(before, after, limit)) {
      if (!(await this.usageRows.recordThreshold(manager, workspaceId, metric, month, percent, now))) continue;
      await this.events.emit(manager, { type: 'usage.threshold', workspaceId, timestamp: now, data: { metric, used: after, limit: limit!, percent } });
    }
  }

  /**
   * Bytes of `files` the workspace does not store yet: what a deploy of them would add
   * to its storage. Read without the lock, so a deploy running meanwhile can change it
   * (the preflight's estimate; the deploy itself charges under the lock).
   */
  async newBytes(workspaceId: string, files: { sha256: string; size: number }[]): Promise<number> {
    return this.usageRows.addedBytes(workspaceId, distinctBlobs(files));
  }

  /** What the workspace uses now, for GET /workspaces/:id. */
  async usage(workspaceId: string): Promise<WorkspaceUsage> {
    const now = this.clock.now();
    if (await this.usageRows.storageStale(this.dataSource.manager, workspaceId)) {
      await this.dataSource.transaction(async (m) => {
        await this.lock(m, workspaceId);
        await this.freshStorage(m, workspaceId);
      });
    }
    const manager = this.dataSource.manager;
    const [row, concurrentBuilds, buildMinutesPerMonth] = await Promise.all([
      this.usageRows.usage(workspaceId, monthKey(now)),
      this.usageRows.activeBuilds(manager, workspaceId),
      this.usageRows.buildMinutesSince(manager, workspaceId, monthStart(now)),
    ]);
    return {
      projects: row.projects,
      deploymentsPerMonth: row.deployments,
      storageBytes: Number(row.storage),
      concurrentBuilds,
      buildMinutesPerMonth,
      bandwidthBytesPerMonth: Number(row.bandwidth),
      deploymentsResetAt: nextMonthStart(now),
    };
  }

  /**
   * Rebuilds the storage count of workspaces whose deployments expired or were
   * deleted since it was last counted, so deploys and reads rarely pay for it.
   * Run by the billing sweeper; returns how many were rebuilt.
   */
  async refreshStaleStorage(batch = 100): Promise<number> {
    const workspaceIds = await this.usageRows.withStaleStorage(batch);
    for (const workspaceId of workspaceIds) {
      await this.dataSource.transaction(async (m) => {
        // The workspace itself was deleted: nothing to count.
        if (!(await this.usageRows.lockIfExists(m, workspaceId))) await this.usageRows.forgetStorageChanges(m, workspaceId);
        else await this.freshStorage(m, workspaceId);
      });
    }
    return workspaceIds.length;
  }

  /**
   * Under the workspace lock: when a deployment has left (or entered) the count
   * since the last time, or the workspace was never counted, counts its distinct
   * blobs again from the manifests. A change committed while this runs leaves a
   * log row behind, so the next check counts again: the figure may briefly be too
   * high, never too low.
   */
  private async freshStorage(manager: EntityManager, workspaceId: string): Promise<void> {
    if (!(await this.usageRows.storageStale(manager, workspaceId))) return;
    await this.usageRows.rebuildStorage(manager, workspaceId);
  }

  private async readPlan(manager: EntityManager, workspaceId: string, lock: boolean): Promise<WorkspacePlan> {
    const row = await this.usageRows.readPlan(manager, workspaceId, lock);
    if (!row) throw notFound('Workspace', workspaceId);
    return this.planFromRow(workspaceId, row);
  }

  private planFromRow(workspaceId: string, row: PlanRow): WorkspacePlan {
    const state: PlanState = {
      plan: row.plan,
      subscription: row.status
        ? {
            status: row.status,
            cancelAtPeriodEnd: row.cancel_at_period_end === true,
            currentPeriodEnd: new Date(row.current_period_end!),
            pastDueSince: row.past_due_since ? new Date(row.past_due_since) : null,
          }
        : null,
    };
    // A past_due subscription within its grace keeps its paid tier (the row still says it).
    const tier = effectiveTier(state, this.clock.now(), this.config.BILLING_GRACE_DAYS);
    return { workspaceId, tier, limits: this.plans.limits(tier) };
  }

  /**
   * Inside an analytics flush's transaction: adds the bytes served per project and month
   * to their workspaces' monthly bandwidth, and announces the thresholds the additions
   * crossed (once per workspace, month and threshold, as for deployments). Returns the
   * workspaces whose bandwidth reached their limit, for the spend cap to look at.
   */
  async countBandwidth(manager: EntityManager, served: ProjectBytes): Promise<string[]> {
    if (served.projectIds.length === 0) return [];
    const rows = await this.usageRows.addBandwidth(manager, served);
    if (rows.length === 0) return [];
    const plans = new Map(
      (await this.usageRows.readPlans(manager, [...new Set(rows.map((r) => r.workspace_id))])).map((p) => [p.id, this.planFromRow(p.id, p)]),
    );
    const now = this.clock.now();
    const atLimit: string[] = [];
    for (const row of rows) {
      const plan = plans.get(row.workspace_id);
      if (!plan) continue;
      const after = Number(row.bandwidth);
      const before = after - Number(row.added);
      const limit = plan.limits.bandwidthBytesPerMonth;
      await this.announceThresholds(manager, row.workspace_id, row.month, now, 'bandwidthBytesPerMonth', before, after, limit);
      // Billed past a paid plan's limit (issue 31): counted now, against the plan in force now.
      const overage = limit === null || plan.tier === 'free' ? 0 : after - Math.max(before, limit);
      if (overage > 0) await this.usageRows.addOverage(manager, row.workspace_id, row.month, overage);
      if (limit !== null && after >= limit && row.month === monthKey(now)) atLimit.push(row.workspace_id);
    }
    return atLimit;
  }

  /**
   * In the transaction that ended a build (its duration written): announces the build-minute
   * thresholds this build's minutes crossed this month (issue 31).
   */
  async countBuildMinutes(manager: EntityManager, workspaceId: string, durationMs: number): Promise<void> {
    const now = this.clock.now();
    const plan = await this.planOf(workspaceId, manager);
    const limit = plan.limits.buildMinutesPerMonth;
    if (limit === null) return;
    const after = await this.usageRows.buildMinutesSince(manager, workspaceId, monthStart(now));
    await this.announceThresholds(manager, workspaceId, monthKey(now), now, 'buildMinutesPerMonth', after - buildMinutes(durationMs), after, limit);
  }

  /**
   * The workspaces whose sites the spend cap pauses now: the cap on, and this month's
   * bandwidth at or past the limit of the plan in force (an upgrade to a larger or
   * unlimited plan lifts the pause; so does the next month, whose count starts at 0).
   */
  async pausedWorkspaces(): Promise<string[]> {
    const rows = await this.usageRows.cappedWorkspaces(monthKey(this.clock.now()));
    return rows
      .filter((r) => {
        const limit = this.planFromRow(r.id, r).limits.bandwidthBytesPerMonth;
        return limit !== null && Number(r.bandwidth) >= limit;
      })
      .map((r) => r.id);
  }

  /** Whether a workspace with this cap and usage is paused now (GET /billing/usage and /billing/spend-cap). */
  sitesPaused(pauseSitesAtLimit: boolean, bandwidth: number, limits: Limits): boolean {
    return pauseSitesAtLimit && limits.bandwidthBytesPerMonth !== null && bandwidth >= limits.bandwidthBytesPerMonth;
  }
}

/** One entry per digest: a file twice in a deploy is stored (and counted) once. */
function distinctBlobs(files: { sha256: string; size: number }[]): BlobSizes {
  const unique = new Map(files.map((f) => [f.sha256, f.size]));
  return { shas: [...unique.keys()], sizes: [...unique.values()] };
}
