import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';

import { pgArray } from '../common/pg-arrays';
import { GenerateSql } from '../database/generate-sql';
import type { RollupKind } from './analytics.entities';
import { OTHER_PATH } from './traffic';

/** One rollup row's counts since the last flush; `hour` in ms (for a daily row, the day's first). */
export interface RollupRow {
  projectId: string;
  hour: number;
  kind: RollupKind;
  key: string;
  statusClass: number;
  requests: number;
  pageViews: number;
  botRequests: number;
  bytes: number;
}

export interface SeriesRow {
  t: Date | string;
  page_views: string;
  requests: string;
  bytes: string;
  s4: string;
  s5: string;
  bots: string;
}

/**
 * The range a top list reads: daily rows for the whole days inside it, hourly rows only
 * for the partial days at its ends.
 */
export interface TopRange {
  projectId: string;
  from: Date;
  to: Date;
  /** First and end whole day (`YYYY-MM-DD`), and the same as instants. */
  wholeFromDay: string;
  wholeToDay: string;
  wholeFrom: Date;
  wholeTo: Date;
}

export type RollupTable = 'analytics_hourly' | 'analytics_daily';

const DAY = '2026-01-15';
const HOUR = new Date('2026-01-15T10:00:00Z');
const topRange = (projectId: string): TopRange => ({
  projectId,
  from: new Date('2026-01-14T10:00:00Z'),
  to: new Date('2026-01-16T10:00:00Z'),
  wholeFromDay: '2026-01-15',
  wholeToDay: '2026-01-16',
  wholeFrom: new Date('2026-01-15T00:00:00Z'),
  wholeTo: new Date('2026-01-16T00:00:00Z'),
});
const exampleRow = (projectId: string): RollupRow => ({
  projectId,
  hour: HOUR.getTime(),
  kind: 'path',
  key: '/',
  statusClass: 2,
  requests: 1,
  pageViews: 1,
  botRequests: 0,
  bytes: 100,
});

/**
 * Every query on the analytics tables: the hourly and daily rollups (one range of the
 * primary key (project, kind, time) per read), the per-day visitor sketches and the
 * per-day visitor-hash keys.
 */
