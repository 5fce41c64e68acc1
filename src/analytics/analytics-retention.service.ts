import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PeriodicJob } from '../common/periodic-job';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { dayOf } from './traffic';

/** Any constant: the advisory lock that lets one instance at a time run the retention job. */
const RETENTION_LOCK = 7_461_014;

export interface RetentionReport {
  ran: boolean;
  hourlyDeleted: number;
  dailyDeleted: number;
  sketchesDeleted: number;
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
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {
    super(AnalyticsRetention.name, config.ANALYTICS_RETENTION_INTERVAL_SECONDS, { dataSource, lockId: RETENTION_LOCK });
  }

  async runOnce(): Promise<RetentionReport> {
    return (await this.trigger()) ?? { ran: false, hourlyDeleted: 0, dailyDeleted: 0, sketchesDeleted: 0 };
  }

  protected async work(): Promise<RetentionReport> {
    const now = this.clock.now().getTime();
    const hourlyCutoff = new Date(now - this.config.ANALYTICS_HOURLY_RETENTION_DAYS * 86_400_000);
    const [, hourlyDeleted] = (await this.dataSource.query('DELETE FROM analytics_hourly WHERE hour < $1', [hourlyCutoff])) as [unknown, number];
    let dailyDeleted = 0;
    let sketchesDeleted = 0;
    if (this.config.ANALYTICS_DAILY_RETENTION_DAYS > 0) {
      const dayCutoff = dayOf(now - this.config.ANALYTICS_DAILY_RETENTION_DAYS * 86_400_000);
      [, dailyDeleted] = (await this.dataSource.query('DELETE FROM analytics_daily WHERE day < $1', [dayCutoff])) as [unknown, number];
      [, sketchesDeleted] = (await this.dataSource.query('DELETE FROM analytics_visitors WHERE day < $1', [dayCutoff])) as [unknown, number];
    }
    // Instances also delete them on their first flush of a day; this catches a day with no traffic.
    await this.dataSource.query('DELETE FROM analytics_secrets WHERE day < $1', [dayOf(now)]);
    return { ran: true, hourlyDeleted, dailyDeleted, sketchesDeleted };
  }
}
