import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { type JobReport, PeriodicJob } from '../common/periodic-job';
import { Clock, DAY_MS, HOUR_MS } from '../common/time';
import { AppConfig } from '../config/app-config';
import { ADVISORY_LOCKS } from '../database/advisory-locks';
import { AnalyticsRepository, type RollupTable } from './analytics.repository';
import { dayOf } from './traffic';

export interface RetentionReport extends JobReport {
  hourlyDeleted: number;
  dailyDeleted: number;
  sketchesDeleted: number;
  /** Rows folded into `(other)` rows. */
  folded: number;
}

/**
 * Keeps the analytics tables bounded: hourly rows past ANALYTICS_HOURLY_RETENTION_DAYS,
 * daily rows and sketches past ANALYTICS_DAILY_RETENTION_DAYS (0: kept), and visitor
 * keys of past days. Nothing needs rolling up: each flush writes the daily rows beside
 * the hourly ones. One instance at a time (advisory lock), like the TTL sweep.
 */
@Injectable()
export class AnalyticsRetention extends PeriodicJob<RetentionReport> {
  constructor(
    dataSource: DataSource,
    private readonly analytics: AnalyticsRepository,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {
    super(AnalyticsRetention.name, config.ANALYTICS_RETENTION_INTERVAL_SECONDS, { dataSource, lockId: ADVISORY_LOCKS.analyticsRetention });
  }

  async runOnce(): Promise<RetentionReport> {
    return (await this.trigger()) ?? { ran: false, hourlyDeleted: 0, dailyDeleted: 0, sketchesDeleted: 0, folded: 0 };
  }

  protected async work(): Promise<RetentionReport> {
    const now = this.clock.now().getTime();
    const hourlyCutoff = new Date(now - this.config.ANALYTICS_HOURLY_RETENTION_DAYS * DAY_MS);
    const hourlyDeleted = await this.analytics.deleteHourlyBefore(hourlyCutoff);
    let dailyDeleted = 0;
    let sketchesDeleted = 0;
    if (this.config.ANALYTICS_DAILY_RETENTION_DAYS > 0) {
      const dayCutoff = dayOf(now - this.config.ANALYTICS_DAILY_RETENTION_DAYS * DAY_MS);
      dailyDeleted = await this.analytics.deleteDailyBefore(dayCutoff);
      sketchesDeleted = await this.analytics.deleteSketchesBefore(dayCutoff);
    }
    // Instances also delete them on their first flush of a day; this catches a day with no traffic.
    await this.analytics.deleteSecretsBefore(dayOf(now));
    // Buckets that ended over an hour ago (a flush may still bring the last seconds of one
    // in), looked at on two runs in a row so one missed run leaves nothing behind.
    const hourEnd = Math.floor(now / HOUR_MS) * HOUR_MS - HOUR_MS;
    let folded = await this.compact('analytics_hourly', new Date(hourEnd - 2 * HOUR_MS), new Date(hourEnd), this.config.ANALYTICS_HOURLY_KEYS_KEPT);
    folded += await this.compact('analytics_daily', dayOf(now - HOUR_MS - 2 * DAY_MS), dayOf(now - HOUR_MS), this.config.ANALYTICS_KEYS_KEPT);
    return { ran: true, hourlyDeleted, dailyDeleted, sketchesDeleted, folded };
  }

  /**
   * Keeps the `keep` busiest keys per project, kind, bucket and status class in
   * [from, to) and folds the others into one `(other)` row each, in one statement
   * (sums unchanged). A scanner's thousand junk paths a day then cost one row, and a
   * range's top lists read at most `keep` keys per bucket. Running it again changes nothing.
   */
  compact(table: RollupTable, from: Date | string, to: Date | string, keep: number): Promise<number> {
    return this.analytics.compact(table, from, to, keep);
  }
}
