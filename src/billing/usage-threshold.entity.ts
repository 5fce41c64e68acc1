import { Check, Entity, PrimaryColumn } from 'typeorm';

import { KeyedRow, TimestampColumn } from '../database/columns';
import { Workspace } from '../workspaces/workspace.entity';

/**
 * A metered limit's threshold (50, 75 or 100 % of the plan; issue 31) a workspace crossed in a period
 * (the month, `YYYY-MM-01`): written in the transaction that crossed it, so the
 * `usage.threshold` event fires once per crossing per period, however many deploys follow.
 * Beside the other metered tables (billing.entities.ts); QuotaRepository writes it.
 */
@Entity('usage_thresholds')
@Check('CHK_usage_thresholds_metric', `"metric" IN ('deploymentsPerMonth', 'storageBytes', 'bandwidthBytesPerMonth', 'buildMinutesPerMonth')`)
@Check('CHK_usage_thresholds_percent', `"percent" IN (50, 75, 100)`)
export class UsageThreshold extends KeyedRow('usage_thresholds', 'workspace', () => Workspace) {
  @PrimaryColumn('text', { primaryKeyConstraintName: 'PK_usage_thresholds' })
  metric: string;

  @PrimaryColumn('date', { primaryKeyConstraintName: 'PK_usage_thresholds' })
  period: string;

  @PrimaryColumn('integer', { primaryKeyConstraintName: 'PK_usage_thresholds' })
  percent: number;

  @TimestampColumn('crossed_at')
  crossedAt: Date;
}
