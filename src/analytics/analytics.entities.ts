import { Check, Column, type ColumnType, Entity, Index, PrimaryColumn } from 'typeorm';

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

/** The period a rollup row's sums fall in, and its column: an hour (timestamptz), or a UTC day (a date, read as `YYYY-MM-DD`). */
const PERIODS = { hour: { type: 'timestamptz', precision: 3 }, day: { type: 'date' } } as const;
type PeriodStart = { hour: Date; day: string };

/** The key of a rollup row after its project; the period column is named `hour` or `day`. */
type RollupKey<P extends keyof PeriodStart> = { kind: RollupKind; key: string; statusClass: number } & { [K in P]: PeriodStart[P] };

/**
 * A rollup row of `table`: the sums the hourly and daily tables add up alike, keyed by
 * project, kind, `period`, key and status class, in that order, under `PK_<table>`.
 */
function RollupRow<P extends keyof PeriodStart>(table: string, period: P) {
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
  // Declared one by one, as KeyedRow does, because the period column sits in the middle of the key.
  const key: [property: string, column: { type: ColumnType; name: string; precision?: number }][] = [
    ['kind', { type: 'text', name: 'kind' }],
    [period, { ...PERIODS[period], name: period }],
    ['key', { type: 'text', name: 'key' }],
    ['statusClass', { type: 'smallint', name: 'status_class' }],
  ];
  for (const [property, column] of key) PrimaryColumn({ ...column, primaryKeyConstraintName: `PK_${table}` })(RollupSums.prototype, property);
  return RollupSums as abstract new () => RollupSums & RollupKey<P>;
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
export class AnalyticsHourly extends RollupRow('analytics_hourly', 'hour') {}

/** The same sums per UTC day, written by the same flush; kept ANALYTICS_DAILY_RETENTION_DAYS (0: for ever). */
@Entity('analytics_daily')
@Check('CHK_analytics_daily_kind', `"kind" IN ('path', 'total', 'page', 'referrer', 'not_found', 'gate')`)
export class AnalyticsDaily extends RollupRow('analytics_daily', 'day') {}

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
