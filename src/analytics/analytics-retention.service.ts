import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PeriodicJob } from '../common/periodic-job';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { OTHER_PATH } from './analytics-recorder.service';
import { dayOf } from './traffic';

/** Any constant: the advisory lock that lets one instance at a time run the retention job. */
const RETENTION_LOCK = 7_461_014;

export interface RetentionReport {
  ran: boolean;
  hourlyDeleted: number;
  dailyDeleted: number;
  sketchesDeleted: number;
  /** Rows folded into `(other)` rows. */
  folded: number;
}

const HOUR = 3_600_000;
const DAY = 86_400_000;

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
    return (await this.trigger()) ?? { ran: false, hourlyDeleted: 0, dailyDeleted: 0, sketchesDeleted: 0, folded: 0 };
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
    // Buckets that ended over an hour ago (a flush may still bring the last seconds of one
    // in), looked at on two runs in a row so one missed run leaves nothing behind.
    const hourEnd = Math.floor(now / HOUR) * HOUR - HOUR;
    let folded = await this.compact('analytics_hourly', new Date(hourEnd - 2 * HOUR), new Date(hourEnd), this.config.ANALYTICS_HOURLY_KEYS_KEPT);
    folded += await this.compact('analytics_daily', dayOf(now - HOUR - 2 * DAY), dayOf(now - HOUR), this.config.ANALYTICS_KEYS_KEPT);
    return { ran: true, hourlyDeleted, dailyDeleted, sketchesDeleted, folded };
  }

  /**
   * Keeps the `keep` busiest keys per project, kind, bucket and status class in
   * [from, to) and folds the others into one `(other)` row each, in one statement
   * (sums unchanged). A scanner's thousand junk paths a day then cost one row, and a
   * range's top lists read at most `keep` keys per bucket. Running it again changes nothing.
   */
  async compact(table: 'analytics_hourly' | 'analytics_daily', from: Date | string, to: Date | string, keep: number): Promise<number> {
    const time = table === 'analytics_hourly' ? 'hour' : 'day';
    const rows = (await this.dataSource.query(
      `WITH ranked AS (
         SELECT project_id, kind, ${time} AS t, key, status_class,
                row_number() OVER (PARTITION BY project_id, kind, ${time}, status_class ORDER BY page_views DESC, requests DESC, key) AS rn
         FROM ${table}
         WHERE ${time} >= $1 AND ${time} < $2 AND kind IN ('path', 'page', 'referrer', 'not_found') AND key <> '${OTHER_PATH}'
       ), gone AS (
         DELETE FROM ${table} d USING ranked r
         WHERE r.rn > $3 AND d.project_id = r.project_id AND d.kind = r.kind AND d.${time} = r.t AND d.key = r.key AND d.status_class = r.status_class
         RETURNING d.project_id, d.kind, d.${time} AS t, d.status_class, d.requests, d.page_views, d.bot_requests, d.bytes
       )
       INSERT INTO ${table} AS x (project_id, kind, ${time}, key, status_class, requests, page_views, bot_requests, bytes)
       SELECT project_id, kind, t, '${OTHER_PATH}', status_class, sum(requests), sum(page_views), sum(bot_requests), sum(bytes)
       FROM gone GROUP BY project_id, kind, t, status_class
       ON CONFLICT (project_id, kind, ${time}, key, status_class) DO UPDATE SET
         requests = x.requests + EXCLUDED.requests, page_views = x.page_views + EXCLUDED.page_views,
         bot_requests = x.bot_requests + EXCLUDED.bot_requests, bytes = x.bytes + EXCLUDED.bytes
       RETURNING (SELECT count(*) FROM gone) AS folded`,
      [from, to, keep],
    )) as { folded: string }[];
    return rows.length > 0 ? Number(rows[0].folded) : 0;
  }
}
