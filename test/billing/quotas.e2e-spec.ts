import { BillingSweeper } from '../../src/billing/billing-sweeper.service';
import { Clock } from '../../src/common/time';
import { TtlSweeper } from '../../src/deployments/ttl-sweeper.service';
import { startTestApp, type TestApp } from '../helpers/app';
import { addMember, asUser, registerUser } from '../helpers/identity';
import { bytes, createProject, lazyDeploy, newTenant, tally, type Tenant, upgrade, workspace } from './billing-helpers';

/**
 * Every quota of the plan table, with the limits made small by PLANS_JSON. Each
 * test works in a workspace of its own, so their counts do not mix.
 */
const PLANS = {
  free: { projects: 2, deploymentsPerMonth: 4, storageBytes: 1000, maxFileBytes: 300, maxTtl: '2d' },
  pro: { projects: 4, deploymentsPerMonth: 20, storageBytes: 4000, maxFileBytes: 2000, maxTtl: null },
};
const HOUR = 3_600_000;

describe('Quotas (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { PLANS_JSON: JSON.stringify(PLANS) } });
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await t?.close();
  });
  afterEach(() => jest.restoreAllMocks());

  const count = async (sql: string, params: unknown[]) => (await t.dataSource.query(`SELECT count(*)::int AS n FROM ${sql}`, params))[0].n as number;
  const projectsOf = (tenant: Tenant) => count('projects WHERE workspace_id = $1', [tenant.workspaceId]);
  const deploymentsOf = (tenant: Tenant) => count('deployments WHERE workspace_id = $1', [tenant.workspaceId]);
  const file = (char: string, n = 100) => ({ path: `${char}.txt`, content: bytes(char, n) });
  const moveClockTo = (at: Date) => jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => new Date(at));

  describe('projects', () => {
    it('creates up to the limit, then answers 402 naming the quota, limit, usage and plan', async () => {
      const a = await newTenant(t);
      await createProject(t, a, { name: 'one' }).expect(201);
      await createProject(t, a, { name: 'two' }).expect(201);
      const res = await createProject(t, a, { name: 'three', slug: 'quota-three' }).expect(402);
      expect(res.body).toEqual({
        statusCode: 402,
        error: 'Payment Required',
        code: 'quota_exceeded',
        quota: 'projects',
        limit: 2,
        usage: 2,
        plan: 'free',
        message: 'The free plan allows 2 projects per workspace and this workspace has 2. Delete a project or upgrade the plan (POST /billing/activate-plan).',
      });
      expect(await projectsOf(a)).toBe(2);
      expect(await count('projects WHERE slug = $1', ['quota-three'])).toBe(0);
    });

    it('refuses a lazy deploy that would create one more project, but still deploys to existing ones', async () => {
      const a = await newTenant(t);
      await lazyDeploy(t, a, `lazy-a-${a.workspaceId.slice(-6)}`, [file('a')]).expect(201);
      await lazyDeploy(t, a, `lazy-b-${a.workspaceId.slice(-6)}`, [file('a')]).expect(201);
      const res = await lazyDeploy(t, a, `lazy-c-${a.workspaceId.slice(-6)}`, [file('a')]).expect(402);
      expect(res.body).toMatchObject({ code: 'quota_exceeded', quota: 'projects', limit: 2, usage: 2, plan: 'free' });
      expect(await projectsOf(a)).toBe(2);
      expect(await deploymentsOf(a)).toBe(2);
      await lazyDeploy(t, a, `lazy-a-${a.workspaceId.slice(-6)}`, [file('b')]).expect(201);
    });

    it('back on a plan with fewer projects than the workspace has: nothing deleted, deploys to existing projects answer 402 until it fits', async () => {
      const a = await newTenant(t);
      await upgrade(t, a, 'pro');
      const slugs = ['x', 'y', 'z'].map((c) => `over-${c}-${a.workspaceId.slice(-6)}`);
      for (const slug of slugs) await lazyDeploy(t, a, slug, [file('a')]).expect(201);
      await t.http().post('/billing/cancel').set(asUser(a.owner)).send({ workspaceId: a.workspaceId }).expect(200);
      moveClockTo(new Date(Date.now() + 400 * 24 * HOUR));
      const res = await lazyDeploy(t, a, slugs[0], [file('b')]).expect(402);
      expect(res.body).toMatchObject({ code: 'quota_exceeded', quota: 'projects', limit: 2, usage: 3, plan: 'free' });
      expect(res.body.message).toBe(
        'The free plan allows 2 projects per workspace and this workspace has 3: its sites keep serving, but deploys are paused until it fits. ' +
          'Delete 1 project or upgrade the plan (POST /billing/activate-plan).',
      );
      expect(await projectsOf(a)).toBe(3);
      // Fits again: deploys go on.
      const [{ id }] = await t.dataSource.query('SELECT id FROM projects WHERE slug = $1', [slugs[2]]);
      await t.http().delete(`/projects/${id}`).set(asUser(a.owner)).expect(204);
      await lazyDeploy(t, a, slugs[0], [file('b')]).expect(201);
    });

    it('gives the slot back when a project is deleted', async () => {
      const a = await newTenant(t);
      const one = await createProject(t, a, { name: 'one' }).expect(201);
      await createProject(t, a, { name: 'two' }).expect(201);
      await createProject(t, a, { name: 'three' }).expect(402);
      await t.http().delete(`/projects/${one.body.id}`).set(asUser(a.owner)).expect(204);
      await createProject(t, a, { name: 'three' }).expect(201);
    });

    it('counts per workspace: another workspace at its limit changes nothing', async () => {
      const full = await newTenant(t);
      await createProject(t, full, { name: 'x' }).expect(201);
      await createProject(t, full, { name: 'y' }).expect(201);
      const other = await newTenant(t);
      await createProject(t, other, { name: 'x' }).expect(201);
    });

    it('lets exactly one of ten concurrent creates through at the limit minus one', async () => {
      const a = await newTenant(t);
      await createProject(t, a, { name: 'first' }).expect(201);
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => createProject(t, a, { name: `race ${i}` })));
      expect(tally(results)).toEqual({ 201: 1, 402: 9 });
      expect(await projectsOf(a)).toBe(2);
      for (const r of results.filter((r) => r.status === 402)) expect(r.body).toMatchObject({ quota: 'projects', usage: 2, limit: 2 });
    });

    it('lets exactly one of ten concurrent lazy deploys to new slugs create its project', async () => {
      const a = await newTenant(t);
      const tag = a.workspaceId.slice(-6);
      await lazyDeploy(t, a, `first-${tag}`, [file('a')]).expect(201);
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => lazyDeploy(t, a, `race-${i}-${tag}`, [file('a')])));
      expect(tally(results)).toEqual({ 201: 1, 402: 9 });
      expect(await projectsOf(a)).toBe(2);
      expect(await deploymentsOf(a)).toBe(2);
    });
  });

  describe('deployments per calendar month (UTC)', () => {
    it('allows the plan’s number this month, then 402 saying when the count starts again', async () => {
      moveClockTo(new Date('2031-05-20T12:00:00.000Z'));
      const a = await newTenant(t);
      const slug = `monthly-${a.workspaceId.slice(-6)}`;
      for (let i = 0; i < 4; i++) await lazyDeploy(t, a, slug, [file('a', 10 + i)]).expect(201);
      const res = await lazyDeploy(t, a, slug, [file('a', 50)]).expect(402);
      expect(res.body).toMatchObject({
        statusCode: 402,
        code: 'quota_exceeded',
        quota: 'deploymentsPerMonth',
        limit: 4,
        usage: 4,
        plan: 'free',
        resetsAt: '2031-06-01T00:00:00.000Z',
      });
      expect(res.body.message).toContain('4 deployments per calendar month (UTC)');
      expect(await deploymentsOf(a)).toBe(4);
      // The refused deploy took no version number.
      expect((await t.dataSource.query('SELECT last_version FROM projects WHERE slug = $1', [slug]))[0].last_version).toBe(4);
    });

    it('does not give deployments back when their project is deleted', async () => {
      moveClockTo(new Date('2031-05-20T12:00:00.000Z'));
      const a = await newTenant(t);
      const p = await createProject(t, a, { name: 'doomed' }).expect(201);
      for (let i = 0; i < 4; i++)
        await t
          .http()
          .post(`/projects/${p.body.id}/deployments`)
          .set(asUser(a.owner))
          .send({ files: [file('a', 10 + i)] })
          .expect(201);
      await t.http().delete(`/projects/${p.body.id}`).set(asUser(a.owner)).expect(204);
      const res = await lazyDeploy(t, a, `after-${a.workspaceId.slice(-6)}`, [file('a')]).expect(402);
      expect(res.body).toMatchObject({ quota: 'deploymentsPerMonth', usage: 4 });
      expect(await projectsOf(a)).toBe(0);
    });

    it('starts counting again on the first of the next month, UTC', async () => {
      moveClockTo(new Date('2031-07-31T23:59:59.000Z'));
      const a = await newTenant(t);
      const slug = `rollover-${a.workspaceId.slice(-6)}`;
      for (let i = 0; i < 4; i++) await lazyDeploy(t, a, slug, [file('a', 10 + i)]).expect(201);
      await lazyDeploy(t, a, slug, [file('a', 60)]).expect(402);
      moveClockTo(new Date('2031-08-01T00:00:00.000Z'));
      await lazyDeploy(t, a, slug, [file('a', 60)]).expect(201);
      expect((await workspace(t, a)).usage.deploymentsPerMonth).toEqual({ used: 1, limit: 4, percent: 25, resetsAt: '2031-09-01T00:00:00.000Z' });
    });

    it('lets exactly one of ten concurrent deploys through at the limit minus one', async () => {
      const a = await newTenant(t);
      const p1 = (await createProject(t, a, { name: 'p1' }).expect(201)).body.id;
      const p2 = (await createProject(t, a, { name: 'p2' }).expect(201)).body.id;
      for (let i = 0; i < 3; i++)
        await t
          .http()
          .post(`/projects/${p1}/deployments`)
          .set(asUser(a.owner))
          .send({ files: [file('a', 10 + i)] })
          .expect(201);
      // Two projects, so the project row lock alone would not serialise them.
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          t
            .http()
            .post(`/projects/${i % 2 ? p1 : p2}/deployments`)
            .set(asUser(a.owner))
            .send({ files: [file('b', 20 + i)] }),
        ),
      );
      expect(tally(results)).toEqual({ 201: 1, 402: 9 });
      expect(await deploymentsOf(a)).toBe(4);
      expect((await workspace(t, a)).usage.deploymentsPerMonth.used).toBe(4);
    });
  });

  describe('storage (distinct files of live and archived deployments)', () => {
    it('counts archived deployments, and answers 402 with what is used and what the deploy would add', async () => {
      const a = await newTenant(t);
      const slug = `store-${a.workspaceId.slice(-6)}`;
      await lazyDeploy(t, a, slug, [file('a', 300), file('b', 300)]).expect(201);
      // The first deployment is archived now, and still stored.
      await lazyDeploy(t, a, slug, [file('c', 300)]).expect(201);
      expect((await workspace(t, a)).usage.storageBytes).toEqual({ used: 900, limit: 1000, percent: 90 });
      const res = await lazyDeploy(t, a, slug, [file('d', 200)]).expect(402);
      expect(res.body).toMatchObject({ code: 'quota_exceeded', quota: 'storageBytes', limit: 1000, usage: 900, additional: 200, plan: 'free' });
      expect(res.body.message).toContain('adds 200 bytes of new files to the 900 bytes');
      expect(await deploymentsOf(a)).toBe(2);
      // Exactly up to the limit is allowed.
      await lazyDeploy(t, a, slug, [file('d', 100)]).expect(201);
    });

    it('counts a file once however many deployments and projects hold it', async () => {
      const a = await newTenant(t);
      const tag = a.workspaceId.slice(-6);
      const site = [file('a', 300), file('b', 300), { path: 'copy-of-a.txt', content: bytes('a', 300) }];
      await lazyDeploy(t, a, `dedup-1-${tag}`, site).expect(201);
      await lazyDeploy(t, a, `dedup-1-${tag}`, site).expect(201);
      await lazyDeploy(t, a, `dedup-2-${tag}`, site).expect(201);
      expect((await workspace(t, a)).usage.storageBytes.used).toBe(600);
    });

    it('stops counting deployments once they expire', async () => {
      const a = await newTenant(t);
      const slug = `expiring-${a.workspaceId.slice(-6)}`;
      await lazyDeploy(t, a, slug, [file('a', 300), file('b', 300), file('c', 300)], { ttl: '1h' }).expect(201);
      await lazyDeploy(t, a, `${slug}-2`, [file('d', 300), file('e', 300)]).expect(402);
      moveClockTo(new Date(Date.now() + 2 * HOUR));
      await t.app.get(TtlSweeper).runOnce();
      expect((await workspace(t, a)).usage.storageBytes.used).toBe(0);
      await lazyDeploy(t, a, slug, [file('d', 300), file('e', 300)]).expect(201);
    });

    it('gives the storage back when a project is deleted', async () => {
      const a = await newTenant(t);
      const tag = a.workspaceId.slice(-6);
      const keep = await lazyDeploy(t, a, `keep-${tag}`, [file('a', 300)]).expect(201);
      await lazyDeploy(t, a, `drop-${tag}`, [file('a', 300), file('b', 300), file('c', 300)]).expect(201);
      await lazyDeploy(t, a, `keep-${tag}`, [file('d', 300)]).expect(402);
      const [drop] = await t.dataSource.query('SELECT id FROM projects WHERE slug = $1', [`drop-${tag}`]);
      await t.http().delete(`/projects/${drop.id}`).set(asUser(a.owner)).expect(204);
      // File a is still held by the project that stays.
      expect((await workspace(t, a)).usage.storageBytes.used).toBe(300);
      await lazyDeploy(t, a, `keep-${tag}`, [file('d', 300)]).expect(201);
      expect(keep.body.version).toBe(1);
    });

    it('recounts in the background what expired, so the next deploy need not', async () => {
      const a = await newTenant(t);
      const slug = `bg-${a.workspaceId.slice(-6)}`;
      await lazyDeploy(t, a, slug, [file('a', 300), file('b', 300)], { ttl: '1h' }).expect(201);
      moveClockTo(new Date(Date.now() + 2 * HOUR));
      await t.app.get(TtlSweeper).runOnce();
      expect(await count('workspace_storage_changes WHERE workspace_id = $1', [a.workspaceId])).toBe(1);
      expect((await t.app.get(BillingSweeper).runOnce()).storageRecounted).toBeGreaterThanOrEqual(1);
      expect(await count('workspace_storage_changes WHERE workspace_id = $1', [a.workspaceId])).toBe(0);
      const [row] = await t.dataSource.query('SELECT bytes FROM workspace_storage WHERE workspace_id = $1', [a.workspaceId]);
      expect(Number(row.bytes)).toBe(0);
    });

    it('lets exactly one of ten concurrent deploys through when only one fits', async () => {
      const a = await newTenant(t);
      const p = (await createProject(t, a, { name: 'store race' }).expect(201)).body.id;
      await t
        .http()
        .post(`/projects/${p}/deployments`)
        .set(asUser(a.owner))
        .send({ files: [file('a', 300), file('b', 300)] })
        .expect(201);
      // Each deploy keeps a and b and adds 300 bytes of its own: 900 fits, a second one does not.
      const results = await Promise.all(
        'cdefghijkl'.split('').map((c) =>
          t
            .http()
            .post(`/projects/${p}/deployments`)
            .set(asUser(a.owner))
            .send({ files: [file('a', 300), file('b', 300), file(c, 300)] }),
        ),
      );
      expect(tally(results)).toEqual({ 201: 1, 402: 9 });
      expect((await workspace(t, a)).usage.storageBytes.used).toBe(900);
    });
  });

  describe('largest file', () => {
    it('answers 413 naming the file, its size and the plan’s limit; a larger plan takes it', async () => {
      const a = await newTenant(t);
      const slug = `big-${a.workspaceId.slice(-6)}`;
      const res = await lazyDeploy(t, a, slug, [file('a', 10), { path: 'assets/big.bin', content: bytes('z', 301) }]).expect(413);
      expect(res.body).toMatchObject({ statusCode: 413, path: 'assets/big.bin', size: 301, limit: 300 });
      expect(res.body.message).toContain('"assets/big.bin"');
      expect(await projectsOf(a)).toBe(0);
      await upgrade(t, a, 'pro');
      await lazyDeploy(t, a, slug, [{ path: 'assets/big.bin', content: bytes('z', 301) }]).expect(201);
      expect((await lazyDeploy(t, a, slug, [{ path: 'huge.bin', content: bytes('z', 2001) }]).expect(413)).body.limit).toBe(2000);
    });
  });

  describe('TTL', () => {
    it('refuses a deployment ttl longer than the plan allows with 402, before anything is stored', async () => {
      const a = await newTenant(t);
      const slug = `ttl-${a.workspaceId.slice(-6)}`;
      const res = await lazyDeploy(t, a, slug, [file('a')], { ttl: '3d' }).expect(402);
      expect(res.body).toMatchObject({ statusCode: 402, code: 'quota_exceeded', quota: 'maxTtl', limit: '2d', usage: '3d', plan: 'free' });
      expect(res.body.message).toContain('ttl "3d" is longer than the free plan allows');
      expect((await lazyDeploy(t, a, slug, [file('a')], { ttl: 'forever' }).expect(402)).body.usage).toBe('forever');
      expect(await projectsOf(a)).toBe(0);
      await lazyDeploy(t, a, slug, [file('a')], { ttl: '48h' }).expect(201);
      // A malformed ttl is still a 400, whatever the plan.
      await lazyDeploy(t, a, slug, [file('a')], { ttl: 'a week' }).expect(400);
    });

    it('refuses a project default_ttl the plan does not allow, on create and on update', async () => {
      const a = await newTenant(t);
      const res = await createProject(t, a, { name: 'long', default_ttl: '30d' }).expect(402);
      expect(res.body).toMatchObject({ quota: 'maxTtl', limit: '2d', usage: '30d' });
      expect(res.body.message).toMatch(/^default_ttl "30d"/);
      expect(await projectsOf(a)).toBe(0);
      const p = await createProject(t, a, { name: 'short', default_ttl: '1d' }).expect(201);
      await t.http().patch(`/projects/${p.body.id}`).set(asUser(a.owner)).send({ default_ttl: 'forever', name: 'renamed' }).expect(402);
      expect((await t.http().get(`/projects/${p.body.id}`).set(asUser(a.owner)).expect(200)).body).toMatchObject({ name: 'short', default_ttl: '1d' });
    });

    it('shortens a project’s default ttl to the plan’s longest once the plan no longer allows it', async () => {
      const a = await newTenant(t);
      await upgrade(t, a, 'pro');
      const p = await createProject(t, a, { name: 'made on pro', default_ttl: '30d' }).expect(201);
      const onPro = await t
        .http()
        .post(`/projects/${p.body.id}/deployments`)
        .set(asUser(a.owner))
        .send({ files: [file('a')] })
        .expect(201);
      expect(onPro.body.ttl).toBe('30d');
      // Back to free: cancel, and let the period end.
      await t.http().post('/billing/cancel').set(asUser(a.owner)).send({ workspaceId: a.workspaceId }).expect(200);
      moveClockTo(new Date(Date.now() + 400 * 24 * HOUR));
      const onFree = await t
        .http()
        .post(`/projects/${p.body.id}/deployments`)
        .set(asUser(a.owner))
        .send({ files: [file('b')] })
        .expect(201);
      expect(onFree.body.ttl).toBe('2d');
      await t
        .http()
        .post(`/projects/${p.body.id}/deployments`)
        .set(asUser(a.owner))
        .send({ files: [file('c')], ttl: '30d' })
        .expect(402);
    });
  });

  describe('GET /workspaces/:workspaceId', () => {
    it('shows the plan, its limits, and the usage with each limit beside it', async () => {
      moveClockTo(new Date('2031-03-10T08:00:00.000Z'));
      const a = await newTenant(t);
      await lazyDeploy(t, a, `usage-${a.workspaceId.slice(-6)}`, [file('a', 120), file('b', 80)]).expect(201);
      const body = await workspace(t, a);
      expect(body).toEqual({
        id: a.workspaceId,
        name: expect.any(String),
        plan: 'free',
        createdAt: expect.any(String),
        role: 'owner',
        requireTwoFactor: false,
        // The build and bandwidth limits are not in this PLANS_JSON: the built-in free ones apply.
        limits: {
          projects: 2,
          deploymentsPerMonth: 4,
          storageBytes: 1000,
          maxFileBytes: 300,
          maxTtl: '2d',
          concurrentBuilds: 1,
          buildMinutesPerMonth: 300,
          bandwidthBytesPerMonth: 100 * 1024 ** 3,
        },
        usage: {
          projects: { used: 1, limit: 2, percent: 50 },
          deploymentsPerMonth: { used: 1, limit: 4, percent: 25, resetsAt: '2031-04-01T00:00:00.000Z' },
          storageBytes: { used: 200, limit: 1000, percent: 20 },
          concurrentBuilds: { used: 0, limit: 1, percent: 0 },
          buildMinutesPerMonth: { used: 0, limit: 300, percent: 0, resetsAt: '2031-04-01T00:00:00.000Z' },
          bandwidthBytesPerMonth: { used: 0, limit: 100 * 1024 ** 3, percent: 0, resetsAt: '2031-04-01T00:00:00.000Z' },
        },
      });
      // A viewer and a deploy token see the same figures.
      const viewer = await registerUser(t);
      await addMember(t, a.owner, viewer, 'viewer');
      const seen = await t.http().get(`/workspaces/${a.workspaceId}`).set(asUser(viewer, a.workspaceId)).expect(200);
      expect(seen.body.usage).toEqual(body.usage);
      const byToken = await t
        .http()
        .get(`/workspaces/${a.workspaceId}`)
        .set({ Authorization: `Bearer ${a.token}` })
        .expect(200);
      expect(byToken.body.limits).toEqual(body.limits);
    });

    it('shows unlimited as null', async () => {
      const a = await newTenant(t);
      await upgrade(t, a, 'team');
      const body = await workspace(t, a);
      expect(body.plan).toBe('team');
      // The team plan is not in PLANS_JSON here: the built-in team limits apply.
      expect(body.limits).toEqual({
        projects: null,
        deploymentsPerMonth: null,
        storageBytes: 50 * 1024 ** 3,
        maxFileBytes: 100 * 1024 ** 2,
        maxTtl: null,
        concurrentBuilds: 10,
        buildMinutesPerMonth: 5000,
        bandwidthBytesPerMonth: 5 * 1024 ** 4,
      });
      expect(body.usage.projects).toEqual({ used: 0, limit: null, percent: null });
    });
  });

  describe('lock order', () => {
    it('runs creates, lazy creates, deploys and member changes of one workspace at once without a deadlock or a 500', async () => {
      const a = await newTenant(t);
      await upgrade(t, a, 'pro');
      const tag = a.workspaceId.slice(-6);
      const p = (await createProject(t, a, { name: 'base' }).expect(201)).body.id;
      const invitees = await Promise.all([registerUser(t), registerUser(t)]);
      const work = [
        ...Array.from({ length: 4 }, (_, i) => createProject(t, a, { name: `mix ${i}` })),
        ...Array.from({ length: 4 }, (_, i) => lazyDeploy(t, a, `mix-${i}-${tag}`, [file('m', 10 + i)])),
        ...Array.from({ length: 4 }, (_, i) =>
          t
            .http()
            .post(`/projects/${p}/deployments`)
            .set(asUser(a.owner))
            .send({ files: [file('n', 10 + i)] }),
        ),
        ...invitees.map((u) => t.http().post(`/workspaces/${a.workspaceId}/members`).set(asUser(a.owner)).send({ email: u.email, role: 'viewer' })),
      ];
      const results = await Promise.all(work);
      for (const r of results) expect([201, 402]).toContain(r.status);
      // pro allows 4 projects: 1 existed, so 3 of the 8 creating requests got one.
      expect(await projectsOf(a)).toBe(4);
      expect(results.filter((r) => r.status === 402).every((r) => r.body.quota === 'projects')).toBe(true);
    });
  });
});

describe('Quotas with the built-in plan table (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { PLANS_JSON: undefined } });
  });
  afterAll(() => t?.close());

  it('applies the issue’s free plan to a new workspace', async () => {
    const a = await newTenant(t);
    expect((await workspace(t, a)).limits).toEqual({
      projects: 3,
      deploymentsPerMonth: 10,
      storageBytes: 500 * 1024 ** 2,
      maxFileBytes: 10 * 1024 ** 2,
      maxTtl: '7d',
      concurrentBuilds: 1,
      buildMinutesPerMonth: 300,
      bandwidthBytesPerMonth: 100 * 1024 ** 3,
    });
    await createProject(t, a, { name: 'week', default_ttl: '7d' }).expect(201);
    await createProject(t, a, { name: 'month', default_ttl: '30d' }).expect(402);
  });
});
