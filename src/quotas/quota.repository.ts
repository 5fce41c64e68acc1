import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

import { GenerateSql } from '../database/generate-sql';
import type { Tier } from './plans';

/** The plan columns a quota check reads: the workspace's plan and its subscription's state, if any. */
export interface PlanRow {
  plan: Tier;
  status: 'active' | 'past_due' | 'canceled' | null;
  cancel_at_period_end: boolean | null;
  current_period_end: Date | null;
  past_due_since: Date | null;
}

export interface UsageRow {
  projects: number;
  deployments: number;
  storage: string;
  bandwidth: string;
}

/** A workspace's bandwidth in a month after a flush added `added` bytes to it. */
export interface BandwidthRow {
  workspace_id: string;
  month: string;
  bandwidth: string;
  added: string;
}

/** Bytes served per project and month (its first day), as three arrays (unnest pairs them up). */
export interface ProjectBytes {
  projectIds: string[];
  months: string[];
  bytes: number[];
}

/** Distinct blob digests and their sizes, as two arrays (unnest pairs them up). */
export interface BlobSizes {
  shas: string[];
  sizes: number[];
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

/** Bytes of the files ($2 digests, $3 sizes) that workspace $1 does not store yet: what a deploy of them adds. */
const ADDED_BYTES = `SELECT coalesce(sum(n.size), 0) FROM unnest($2::text[], $3::bigint[]) AS n(sha256, size)
                WHERE NOT EXISTS (SELECT 1 FROM workspace_storage_blobs b WHERE b.workspace_id = $1 AND b.sha256 = n.sha256)`;

const FIXTURE_BLOBS: BlobSizes = { shas: ['0'.repeat(64)], sizes: [1] };

/**
 * Every query on what the plan meters: workspace_monthly_usage, workspace_storage,
 * workspace_storage_blobs and workspace_storage_changes. It also holds the quota lock
 * (the workspace row, `FOR NO KEY UPDATE`) and reads the plan under it, and counts from
 * other modules' tables (projects, deployment manifests) inside the statements that
 * need those counts: each is one statement, so one snapshot of the data. Kept out of
 * WorkspacesRepository because quotas are consulted by workspaces and so cannot depend
 * on them (src/quotas/quotas.module.ts).
 */
@Injectable()
export class QuotaRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** With `lock`, the quota lock: held for the rest of the caller's transaction. */
  @GenerateSql(
    { name: 'read', params: (f) => [f.manager, f.workspaceId, false] },
    { name: 'locked', inTransaction: true, params: (f) => [f.manager, f.workspaceId, true] },
  )
  async readPlan(manager: EntityManager, workspaceId: string, lock: boolean): Promise<PlanRow | null> {
    const rows: PlanRow[] = await manager.query(
      `SELECT w.plan, s.status, s.cancel_at_period_end, s.current_period_end, s.past_due_since
       FROM workspaces w LEFT JOIN subscriptions s ON s.workspace_id = w.id
       WHERE w.id = $1${lock ? ' FOR NO KEY UPDATE OF w' : ''}`,
      [workspaceId],
    );
    return rows[0] ?? null;
  }

