import { createHash } from 'node:crypto';

import { Clock } from '../../src/common/time';
import { monthKey } from '../../src/quotas/quota';
import { lazyDeploy, newTenant, upgrade } from '../billing/billing-helpers';
import { startTestApp, type TestApp } from '../helpers/app';
import { bearer, createApiToken, registerUser } from '../helpers/identity';
import { deploySite } from '../helpers/sites';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const digest = (path: string, text: string) => ({ path, sha256: sha(text), size: Buffer.byteLength(text) });

/**
 * POST /v1/deployments/preflight: the deploy's body, the deploy's errors, nothing
 * stored, so clients learn a deploy will be refused before uploading a byte.
 */
describe('POST /v1/deployments/preflight (e2e)', () => {
  let t: TestApp;
  let token: string;
  let otherToken: string;
  const preflight = (body: object, as = token) => t.http().post('/v1/deployments/preflight').set(bearer(as)).send(body);
  const counts = async () =>
    (
      await t.dataSource.query(
        `SELECT (SELECT count(*) FROM projects)::int AS projects, (SELECT count(*) FROM deployments)::int AS deployments,
                (SELECT count(*) FROM blobs)::int AS blobs, (SELECT coalesce(sum(deployments), 0)::int FROM workspace_monthly_usage) AS monthly`,
      )
    )[0];

  beforeAll(async () => {
    // 2 projects, 3 deploys a month, 100 KB of storage, 50 KB per file, TTL up to 30 days.
    t = await startTestApp({
      env: { PLANS_JSON: JSON.stringify({ free: { projects: 2, deploymentsPerMonth: 3, storageBytes: 100_000, maxFileBytes: 50_000, maxTtl: '30d' } }) },
    });
    const user = await registerUser(t);
    token = (await createApiToken(t, user, { scopes: ['deploy', 'read'] })).token;
    const other = await registerUser(t);
    otherToken = (await createApiToken(t, other, { scopes: ['deploy'] })).token;
    await deploySite(t, otherToken, 'theirs', [{ path: 'index.html', content: 'theirs' }]);
    await deploySite(t, token, 'mine', [{ path: 'index.html', content: 'mine' }]);
  });
  afterAll(() => t.close());

  it('answers 200 with what the deploy would do, for blobs not uploaded yet, and stores nothing', async () => {
    const before = await counts();
    const res = await preflight({ project_slug: 'mine', files: [digest('index.html', 'mine v2'), digest('a.txt', 'mine')] }).expect(200);
    expect(res.body).toEqual({
      project_slug: 'mine',
      projectId: expect.stringMatching(/^proj_/),
      workspaceId: expect.stringMatching(/^ws_/),
      createsProject: false,
      plan: 'free',
      // "mine" is stored already: only the new content counts.
      newBytes: 7,
    });
    const fresh = await preflight({ project_slug: 'brand-new', files: [digest('index.html', 'x')] }).expect(200);
    expect(fresh.body).toMatchObject({ projectId: null, createsProject: true });
    expect(await counts()).toEqual(before);
  });

  it('gives the deploy’s own errors: ttl, slug, taken, file size, storage', async () => {
    const file = [digest('index.html', 'x')];
    expect((await preflight({ project_slug: 'mine', ttl: 'soon', files: file }).expect(400)).body.message).toMatch(/^ttl/);
    expect((await preflight({ project_slug: 'mine', ttl: '90d', files: file }).expect(402)).body).toMatchObject({ code: 'quota_exceeded', quota: 'maxTtl' });
    expect((await preflight({ project_slug: 'docs', files: file }).expect(400)).body).toMatchObject({ code: 'invalid_slug' });
    expect((await preflight({ project_slug: 'theirs', files: file }).expect(409)).body).toMatchObject({
      code: 'slug_taken',
      message: 'slug "theirs" is already taken',
    });
    expect((await preflight({ project_slug: 'mine', files: [{ path: 'big.bin', sha256: sha('big'), size: 60_000 }] }).expect(413)).body).toMatchObject({
      path: 'big.bin',
    });
    const storage = await preflight({
      project_slug: 'mine',
      files: [digest('a', 'a'.repeat(49_000)), digest('b', 'b'.repeat(49_000)), digest('c', 'c'.repeat(49_000))],
    }).expect(402);
    expect(storage.body).toMatchObject({ code: 'quota_exceeded', quota: 'storageBytes' });
    expect((await preflight({ project_slug: 'mine' }).expect(400)).body.message).toContain('files');
  });

  it('refuses a project over the plan and a deploy over the month’s count, as the deploy would', async () => {
    await deploySite(t, token, 'second', [{ path: 'index.html', content: 'second' }]);
    expect((await preflight({ project_slug: 'third', files: [digest('i', 'x')] }).expect(402)).body).toMatchObject({ quota: 'projects' });
    await preflight({ project_slug: 'second', files: [digest('i', 'x')] }).expect(200);
    await deploySite(t, token, 'second', [{ path: 'index.html', content: 'second v2' }]);
    // 3 deploys this month: mine, second, second v2.
    expect((await preflight({ project_slug: 'second', files: [digest('i', 'x')] }).expect(402)).body).toMatchObject({ quota: 'deploymentsPerMonth' });
  });

  it('refuses a deploy to an existing project while the workspace has more projects than its plan allows, as the deploy would', async () => {
    const a = await newTenant(t);
    await upgrade(t, a, 'pro');
    for (const slug of ['over-1', 'over-2', 'over-3'])
      await deploySite(t, a.token, `${slug}-${a.workspaceId.slice(-6)}`, [{ path: 'index.html', content: slug }]);
    await t.http().post('/billing/cancel').set(bearer(a.owner.accessToken)).send({ workspaceId: a.workspaceId }).expect(200);
    // The paid period ends: back on free (2 projects) with 3.
    jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => new Date(Date.now() + 400 * 24 * 3_600_000));
    try {
      const res = await preflight({ project_slug: `over-1-${a.workspaceId.slice(-6)}`, files: [digest('i', 'x')] }, a.token).expect(402);
      expect(res.body).toMatchObject({ quota: 'projects', limit: 2, usage: 3, plan: 'free' });
      expect(res.body.message).toContain('deploys are paused until it fits');
    } finally {
      jest.restoreAllMocks();
    }
  });

  it('refuses a deploy once this month’s bandwidth is past the plan’s, as the deploy would', async () => {
    const a = await newTenant(t);
    // 200 GB served this month (the analytics flush's count), free allows 100 GB.
    await t.dataSource.query('INSERT INTO workspace_monthly_usage (workspace_id, month, bandwidth_bytes) VALUES ($1, $2, $3)', [
      a.workspaceId,
      monthKey(t.app.get(Clock).now()),
      String(200 * 1024 ** 3),
    ]);
    const slug = `bw-${a.workspaceId.slice(-6)}`;
    const checked = await preflight({ project_slug: slug, files: [digest('index.html', 'bw')] }, a.token).expect(402);
    expect(checked.body).toMatchObject({ code: 'quota_exceeded', quota: 'bandwidthBytesPerMonth', plan: 'free' });
    const deployed = await lazyDeploy(t, a, slug, [{ path: 'index.html', content: 'bw' }]).expect(402);
    expect(deployed.body).toMatchObject({ code: 'quota_exceeded', quota: 'bandwidthBytesPerMonth' });
  });

  it('needs an API token with the deploy scope', async () => {
    await t
      .http()
      .post('/v1/deployments/preflight')
      .send({ project_slug: 'mine', files: [digest('i', 'x')] })
      .expect(401);
  });
});