@Injectable()
export class AnalyticsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The `total` rows per bucket (days as dates, hours as instants: both compare on the primary key's second column). */
  @GenerateSql(
    { name: 'day', params: (f) => ['day', f.projectId, DAY, '2026-01-16'] },
    { name: 'hour', params: (f) => ['hour', f.projectId, HOUR, new Date(HOUR.getTime() + 3_600_000)] },
  )
  series(interval: 'day' | 'hour', projectId: string, from: Date | string, to: Date | string): Promise<SeriesRow[]> {
    const table = interval === 'day' ? 'analytics_daily' : 'analytics_hourly';
    const time = interval === 'day' ? 'day' : 'hour';
    const where = `project_id = $1 AND ${time} >= $2 AND ${time} < $3`; // with `kind`: one range of the primary key
    return this.dataSource.query(
      `SELECT ${time === 'day' ? 'day::text' : 'hour'} AS t, sum(page_views) AS page_views, sum(requests) AS requests, sum(bytes) AS bytes,
           coalesce(sum(requests) FILTER (WHERE status_class = 4), 0) AS s4, coalesce(sum(requests) FILTER (WHERE status_class = 5), 0) AS s5,
           sum(bot_requests) AS bots
         FROM ${table} WHERE ${where} AND kind = 'total' GROUP BY ${time}`,
      [projectId, from, to],
    );
  }

  /**
   * The busiest keys of one kind over the range; `limit` null: all of them. A 30-day
   * range by hour reads 30 days' worth of daily keys, not 720 hours' worth.
   */
  @GenerateSql(
    { name: 'top 10', params: (f) => [topRange(f.projectId), 'page', 'page_views', 10] },
    { name: 'all', params: (f) => [topRange(f.projectId), 'gate', 'requests', null] },
  )
  top(
    range: TopRange,
    kind: 'page' | 'referrer' | 'not_found' | 'gate',
    measure: 'page_views' | 'requests',
    limit: number | null,
  ): Promise<{ key: string; n: string }[]> {
    return this.dataSource.query(
      `SELECT key, sum(n) AS n FROM (
           SELECT key, ${measure} AS n FROM analytics_daily WHERE project_id = $1 AND kind = '${kind}' AND day >= $4 AND day < $5
           UNION ALL
           SELECT key, ${measure} FROM analytics_hourly WHERE project_id = $1 AND kind = '${kind}' AND ((hour >= $2 AND hour < $6) OR (hour >= $7 AND hour < $3))
         ) rows GROUP BY key ORDER BY n DESC, key ${limit === null ? '' : `LIMIT ${limit}`}`,
      [range.projectId, range.from, range.to, range.wholeFromDay, range.wholeToDay, range.wholeFrom, range.wholeTo],
    );
  }

  /** The visitor sketches of the days in [fromDay, toDay). */
  @GenerateSql({ params: (f) => [f.projectId, DAY, '2026-01-16'] })
  visitorSketches(projectId: string, fromDay: string, toDay: string): Promise<{ day: string; sketch: Buffer }[]> {
    return this.dataSource.query(`SELECT day::text AS day, sketch FROM analytics_visitors WHERE project_id = $1 AND day >= $2::date AND day < $3::date`, [
      projectId,
      fromDay,
      toDay,
    ]);
  }

  /**
   * Adds a flush's counted rows to both rollups in one statement whatever the batch size:
   * the hourly rows as counted plus what reads use instead of every path (per project, hour
   * and status class the sums, `total`; per path with page views those, `page`), and the
   * same summed per UTC day. Derived here, not in the app: a flush of 100,000 sites' rows
   * sent them six times (hourly and daily, counted and derived) and sorted them on the
   * serving core. Rows of a project deleted meanwhile are dropped. Both inserts go in key
   * order, so two instances flushing at once lock rows in the same order (no deadlock).
   */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, [exampleRow(f.projectId)]] })
  async addCounts(manager: EntityManager, rows: RollupRow[]): Promise<void> {
    // Encoded here (pgArray), not by node-postgres: a flush's arrays are long, and its encoder is slow.
    await manager.query(ADD_COUNTS_SQL, [
      pgArray(rows.map((r) => r.projectId)),
      pgArray(rows.map((r) => r.hour)),
      pgArray(rows.map((r) => r.kind)),
      pgArray(rows.map((r) => r.key)),
      pgArray(rows.map((r) => r.statusClass)),
      pgArray(rows.map((r) => r.requests)),
      pgArray(rows.map((r) => r.pageViews)),
      pgArray(rows.map((r) => r.botRequests)),
      pgArray(rows.map((r) => r.bytes)),
    ]);
  }

  /**
   * Empty placeholder sketches for these (project, day) pairs, so that a concurrent
   * flush waits on them (lockSketches) instead of overwriting.
   */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, [f.projectId], [DAY]] })
  async insertSketchPlaceholders(manager: EntityManager, projects: string[], days: string[]): Promise<void> {
    await manager.query(
      `INSERT INTO analytics_visitors (project_id, day, sketch)
       SELECT u.project_id, u.day, ''::bytea FROM unnest($1::text[], $2::date[]) AS u(project_id, day)
       WHERE EXISTS (SELECT 1 FROM projects p WHERE p.id = u.project_id)
       ON CONFLICT (project_id, day) DO NOTHING`,
      [pgArray(projects), pgArray(days)],
    );
  }

  /**
   * Locks the stored sketches of these pairs until the transaction ends, in key order: two
   * flushes touching the same pairs wait for each other and never deadlock. The rows are
   * counted, not returned: the merge happens in PostgreSQL (mergeRegisters).
   */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, [f.projectId], [DAY]] })
  async lockSketches(manager: EntityManager, projects: string[], days: string[]): Promise<void> {
    await manager.query(
      `SELECT count(*)::int AS locked FROM (
         SELECT 1 FROM analytics_visitors v
         JOIN unnest($1::text[], $2::date[]) AS u(project_id, day) ON v.project_id = u.project_id AND v.day = u.day
         ORDER BY v.project_id, v.day FOR UPDATE OF v
       ) l`,
      [pgArray(projects), pgArray(days)],
    );
  }

  /**
   * Raises registers of stored sketches, in PostgreSQL (analytics_merge_registers, migration
   * 1764900000000): entry i raises register `indexes[i]` of (projects[i], days[i]) to at
   * least `ranks[i]`. Only the registers new visitors touched travel, a few bytes each, not
   * the 16 KB sketches; `zeros` is an empty sketch, for a placeholder's first merge.
   */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, [f.projectId], [DAY], [0], [1], Buffer.alloc(0)] })
  async mergeRegisters(manager: EntityManager, projects: string[], days: string[], indexes: number[], ranks: number[], zeros: Buffer): Promise<void> {
    await manager.query(
      `UPDATE analytics_visitors v SET sketch = analytics_merge_registers(v.sketch, $5::bytea, u.indexes, u.ranks)
       FROM (
         SELECT t.project_id, t.day, array_agg(t.idx ORDER BY t.idx) AS indexes, array_agg(t.rnk ORDER BY t.idx) AS ranks
         FROM unnest($1::text[], $2::date[], $3::int[], $4::int[]) AS t(project_id, day, idx, rnk)
         GROUP BY t.project_id, t.day
       ) u
       WHERE v.project_id = u.project_id AND v.day = u.day`,
      [pgArray(projects), pgArray(days), pgArray(indexes), pgArray(ranks), zeros],
    );
  }

  /** Creates the two days' visitor-hash keys unless another instance did first. */
  @GenerateSql({ params: () => [DAY, Buffer.alloc(32), '2026-01-16', Buffer.alloc(32)] })
  async insertSecrets(today: string, todaySecret: Buffer, tomorrow: string, tomorrowSecret: Buffer): Promise<void> {
    await this.dataSource.query('INSERT INTO analytics_secrets (day, secret) VALUES ($1, $2), ($3, $4) ON CONFLICT (day) DO NOTHING', [
      today,
      todaySecret,
      tomorrow,
      tomorrowSecret,
    ]);
  }

  @GenerateSql({ params: () => [DAY, '2026-01-16'] })
  secrets(today: string, tomorrow: string): Promise<{ day: string; secret: Buffer }[]> {
    return this.dataSource.query('SELECT day::text AS day, secret FROM analytics_secrets WHERE day IN ($1, $2)', [today, tomorrow]);
  }

  /** The keys of past days: a visitor hash must not be recomputable afterwards. */
  @GenerateSql({ params: () => ['1970-01-01'] })
  async deleteSecretsBefore(day: string): Promise<void> {
    await this.dataSource.query('DELETE FROM analytics_secrets WHERE day < $1', [day]);
  }

  @GenerateSql({ params: () => [new Date(0)] })
  async deleteHourlyBefore(cutoff: Date): Promise<number> {
    const [, deleted] = (await this.dataSource.query('DELETE FROM analytics_hourly WHERE hour < $1', [cutoff])) as [unknown, number];
    return deleted;
  }

  @GenerateSql({ params: () => ['1970-01-01'] })
  async deleteDailyBefore(day: string): Promise<number> {
    const [, deleted] = (await this.dataSource.query('DELETE FROM analytics_daily WHERE day < $1', [day])) as [unknown, number];
    return deleted;
  }

  @GenerateSql({ params: () => ['1970-01-01'] })
  async deleteSketchesBefore(day: string): Promise<number> {
    const [, deleted] = (await this.dataSource.query('DELETE FROM analytics_visitors WHERE day < $1', [day])) as [unknown, number];
    return deleted;
  }

  /**
   * Keeps the `keep` busiest keys per project, kind, bucket and status class in
   * [from, to) and folds the others into one `(other)` row each, in one statement
   * (sums unchanged). Returns how many rows were folded.
   */
  @GenerateSql(
    { name: 'hourly', inTransaction: true, params: () => ['analytics_hourly', HOUR, new Date(HOUR.getTime() + 3_600_000), 100] },
    { name: 'daily', inTransaction: true, params: () => ['analytics_daily', DAY, '2026-01-16', 100] },
  )
  async compact(table: RollupTable, from: Date | string, to: Date | string, keep: number): Promise<number> {
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

const ADD_SET = `requests = t.requests + EXCLUDED.requests,
      page_views = t.page_views + EXCLUDED.page_views,
      bot_requests = t.bot_requests + EXCLUDED.bot_requests,
      bytes = t.bytes + EXCLUDED.bytes`;

const SUMS = 'sum(requests)::bigint, sum(page_views)::bigint, sum(bot_requests)::bigint, sum(bytes)::bigint';

const ADD_COUNTS_SQL = `WITH counted AS (
    SELECT u.project_id, to_timestamp(u.hour_ms / 1000) AS hour, u.kind, u.key, u.status_class, u.requests, u.page_views, u.bot_requests, u.bytes
    FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::smallint[], $6::bigint[], $7::bigint[], $8::bigint[], $9::bigint[])
      AS u(project_id, hour_ms, kind, key, status_class, requests, page_views, bot_requests, bytes)
    WHERE EXISTS (SELECT 1 FROM projects p WHERE p.id = u.project_id)
  ), hourly_rows AS (
    SELECT * FROM counted
    UNION ALL
    SELECT project_id, hour, 'total', '', status_class, ${SUMS} FROM counted WHERE kind = 'path' GROUP BY project_id, hour, status_class
    UNION ALL
    SELECT project_id, hour, 'page', key, 0::smallint, ${SUMS} FROM counted WHERE kind = 'path' AND page_views > 0 GROUP BY project_id, hour, key
  ), hourly AS (
    INSERT INTO analytics_hourly AS t (project_id, hour, kind, key, status_class, requests, page_views, bot_requests, bytes)
    SELECT * FROM hourly_rows ORDER BY project_id, kind, hour, key, status_class
    ON CONFLICT (project_id, kind, hour, key, status_class) DO UPDATE SET ${ADD_SET}
  )
  INSERT INTO analytics_daily AS t (project_id, day, kind, key, status_class, requests, page_views, bot_requests, bytes)
  SELECT project_id, (hour AT TIME ZONE 'UTC')::date AS day, kind, key, status_class, ${SUMS} FROM hourly_rows
  GROUP BY project_id, kind, day, key, status_class ORDER BY project_id, kind, day, key, status_class
  ON CONFLICT (project_id, kind, day, key, status_class) DO UPDATE SET ${ADD_SET}`;
