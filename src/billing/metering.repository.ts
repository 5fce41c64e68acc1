import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

import { GenerateSql } from '../database/generate-sql';

/** A month of a Stripe workspace with overage not reported yet, or a report in flight. */
export interface OverageRow {
  workspace_id: string;
  month: string;
  overage: string;
  reported: string;
  pending: string | null;
  customer_ref: string;
}

/**
 * The queries of metering (issue 31): the spend cap (workspace_spend_caps), the owners a
 * usage alert goes to, and the overage report's bookkeeping on workspace_monthly_usage.
 */
@Injectable()
export class MeteringRepository {
  constructor(private readonly dataSource: DataSource) {}

  @GenerateSql({ params: (f) => [f.workspaceId] })
  async spendCap(workspaceId: string): Promise<boolean> {
    const rows: { pause: boolean }[] = await this.dataSource.query('SELECT pause_sites_at_limit AS pause FROM workspace_spend_caps WHERE workspace_id = $1', [
      workspaceId,
    ]);
    return rows[0]?.pause ?? false;
  }

  @GenerateSql({ params: (f) => [f.workspaceId, true, new Date(0)] })
  async setSpendCap(workspaceId: string, pause: boolean, now: Date, manager: EntityManager = this.dataSource.manager): Promise<void> {
    await manager.query(
      `INSERT INTO workspace_spend_caps (workspace_id, pause_sites_at_limit, updated_at) VALUES ($1, $2, $3)
       ON CONFLICT (workspace_id) DO UPDATE SET pause_sites_at_limit = EXCLUDED.pause_sites_at_limit, updated_at = EXCLUDED.updated_at`,
      [workspaceId, pause, now],
    );
  }

  /** This month's bandwidth of one workspace (GET /billing/spend-cap). */
  @GenerateSql({ params: (f) => [f.workspaceId, '2000-01-01'] })
  async bandwidth(workspaceId: string, month: string): Promise<number> {
    const rows: { bytes: string }[] = await this.dataSource.query(
      'SELECT bandwidth_bytes AS bytes FROM workspace_monthly_usage WHERE workspace_id = $1 AND month = $2',
      [workspaceId, month],
    );
    return Number(rows[0]?.bytes ?? 0);
  }

  /**
   * Months since `since` of workspaces billed through Stripe (a customer and a subscription
   * there) whose spend cap is off, with overage (counted when served, against the paid plan
   * then: QuotaService.countBandwidth) not reported yet, or a report in flight. A workspace
   * back on free still has the overage of its paid days billed.
   */
  @GenerateSql({ params: () => ['2000-01-01'] })
  overageCandidates(since: string): Promise<OverageRow[]> {
    return this.dataSource.query(
      `SELECT u.workspace_id, u.month::text AS month, u.overage_bytes AS overage, u.overage_reported_bytes AS reported,
              u.overage_pending_bytes AS pending, c.customer_ref
       FROM workspace_monthly_usage u
       JOIN subscriptions s ON s.workspace_id = u.workspace_id AND s.provider = 'stripe'
       JOIN billing_customers c ON c.workspace_id = u.workspace_id AND c.provider = 'stripe' AND c.customer_ref IS NOT NULL
       WHERE u.month >= $1
         AND (u.overage_pending_bytes IS NOT NULL
              OR (u.overage_bytes > u.overage_reported_bytes
                  AND NOT EXISTS (SELECT 1 FROM workspace_spend_caps cap WHERE cap.workspace_id = u.workspace_id AND cap.pause_sites_at_limit)))
       ORDER BY u.workspace_id, u.month`,
      [since],
    );
  }

  /** Puts a report in flight (its total overage after it); false when another one already is. */
  @GenerateSql({ params: (f) => [f.workspaceId, '2000-01-01', 1] })
  async startReport(workspaceId: string, month: string, through: number): Promise<boolean> {
    const [{ n }]: { n: number }[] = await this.dataSource.query(
      `WITH started AS (
         UPDATE workspace_monthly_usage SET overage_pending_bytes = $3
         WHERE workspace_id = $1 AND month = $2 AND overage_pending_bytes IS NULL AND overage_reported_bytes < $3 RETURNING 1)
       SELECT count(*)::int AS n FROM started`,
      [workspaceId, month, through],
    );
    return n > 0;
  }

  /** The report in flight reached the provider: its total is now reported. */
  @GenerateSql({ params: (f) => [f.workspaceId, '2000-01-01', 1] })
  async finishReport(workspaceId: string, month: string, through: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE workspace_monthly_usage SET overage_reported_bytes = overage_pending_bytes, overage_pending_bytes = NULL
       WHERE workspace_id = $1 AND month = $2 AND overage_pending_bytes = $3`,
      [workspaceId, month, through],
    );
  }
}
