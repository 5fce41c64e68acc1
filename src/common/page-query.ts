import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';

const TOTAL = 'page_total';

/**
 * One page of a query and the total count in a single round trip (`COUNT(*) OVER()`
 * beside each row) instead of findAndCount's two. A page past the end has no row to
 * carry the total, so only then is it counted on its own. For queries with at most one
 * row per entity (no to-many joins): it pages with LIMIT/OFFSET on the rows.
 */
export async function pageWithTotal<T extends ObjectLiteral>(
  query: SelectQueryBuilder<T>,
  page: number,
  limit: number,
): Promise<{ entities: T[]; raw: Record<string, unknown>[]; total: number }> {
  const { entities, raw } = await query
    .clone()
    .addSelect('COUNT(*) OVER()', TOTAL)
    .offset((page - 1) * limit)
    .limit(limit)
    .getRawAndEntities<Record<string, unknown>>();
  const total = raw.length > 0 ? Number(raw[0][TOTAL]) : page === 1 ? 0 : await query.getCount();
  return { entities, raw, total };
}