  /** The quota lock alone, for a workspace that may have been deleted meanwhile: false then. */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.workspaceId] })
  async lockIfExists(manager: EntityManager, workspaceId: string): Promise<boolean> {
    const exists = await manager.query('SELECT 1 FROM workspaces WHERE id = $1 FOR NO KEY UPDATE', [workspaceId]);
    return exists.length > 0;
  }

  @GenerateSql({ params: (f) => [f.manager, f.workspaceId] })
  async countProjects(manager: EntityManager, workspaceId: string): Promise<number> {
    const [{ n }] = await manager.query('SELECT count(*)::int AS n FROM projects WHERE workspace_id = $1', [workspaceId]);
    return n;
  }

  /** Deployments counted in `month` (its first day, YYYY-MM-01). */
  @GenerateSql({ params: (f) => [f.manager, f.workspaceId, '2000-01-01'] })
  async monthlyDeployments(manager: EntityManager, workspaceId: string, month: string): Promise<number> {
    const rows: { deployments: number }[] = await manager.query('SELECT deployments FROM workspace_monthly_usage WHERE workspace_id = $1 AND month = $2', [
      workspaceId,
      month,
    ]);
    return rows[0]?.deployments ?? 0;
  }

  /** Bytes stored now, and the bytes `blobs` would add. */
  @GenerateSql({ params: (f) => [f.manager, f.workspaceId, FIXTURE_BLOBS] })
  async storageUsedAndAdded(manager: EntityManager, workspaceId: string, blobs: BlobSizes): Promise<{ used: number; added: number }> {
    const [{ used, added }] = await manager.query(
      `SELECT (SELECT bytes FROM workspace_storage WHERE workspace_id = $1) AS used,
              (${ADDED_BYTES})::bigint AS added`,
      [workspaceId, blobs.shas, blobs.sizes],
    );
    return { used: Number(used), added: Number(added) };
  }

  /** The bytes `blobs` would add, read without a lock (a preflight's estimate). */
  @GenerateSql({ params: (f) => [f.workspaceId, FIXTURE_BLOBS] })
  async addedBytes(workspaceId: string, blobs: BlobSizes): Promise<number> {
    const [{ added }] = await this.dataSource.query(`SELECT (${ADDED_BYTES})::bigint AS added`, [workspaceId, blobs.shas, blobs.sizes]);
    return Number(added);
  }

  /** Under the quota lock: `blobs` join the workspace's stored set, and `added` (their new bytes) its sum. */
  @GenerateSql({ params: (f) => [f.manager, 'ws_none', FIXTURE_BLOBS, 1] })
  async addBlobs(manager: EntityManager, workspaceId: string, blobs: BlobSizes, added: number): Promise<void> {
    await manager.query(
      `INSERT INTO workspace_storage_blobs (workspace_id, sha256, size)
       SELECT $1, n.sha256, n.size FROM unnest($2::text[], $3::bigint[]) AS n(sha256, size)
       ON CONFLICT (workspace_id, sha256) DO NOTHING`,
      [workspaceId, blobs.shas, blobs.sizes],
    );
    await manager.query('UPDATE workspace_storage SET bytes = bytes + $2 WHERE workspace_id = $1', [workspaceId, added]);
  }

  /** Counts one more deployment this month; the month's count with it. */
  @GenerateSql({ params: (f) => [f.manager, 'ws_none', '2000-01-01'] })
  async countDeployment(manager: EntityManager, workspaceId: string, month: string): Promise<number> {
    const rows: { deployments: number }[] = await manager.query(
      `INSERT INTO workspace_monthly_usage (workspace_id, month, deployments) VALUES ($1, $2, 1)
       ON CONFLICT (workspace_id, month) DO UPDATE SET deployments = workspace_monthly_usage.deployments + 1
       RETURNING deployments`,
      [workspaceId, month],
    );
    return rows[0].deployments;
  }

  /** Records that the workspace crossed `percent` of `metric` in `period`; false when it already had (the event fired then). */
  @GenerateSql({ params: (f) => [f.manager, 'ws_none', 'storageBytes', '2000-01-01', 80, new Date(0)] })
  async recordThreshold(manager: EntityManager, workspaceId: string, metric: string, period: string, percent: number, at: Date): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `INSERT INTO usage_thresholds (workspace_id, metric, period, percent, crossed_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (workspace_id, metric, period, percent) DO NOTHING RETURNING 1`,
      [workspaceId, metric, period, percent, at],
    );
    return rows.length > 0;
  }

  /** Builds of the workspace queued or running now (read under the quota lock, so a start waits for the one before it). */
  @GenerateSql({ params: (f) => [f.manager, f.workspaceId] })
  async activeBuilds(manager: EntityManager, workspaceId: string): Promise<number> {
    const [{ n }] = await manager.query(`SELECT count(*)::int AS n FROM builds WHERE workspace_id = $1 AND status IN ('queued', 'running')`, [workspaceId]);
    return n;
  }

  /** Minutes of the workspace's builds that finished since `since`, each rounded up to a whole minute. */
  @GenerateSql({ params: (f) => [f.manager, f.workspaceId, new Date(0)] })
  async buildMinutesSince(manager: EntityManager, workspaceId: string, since: Date): Promise<number> {
    const [{ minutes }] = await manager.query(
      `SELECT coalesce(sum(ceil(duration_ms / 60000.0)), 0)::int AS minutes
       FROM builds WHERE workspace_id = $1 AND finished_at >= $2 AND duration_ms IS NOT NULL`,
      [workspaceId, since],
    );
    return minutes;
  }

  /** Projects, this month's deployments and stored bytes, in one statement. */
  @GenerateSql({ params: (f) => [f.workspaceId, '2000-01-01'] })
  async usage(workspaceId: string, month: string): Promise<UsageRow> {
    const [row] = await this.dataSource.query(
      `SELECT (SELECT count(*) FROM projects WHERE workspace_id = $1)::int AS projects,
              coalesce((SELECT deployments FROM workspace_monthly_usage WHERE workspace_id = $1 AND month = $2), 0)::int AS deployments,
              coalesce((SELECT bytes FROM workspace_storage WHERE workspace_id = $1), 0)::bigint AS storage,
              coalesce((SELECT bandwidth_bytes FROM workspace_monthly_usage WHERE workspace_id = $1 AND month = $2), 0)::bigint AS bandwidth`,
      [workspaceId, month],
    );
    return row;
  }

  /** Workspaces whose deployments left (or entered) the storage count since it was last counted. */
  @GenerateSql({ params: () => [100] })
  async withStaleStorage(batch: number): Promise<string[]> {
    const rows: { workspace_id: string }[] = await this.dataSource.query('SELECT DISTINCT workspace_id FROM workspace_storage_changes LIMIT $1', [batch]);
    return rows.map((r) => r.workspace_id);
  }

  /** Never counted, or changed since. */
  @GenerateSql({ params: (f) => [f.manager, f.workspaceId] })
  async storageStale(manager: EntityManager, workspaceId: string): Promise<boolean> {
    const [{ stale }] = await manager.query(
      `SELECT NOT EXISTS (SELECT 1 FROM workspace_storage WHERE workspace_id = $1)
              OR EXISTS (SELECT 1 FROM workspace_storage_changes WHERE workspace_id = $1) AS stale`,
      [workspaceId],
    );
    return stale;
  }

  /** A deleted workspace's change log: nothing is left to count. */
  @GenerateSql({ params: (f) => [f.manager, 'ws_none'] })
  async forgetStorageChanges(manager: EntityManager, workspaceId: string): Promise<void> {
    await manager.query('DELETE FROM workspace_storage_changes WHERE workspace_id = $1', [workspaceId]);
  }

  /** Under the quota lock: counts the workspace's distinct blobs again from the manifests. */
  @GenerateSql({ params: (f) => [f.manager, f.workspaceId] })
  async rebuildStorage(manager: EntityManager, workspaceId: string): Promise<void> {
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

  /**
   * Adds bytes served to each project's workspace for the month they were served in
   * (an analytics flush, in its transaction). Rows are written in key order, so two
   * instances flushing at once lock them in the same order. A deleted project's bytes
   * have no workspace left to bill and are dropped.
   */
  @GenerateSql({ params: (f) => [f.manager, { projectIds: [f.projectId], months: ['2000-01-01'], bytes: [100] }] })
  async addBandwidth(manager: EntityManager, served: ProjectBytes): Promise<BandwidthRow[]> {
    return manager.query(
      `WITH served AS (
         SELECT p.workspace_id, n.month, sum(n.bytes)::bigint AS added
         FROM unnest($1::text[], $2::date[], $3::bigint[]) AS n(project_id, month, bytes)
         JOIN projects p ON p.id = n.project_id
         GROUP BY p.workspace_id, n.month),
       counted AS (
         INSERT INTO workspace_monthly_usage (workspace_id, month, bandwidth_bytes)
         SELECT workspace_id, month, added FROM served ORDER BY workspace_id, month
         ON CONFLICT (workspace_id, month) DO UPDATE SET bandwidth_bytes = workspace_monthly_usage.bandwidth_bytes + EXCLUDED.bandwidth_bytes
         RETURNING workspace_id, month, bandwidth_bytes)
       SELECT c.workspace_id, c.month::text AS month, c.bandwidth_bytes AS bandwidth, s.added
       FROM counted c JOIN served s ON s.workspace_id = c.workspace_id AND s.month = c.month`,
      [served.projectIds, served.months, served.bytes],
    );
  }

  /** In the flush's transaction: bytes just counted past a paid plan's limit join the month's overage. */
  @GenerateSql({ params: (f) => [f.manager, 'ws_none', '2000-01-01', 1] })
  async addOverage(manager: EntityManager, workspaceId: string, month: string, bytes: number): Promise<void> {
    await manager.query('UPDATE workspace_monthly_usage SET overage_bytes = overage_bytes + $3 WHERE workspace_id = $1 AND month = $2', [
      workspaceId,
      month,
      bytes,
    ]);
  }

  /** The plan rows of several workspaces at once (an analytics flush's thresholds), without a lock. */
  @GenerateSql({ params: (f) => [f.manager, [f.workspaceId]] })
  async readPlans(manager: EntityManager, workspaceIds: string[]): Promise<(PlanRow & { id: string })[]> {
    return manager.query(
      `SELECT w.id, w.plan, s.status, s.cancel_at_period_end, s.current_period_end, s.past_due_since
       FROM workspaces w LEFT JOIN subscriptions s ON s.workspace_id = w.id
       WHERE w.id = ANY($1::text[])`,
      [workspaceIds],
    );
  }

  /**
   * Workspaces whose spend cap is on, with this month's bandwidth and their plan: the
   * candidates for pausing (whether each is over its plan's limit is decided in code,
   * where the plan table is).
   */
  @GenerateSql({ params: () => ['2000-01-01'] })
  async cappedWorkspaces(month: string): Promise<(PlanRow & { id: string; bandwidth: string })[]> {
    return this.dataSource.query(
      `SELECT w.id, w.plan, s.status, s.cancel_at_period_end, s.current_period_end, s.past_due_since, coalesce(u.bandwidth_bytes, 0) AS bandwidth
       FROM workspace_spend_caps c
       JOIN workspaces w ON w.id = c.workspace_id
       LEFT JOIN subscriptions s ON s.workspace_id = w.id
       LEFT JOIN workspace_monthly_usage u ON u.workspace_id = w.id AND u.month = $1
       WHERE c.pause_sites_at_limit`,
      [month],
    );
  }

  /** Bytes served in `month` (its first day), as of the last analytics flush. */
  @GenerateSql({ params: (f) => [f.manager, f.workspaceId, '2000-01-01'] })
  async monthlyBandwidth(manager: EntityManager, workspaceId: string, month: string): Promise<number> {
    const rows: { bytes: string }[] = await manager.query(
      'SELECT bandwidth_bytes AS bytes FROM workspace_monthly_usage WHERE workspace_id = $1 AND month = $2',
      [workspaceId, month],
    );
    return Number(rows[0]?.bytes ?? 0);
  }
}
