import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { notFound } from '../common/errors';
import { Clock } from '../common/time';
import type { Tier } from './plans';
import { Limits, PlansService } from './plans.service';
import {
  deploymentQuotaError,
  effectiveTier,
  monthKey,
  nextMonthStart,
  PlanState,
  projectQuotaError,
  storageQuotaError,
  ttlQuotaError,
} from './quota';

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
  /** When the monthly deployment count starts again. */
  deploymentsResetAt: Date;
}

/**
 * Distinct blobs of the workspace's live and archived deployments: the same file in
 * many deployments (or projects) is stored once and counted once. Scanning every
 * manifest is slow for a big workspace, so it runs only to rebuild
 * `workspace_storage_blobs` after deployments left the count.
 */
const STORED_BLOBS = `
  SELECT DISTINCT f.sha256, f.size
  FROM deployment_files f
  JOIN deployments d ON d.id = f.deployment_id
  WHERE d.workspace_id = $1 AND d.status IN ('live', 'archived')`;

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
    private readonly plans: PlansService,
    private readonly clock: Clock,
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
    const [{ n }] = await manager.query('SELECT count(*)::int AS n FROM projects WHERE workspace_id = $1', [workspaceId]);
    const error = projectQuotaError(plan.tier, plan.limits, n);
    if (error) throw error;
  }

  /** 402 when the plan does not allow `ttl` (a valid TTL text); `field` names the input. */
  assertTtlAllowed(plan: WorkspacePlan, ttl: string, field: string): void {
    const error = ttlQuotaError(plan.tier, plan.limits, ttl, field);
    if (error) throw error;
  }

  /** Reads the plan and checks `ttl` against it (project create and update). */
  async assertTtlAllowedFor(workspaceId: string, ttl: string, field: string, manager?: EntityManager): Promise<void> {
    this.assertTtlAllowed(await this.planOf(workspaceId, manager), ttl, field);
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
    if (limits.deploymentsPerMonth !== null) {
      const rows: { deployments: number }[] = await manager.query(
        'SELECT deployments FROM workspace_monthly_usage WHERE workspace_id = $1 AND month = $2',
        [workspaceId, month],
      );
      const error = deploymentQuotaError(tier, limits, rows[0]?.deployments ?? 0, now);
      if (error) throw error;
    }
    await this.freshStorage(manager, workspaceId);
    const unique = new Map(files.map((f) => [f.sha256, f.size]));
    const shas = [...unique.keys()];
    const sizes = [...unique.values()];
    const [{ used, added }] = await manager.query(
      `SELECT (SELECT bytes FROM workspace_storage WHERE workspace_id = $1) AS used,
              (SELECT coalesce(sum(n.size), 0) FROM unnest($2::text[], $3::bigint[]) AS n(sha256, size)
                WHERE NOT EXISTS (SELECT 1 FROM workspace_storage_blobs b WHERE b.workspace_id = $1 AND b.sha256 = n.sha256))::bigint AS added`,
      [workspaceId, shas, sizes],
    );
    const error = storageQuotaError(tier, limits, Number(used), Number(added));
    if (error) throw error;
    // Counted whatever the plan, so the figure is right when the plan changes.
    if (Number(added) > 0) {
      await manager.query(
        `INSERT INTO workspace_storage_blobs (workspace_id, sha256, size)
         SELECT $1, n.sha256, n.size FROM unnest($2::text[], $3::bigint[]) AS n(sha256, size)
         ON CONFLICT (workspace_id, sha256) DO NOTHING`,
        [workspaceId, shas, sizes],
      );
      await manager.query('UPDATE workspace_storage SET bytes = bytes + $2 WHERE workspace_id = $1', [workspaceId, added]);
    }
    await manager.query(
      `INSERT INTO workspace_monthly_usage (workspace_id, month, deployments) VALUES ($1, $2, 1)
       ON CONFLICT (workspace_id, month) DO UPDATE SET deployments = workspace_monthly_usage.deployments + 1`,
      [workspaceId, month],
    );
  }

  /** Bytes of `files` the workspace does not store yet (a preflight's estimate, without the lock). */
  async addedStorageBytes(workspaceId: string, files: { sha256: string; size: number }[]): Promise<number> {
    const unique = new Map(files.map((f) => [f.sha256, f.size]));
    const [{ added }] = await this.dataSource.query(
      `SELECT coalesce(sum(n.size), 0)::bigint AS added FROM unnest($2::text[], $3::bigint[]) AS n(sha256, size)
        WHERE NOT EXISTS (SELECT 1 FROM workspace_storage_blobs b WHERE b.workspace_id = $1 AND b.sha256 = n.sha256)`,
      [workspaceId, [...unique.keys()], [...unique.values()]],
    );
    return Number(added);
  }

  /** What the workspace uses now, for GET /workspaces/:id. */
  async usage(workspaceId: string): Promise<WorkspaceUsage> {
    const now = this.clock.now();
    if (await this.storageStale(this.dataSource.manager, workspaceId)) {
      await this.dataSource.transaction(async (m) => {
        await this.lock(m, workspaceId);
        await this.freshStorage(m, workspaceId);
      });
    }
    const [row] = await this.dataSource.query(
      `SELECT (SELECT count(*) FROM projects WHERE workspace_id = $1)::int AS projects,
              coalesce((SELECT deployments FROM workspace_monthly_usage WHERE workspace_id = $1 AND month = $2), 0)::int AS deployments,
              coalesce((SELECT bytes FROM workspace_storage WHERE workspace_id = $1), 0)::bigint AS storage`,
      [workspaceId, monthKey(now)],
    );
    return { projects: row.projects, deploymentsPerMonth: row.deployments, storageBytes: Number(row.storage), deploymentsResetAt: nextMonthStart(now) };
  }

  /**
   * Rebuilds the storage count of workspaces whose deployments expired or were
   * deleted since it was last counted, so deploys and reads rarely pay for it.
   * Run by the billing sweeper; returns how many were rebuilt.
   */
  async refreshStaleStorage(batch = 100): Promise<number> {
    const rows: { workspace_id: string }[] = await this.dataSource.query(
      'SELECT DISTINCT workspace_id FROM workspace_storage_changes LIMIT $1',
      [batch],
    );
    for (const { workspace_id: workspaceId } of rows) {
      await this.dataSource.transaction(async (m) => {
        const exists = await m.query('SELECT 1 FROM workspaces WHERE id = $1 FOR NO KEY UPDATE', [workspaceId]);
        // The workspace itself was deleted: nothing to count.
        if (exists.length === 0) await m.query('DELETE FROM workspace_storage_changes WHERE workspace_id = $1', [workspaceId]);
        else await this.freshStorage(m, workspaceId);
      });
    }
    return rows.length;
  }

  private async storageStale(manager: EntityManager, workspaceId: string): Promise<boolean> {
    const [{ stale }] = await manager.query(
      `SELECT NOT EXISTS (SELECT 1 FROM workspace_storage WHERE workspace_id = $1)
              OR EXISTS (SELECT 1 FROM workspace_storage_changes WHERE workspace_id = $1) AS stale`,
      [workspaceId],
    );
    return stale;
  }

  /**
   * Under the workspace lock: when a deployment has left (or entered) the count
   * since the last time, or the workspace was never counted, counts its distinct
   * blobs again from the manifests. A change committed while this runs leaves a
   * log row behind, so the next check counts again: the figure may briefly be too
   * high, never too low.
   */
  private async freshStorage(manager: EntityManager, workspaceId: string): Promise<void> {
    if (!(await this.storageStale(manager, workspaceId))) return;
    await manager.query('DELETE FROM workspace_storage_changes WHERE workspace_id = $1', [workspaceId]);
    await manager.query('DELETE FROM workspace_storage_blobs WHERE workspace_id = $1', [workspaceId]);
    await manager.query(
      `INSERT INTO workspace_storage_blobs (workspace_id, sha256, size)
       SELECT DISTINCT ON (stored.sha256) $1, stored.sha256, stored.size FROM (${STORED_BLOBS}) stored`,
      [workspaceId],
    );
    await manager.query(
      `INSERT INTO workspace_storage (workspace_id, bytes)
       VALUES ($1, (SELECT coalesce(sum(size), 0) FROM workspace_storage_blobs WHERE workspace_id = $1))
       ON CONFLICT (workspace_id) DO UPDATE SET bytes = EXCLUDED.bytes`,
      [workspaceId],
    );
  }

  private async readPlan(manager: EntityManager, workspaceId: string, lock: boolean): Promise<WorkspacePlan> {
    const rows: { plan: Tier; status: 'active' | 'canceled' | null; cancel_at_period_end: boolean | null; current_period_end: Date | null }[] = await manager.query(
      `SELECT w.plan, s.status, s.cancel_at_period_end, s.current_period_end
       FROM workspaces w LEFT JOIN subscriptions s ON s.workspace_id = w.id
       WHERE w.id = $1${lock ? ' FOR NO KEY UPDATE OF w' : ''}`,
      [workspaceId],
    );
    if (rows.length === 0) throw notFound('Workspace', workspaceId);
    const [row] = rows;
    const state: PlanState = {
      plan: row.plan,
      subscription: row.status
        ? { status: row.status, cancelAtPeriodEnd: row.cancel_at_period_end === true, currentPeriodEnd: new Date(row.current_period_end!) }
        : null,
    };
    const tier = effectiveTier(state, this.clock.now());
    return { workspaceId, tier, limits: this.plans.limits(tier) };
  }
}
