import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';

import { BigintColumn, KeyedRow } from '../database/columns';
import { Project } from '../projects/project.entity';

/**
 * What a rollup row counts: a path per status class (`path`); derived by the flush from
 * those, the project's sums per status class (`total`, key '') and the paths with page
 * views (`page`), so a query reads a few rows instead of every path; a referring host;
 * a path answered 404 (`not_found`); a gate event (`gate`).
 */
export type RollupKind = 'path' | 'total' | 'page' | 'referrer' | 'not_found' | 'gate';
export type GateEvent = 'gate_view' | 'wrong_password' | 'unlocked' | 'email_captured';

/** A rollup row of `table`: keyed by its project, with the sums the hourly and daily tables add up alike. */
function RollupRow(table: string) {
  abstract class RollupSums extends KeyedRow(table, 'project', () => Project) {
    @BigintColumn()
    requests: number;

    @BigintColumn({ name: 'page_views' })
    pageViews: number;

    @BigintColumn({ name: 'bot_requests' })
    botRequests: number;

    @BigintColumn()
    bytes: number;
  }
  return RollupSums;
}

/**
 * Site traffic per project, hour and key, summed by every instance's flushes (upserts
 * add). `status_class` is 1..5 for `path` and `total` rows, 0 for the others. The key
 * leads with the kind, so each query reads one contiguous range.
 * Kept ANALYTICS_HOURLY_RETENTION_DAYS (see AnalyticsRetention).
 */
@Entity('analytics_hourly')
// The retention job deletes by hour across projects.
@Index('IDX_analytics_hourly_hour', ['hour'])
@Check('CHK_analytics_hourly_kind', `"kind" IN ('path', 'total', 'page', 'referrer', 'not_found', 'gate')`)
export class AnalyticsHourly extends RollupRow('analytics_hourly') {
  @PrimaryColumn('text', { name: 'kind', primaryKeyConstraintName: 'PK_analytics_hourly' })
  kind: RollupKind;

  @PrimaryColumn({ type: 'timestamptz', name: 'hour', precision: 3, primaryKeyConstraintName: 'PK_analytics_hourly' })
  hour: Date;

  @PrimaryColumn('text', { name: 'key', primaryKeyConstraintName: 'PK_analytics_hourly' })
  key: string;

  @PrimaryColumn('smallint', { name: 'status_class', primaryKeyConstraintName: 'PK_analytics_hourly' })
  statusClass: number;
}

/** The same sums per UTC day, written by the same flush; kept ANALYTICS_DAILY_RETENTION_DAYS (0: for ever). */
@Entity('analytics_daily')
@Check('CHK_analytics_daily_kind', `"kind" IN ('path', 'total', 'page', 'referrer', 'not_found', 'gate')`)
export class AnalyticsDaily extends RollupRow('analytics_daily') {
  @PrimaryColumn('text', { name: 'kind', primaryKeyConstraintName: 'PK_analytics_daily' })
  kind: RollupKind;

  @PrimaryColumn('date', { name: 'day', primaryKeyConstraintName: 'PK_analytics_daily' })
  day: string;

  @PrimaryColumn('text', { name: 'key', primaryKeyConstraintName: 'PK_analytics_daily' })
  key: string;

  @PrimaryColumn('smallint', { name: 'status_class', primaryKeyConstraintName: 'PK_analytics_daily' })
  statusClass: number;
}

/** A HyperLogLog sketch (src/analytics/hll.ts) of the day's visitors; instances merge into it by register maximum. */
@Entity('analytics_visitors')
export class AnalyticsVisitors extends KeyedRow('analytics_visitors', 'project', () => Project) {
  @PrimaryColumn('date', { name: 'day', primaryKeyConstraintName: 'PK_analytics_visitors' })
  day: string;

  @Column('bytea')
  sketch: Buffer;
}

/**
 * The key of the visitor hash for one UTC day, shared by every instance and deleted
 * once the day is over: after that nobody, not even us, can link a hash to an address.
 */
@Entity('analytics_secrets')
export class AnalyticsSecret {
  @PrimaryColumn('date', { name: 'day', primaryKeyConstraintName: 'PK_analytics_secrets' })
  day: string;

  @Column('bytea')
  secret: Buffer;
}
