import type { Client } from 'pg';

import { seededSlug, seedSites, SITE_PAGE, TEMPLATE_SLUG } from '../../bench/sites-seed';
import { startTestApp, type TestApp } from '../helpers/app';
import { asUser, type UserSession } from '../helpers/identity';
import { deploySeedTemplate } from '../helpers/seed-template';
import { site } from '../helpers/sites';

/**
 * The seeding of `npm run bench:sites` (issue 35), small: sites written straight into
 * PostgreSQL as copies of a template deployed through the API must be real sites the
 * router serves, so the benchmark cannot silently measure 404s.
 */
describe('bench:sites seeding (e2e)', () => {
  let t: TestApp;
  let db: Client;
  let session: UserSession;
  let templateId: string;

  beforeAll(async () => {
    t = await startTestApp();
    ({ db, templateId, owner: session } = await deploySeedTemplate(t));
  });
  afterAll(async () => {
    await db?.end();
    await t?.close();
  });

  it('serves a 1.5 KB index.html', () => {
    expect(Buffer.byteLength(SITE_PAGE)).toBe(1536);
  });

  it('seeds 50 live sites in two steps, each serving the template page at its own host', async () => {
    expect(await seedSites(db, templateId, 0, 20)).toMatchObject({ sites: 20 });
    expect(await seedSites(db, templateId, 20, 50)).toMatchObject({ sites: 30 });

    const counts = await db.query<{ projects: number; live: number; files: number; blobs: number }>(
      `SELECT (SELECT count(*)::int FROM projects WHERE slug ~ '^sb-[0-9]+$') AS projects,
              (SELECT count(*)::int FROM projects p JOIN deployments d ON d.id = p.live_deployment_id AND d.status = 'live' WHERE p.slug ~ '^sb-[0-9]+$') AS live,
              (SELECT count(*)::int FROM deployment_files f JOIN projects p ON p.live_deployment_id = f.deployment_id WHERE p.slug ~ '^sb-[0-9]+$') AS files,
              (SELECT count(DISTINCT sha256)::int FROM deployment_files) AS blobs`,
    );
    expect(counts.rows[0]).toEqual({ projects: 50, live: 50, files: 50, blobs: 1 });

    const picks = [0, 19, 20, 49, ...Array.from({ length: 4 }, () => Math.floor(Math.random() * 50))];
    for (const i of picks) {
      const res = await site(t, seededSlug(i)).get('/').expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toBe(SITE_PAGE);
    }
    // Only the seeded range exists: the router is not answering every host alike.
    const past = await site(t, seededSlug(50)).get('/').expect(404);
    expect(past.text).toContain('Site not found');
  });

  it('makes projects the API lists like any other', async () => {
    const res = await t.http().get('/projects?limit=100').set(asUser(session)).expect(200);
    expect(res.body.meta.total).toBe(51);
    expect((res.body.data as { slug: string }[]).map((p) => p.slug)).toEqual(expect.arrayContaining([TEMPLATE_SLUG, seededSlug(0), seededSlug(49)]));
  });
});
