import type { IncomingMessage } from 'node:http';

import type { Client } from 'pg';

import { seedSites, TEMPLATE_SLUG } from '../../bench/sites-seed';
import { AnalyticsRepository } from '../../src/analytics/analytics.repository';
import { AnalyticsRecorder } from '../../src/analytics/analytics-recorder.service';
import { emptySketch, estimate, HLL_REGISTERS, mergeSparse, type SparseSketch } from '../../src/analytics/hll';
import { startTestApp, type TestApp } from '../helpers/app';
import { deploySeedTemplate } from '../helpers/seed-template';

const DAY = '2026-12-03';
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0';

/**
 * The visitor sketches (HyperLogLog, 16 KB per project and day) are merged in PostgreSQL:
 * a flush sends the registers its new visitors raised, not the sketches. A flush after
 * traffic to more than 16,383 sites used to build one hex string longer than V8 allows
 * and fail on every retry (issue 35: 100,000 sites per instance).
 */
describe('visitor sketches, merged in PostgreSQL (e2e)', () => {
  let t: TestApp;
  let db: Client;
  let templateId: string;

  beforeAll(async () => {
    t = await startTestApp({ env: { ANALYTICS_FLUSH_SECONDS: '0', ANALYTICS_RETENTION_INTERVAL_SECONDS: '0' } });
    ({ db, templateId } = await deploySeedTemplate(t));
  });
  afterAll(async () => {
    await db?.end();
    await t?.close();
  });

  async function storedSketch(projectId: string, day: string): Promise<Buffer> {
    const { rows } = await db.query<{ sketch: Buffer }>('SELECT sketch FROM analytics_visitors WHERE project_id = $1 AND day = $2', [projectId, day]);
    return rows[0].sketch;
  }

  it('raises each register to the larger rank, as mergeSparse does in memory, and fills a placeholder from zeros', async () => {
    const repo = t.app.get(AnalyticsRepository);
    // A stored sketch with registers set at random, and a placeholder (an empty bytea) beside it.
    const stored = emptySketch();
    for (let i = 0; i < 4000; i++) stored[Math.floor(Math.random() * HLL_REGISTERS)] = 1 + Math.floor(Math.random() * 20);
    await db.query(`INSERT INTO analytics_visitors (project_id, day, sketch) VALUES ($1, $2, $3), ($1, '2026-12-04', ''::bytea)`, [templateId, DAY, stored]);
    // New registers: some above what is stored, some below (which must not lower it), the
    // first and last register included.
    const sparse: SparseSketch = new Map([
      [0, 7],
      [HLL_REGISTERS - 1, 51],
    ]);
    for (let i = 0; i < 500; i++) sparse.set(Math.floor(Math.random() * HLL_REGISTERS), 1 + Math.floor(Math.random() * 25));
    const entries = [...sparse];
    await t.dataSource.transaction((m) =>
      repo.mergeRegisters(
        m,
        [...entries.map(() => templateId), ...entries.map(() => templateId)],
        [...entries.map(() => DAY), ...entries.map(() => '2026-12-04')],
        [...entries.map(([index]) => index), ...entries.map(([index]) => index)],
        [...entries.map(([, rank]) => rank), ...entries.map(([, rank]) => rank)],
        emptySketch(),
      ),
    );

    const expected = Buffer.from(stored);
    mergeSparse(expected, sparse);
    expect((await storedSketch(templateId, DAY)).equals(expected)).toBe(true);
    const fromZeros = emptySketch();
    mergeSparse(fromZeros, sparse);
    expect((await storedSketch(templateId, '2026-12-04')).equals(fromZeros)).toBe(true);
  });

  it('writes the new visitors of 17,000 sites in one flush', async () => {
    const sites = 17_000;
    await seedSites(db, templateId, 0, sites);
    const { rows: projects } = await db.query<{ id: string }>(`SELECT id FROM projects WHERE slug LIKE 'sb-%' AND slug <> $1`, [TEMPLATE_SLUG]);
    expect(projects).toHaveLength(sites);
    const recorder = t.app.get(AnalyticsRecorder);
    // The first flush loads the day's visitor key; until then visitors are not counted.
    await recorder.flush();
    const socket = {};
    for (const { id } of projects) {
      const req = { method: 'GET', url: '/', headers: { 'user-agent': BROWSER, host: 'example.test' }, socket } as unknown as IncomingMessage;
      recorder.record(id, req, 200, 1536, true, () => '203.0.113.9');
    }

    await expect(recorder.flush()).resolves.toMatchObject({ sketches: sites });

    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM analytics_visitors v JOIN projects p ON p.id = v.project_id
       WHERE p.slug LIKE 'sb-%' AND p.slug <> $1 AND length(v.sketch) = $2`,
      [TEMPLATE_SLUG, HLL_REGISTERS],
    );
    expect(rows[0].n).toBe(sites);
    const { rows: one } = await db.query<{ sketch: Buffer }>(`SELECT v.sketch FROM analytics_visitors v WHERE v.project_id = $1`, [projects[sites - 1].id]);
    expect(Math.round(estimate(one[0].sketch))).toBe(1);
  }, 180_000);
});
