import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

import { GenerateSql } from '../../database/generate-sql';

/**
 * `site_warm_list`: the site hosts (SiteCache keys, `s:<slug>` and `d:<domain>`) served most
 * recently, across every instance, for the warm start (SiteWarmStart).
 */
@Injectable()
export class WarmListRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Records `keys` (most recent first) as served at `servedAt`, each a millisecond before
   * the one ahead of it so the order survives, then keeps only the `keep` most recent rows
   * of all instances. A key another instance served later keeps its later time. Rows are
   * written in key order: two instances writing overlapping lists lock them in the same
   * order, so they wait for each other instead of deadlocking.
   */
  @GenerateSql({ params: () => [['s:example', 'd:www.example.com'], new Date(0), 1000] })
  async record(keys: string[], servedAt: Date, keep: number): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      await m.query(
        `INSERT INTO site_warm_list (host_key, served_at)
         SELECT key, $2::timestamptz - (rank - 1) * interval '1 millisecond'
         FROM unnest($1::text[]) WITH ORDINALITY AS t(key, rank)
         ORDER BY key
         ON CONFLICT (host_key) DO UPDATE SET served_at = GREATEST(site_warm_list.served_at, EXCLUDED.served_at)`,
        [keys, servedAt],
      );
      await m.query(`DELETE FROM site_warm_list WHERE host_key IN (SELECT host_key FROM site_warm_list ORDER BY served_at DESC OFFSET $1)`, [keep]);
    });
  }

  /** The `limit` keys served most recently, most recent first. */
  @GenerateSql({ params: () => [1000] })
  async recent(limit: number): Promise<string[]> {
    const rows: { host_key: string }[] = await this.dataSource.query('SELECT host_key FROM site_warm_list ORDER BY served_at DESC LIMIT $1', [limit]);
    return rows.map((r) => r.host_key);
  }
}
