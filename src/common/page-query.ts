import type { DataSource } from 'typeorm';

import { preparedQuery } from '../database/prepared-query';

/** The column a page query's total rides in. */
export const PAGE_TOTAL = 'page_total';

/**
 * One page of rows and the exact total in one round trip, as a prepared statement. The
 * query has this shape, so the total comes back even for a page past the end:
 *
 *   SELECT c.page_total, t.* FROM (SELECT count(*) AS page_total FROM … WHERE …) c
 *   LEFT JOIN LATERAL (SELECT … WHERE … ORDER BY … LIMIT $n OFFSET $m) t ON true
 *   ORDER BY …
 *
 * Unlike `COUNT(*) OVER()` beside each row, the page itself reads only its own rows (by
 * index) instead of every matching row, and the count is an index-only scan.
 * `keyColumn` is a column the page's rows never have NULL: the one row of an empty
 * page has it NULL.
 */
export async function preparedPage(
  dataSource: DataSource,
  name: string,
  sql: string,
  values: unknown[],
  keyColumn = 'id',
): Promise<{ rows: Record<string, unknown>[]; total: number }> {
  const rows = await preparedQuery<Record<string, unknown>>(dataSource, name, sql, values);
  return { rows: rows.filter((r) => r[keyColumn] !== null), total: Number(rows[0]?.[PAGE_TOTAL] ?? 0) };
}
