/**
 * Seeding for bench:sites (issue 35): many live sites, written straight into PostgreSQL as
 * copies of one template site that was deployed through the API.
 *
 * Copying the template's rows (projects, deployments, deployment_files) rather than
 * writing them from scratch keeps the seed in step with the schema: every column the
 * deploy path fills (and any a later migration adds) is copied from a real deploy, and
 * only the identifiers change. Every seeded deployment lists the template's files, so
 * they all share its blobs: one stored object for any number of sites.
 *
 * Three `INSERT … SELECT … FROM generate_series` statements in one transaction: 100,000
 * sites take seconds, not the minutes one deploy per site through the API would.
 */
import type { ClientBase } from 'pg';

import { ID_BODY_LENGTH } from '../src/common/ids';

/** The page every site serves as `index.html`: 1.5 KB, the size. */
export const SITE_PAGE = (() => {
  const head = '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>bench site</title></head>\n<body>\n';
  const tail = '</body></html>\n';
  const filler = Array.from({ length: 40 }, (_, i) => `<p>Paragraph ${i} of a small static page served by the site router.</p>\n`).join('');
  return (head + filler).slice(0, 1536 - tail.length) + tail;
})();

/** The site deployed through the API whose rows the seed copies. */
export const TEMPLATE_SLUG = 'sb-template';

/** The slug (and so the host label) of seeded site `i`. */
export const seededSlug = (i: number): string => `sb-${i}`;

/** Slug prefix of seeded sites, as SQL builds it (`seededSlug` is the same rule). */
const SLUG_PREFIX = 'sb-';

/**
 * A valid id (`<prefix>_` + 24 base36 characters, src/common/ids.ts) for seeded row `i`:
 * "sb" marks it as seeded, the rest is `i` zero-padded.
 */
function seededId(prefix: 'proj' | 'dep'): string {
  return `'${prefix}_sb' || lpad(i::text, ${ID_BODY_LENGTH - 2}, '0')`;
}

async function columns(db: ClientBase, table: string): Promise<string[]> {
  const { rows } = await db.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
    [table],
  );
  if (rows.length === 0) throw new Error(`table ${table} not found`);
  return rows.map((r) => r.column_name);
}

/** `INSERT INTO table (every column) SELECT <override or the template's value> …`. */
async function copyStatement(db: ClientBase, table: string, overrides: Record<string, string>, from: string): Promise<string> {
  const names = await columns(db, table);
  const list = names.map((c) => `"${c}"`).join(', ');
  const values = names.map((c) => overrides[c] ?? `t."${c}"`).join(', ');
  return `INSERT INTO "${table}" (${list}) SELECT ${values} ${from}`;
}

export interface SeedResult {
  /** Sites seeded by this call. */
  sites: number;
  ms: number;
}

/**
 * Seeds sites `from` … `to - 1` (`seededSlug(i)`, each live with one deployment that is
 * a copy of the template project's live one). Call it again with a higher `from` to grow
 * the set. The template must be a live site with no custom domain.
 */
export async function seedSites(db: ClientBase, templateProjectId: string, from: number, to: number): Promise<SeedResult> {
  const started = Date.now();
  if (to <= from) return { sites: 0, ms: 0 };
  const template = await db.query<{ live_deployment_id: string | null; custom_domain: string | null }>(
    'SELECT live_deployment_id, custom_domain FROM projects WHERE id = $1',
    [templateProjectId],
  );
  const row = template.rows[0];
  if (!row?.live_deployment_id) throw new Error(`template project ${templateProjectId} has no live deployment`);
  if (row.custom_domain) throw new Error('the template project must have no custom domain (it is unique per project)');
  const series = `generate_series(${Number(from)}, ${Number(to) - 1}) AS i`;
  const projects = await copyStatement(
    db,
    'projects',
    {
      id: seededId('proj'),
      slug: `'${SLUG_PREFIX}' || i`,
      name: `'Bench site ' || i`,
      live_deployment_id: seededId('dep'),
    },
    `FROM projects t, ${series} WHERE t.id = $1`,
  );
  const deployments = await copyStatement(
    db,
    'deployments',
    { id: seededId('dep'), project_id: seededId('proj') },
    `FROM deployments t, ${series} WHERE t.id = $1`,
  );
  const files = await copyStatement(
    db,
    'deployment_files',
    { deployment_id: seededId('dep') },
    `FROM deployment_files t, ${series} WHERE t.deployment_id = $1`,
  );
  await db.query('BEGIN');
  try {
    await db.query(projects, [templateProjectId]);
    await db.query(deployments, [row.live_deployment_id]);
    await db.query(files, [row.live_deployment_id]);
    await db.query('COMMIT');
  } catch (err) {
    await db.query('ROLLBACK');
    throw err;
  }
  // Fresh statistics, so the router's lookups plan as they would on a settled database.
  await db.query('ANALYZE projects, deployments, deployment_files');
  return { sites: to - from, ms: Date.now() - started };
}

/**
 * A permutation of 0 … n-1 as `(k * stride + offset) mod n`: a pass in this order asks
 * every site once, in no order the caches could exploit. The stride is the first prime
 * from 7919 up that shares no factor with n.
 */
export function passStride(n: number): number {
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  const isPrime = (p: number) => {
    for (let d = 2; d * d <= p; d++) if (p % d === 0) return false;
    return p > 1;
  };
  let stride = 7919;
  while (!isPrime(stride) || gcd(stride, n) !== 1) stride++;
  return stride % n === 0 ? 1 : stride;
}
