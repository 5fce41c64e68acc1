import { createHash } from 'node:crypto';

import { BlobCollector } from '../../src/blobs/blob-collector.service';
import { variantKey } from '../../src/blobs/blob-keys';
import { BlobVariants } from '../../src/blobs/blob-variants.service';
import { Clock } from '../../src/common/time';
import { TtlSweeper } from '../../src/deployments/ttl-sweeper.service';
import { StorageProvider } from '../../src/storage/storage.provider';
import { startTestApp, type TestApp } from '../helpers/app';
import { asUser, bearer, createApiToken, registerUser } from '../helpers/identity';

type Session = Awaited<ReturnType<typeof registerUser>>;
const sha = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');
const DAY = 24 * 60 * 60 * 1000;

/**
 * The deployments contract, run once per storage driver (local disk and S3) so
 * both prove the same behaviour.
 */
export function describeDeployments(driver: string, driverEnv: () => Promise<{ env: Record<string, string>; stop(): Promise<void> }>) {
  describe(`Deployments on the ${driver} driver (e2e)`, () => {
    let t: TestApp;
    let stopDriver: () => Promise<void>;
    let alice: Session;
    let bob: Session;
    let deployToken: string;
    let bobToken: string;

    beforeAll(async () => {
      const d = await driverEnv();
      stopDriver = d.stop;
      t = await startTestApp({ env: { ...d.env, MAX_FILE_BYTES: String(64 * 1024), BODY_LIMIT_BYTES: String(512 * 1024) } });
      alice = await registerUser(t);
      bob = await registerUser(t);
      deployToken = (await createApiToken(t, alice, { scopes: ['deploy', 'read'] })).token;
      bobToken = (await createApiToken(t, bob, { scopes: ['deploy'] })).token;
    });
    afterAll(async () => {
      jest.restoreAllMocks();
      await t.close();
      await stopDriver();
    });

    const lazy = (body: object, token = deployToken) => t.http().post('/v1/deployments').set(bearer(token)).send(body);
    const site = (n = 1) => Array.from({ length: n }, (_, i) => ({ path: i === 0 ? 'index.html' : `page-${i}.html`, content: `<h1>page ${i}</h1>` }));
    const count = async (table: string) => (await t.dataSource.query(`SELECT count(*)::int AS n FROM ${table}`))[0].n as number;
    const projectBySlug = async (slug: string) => (await t.dataSource.query('SELECT * FROM projects WHERE slug = $1', [slug]))[0];

    describe('POST /v1/deployments (lazy deploy)', () => {
      it('creates the project for an unknown slug and answers exactly the spec’s fields', async () => {
        const res = await lazy({ project_slug: 'lazy-one', type: 'static_file', files: site(2), ttl: '7d' }).expect(201);
        expect(Object.keys(res.body).sort()).toEqual(['expires_at', 'id', 'size_bytes', 'url', 'version']);
        expect(res.body.id).toMatch(/^dep_[0-9a-z]{24}$/);
        expect(res.body.url).toBe(`http://lazy-one.localhost:${t.config.PORT}`);
        expect(res.body.version).toBe(1);
        expect(res.body.size_bytes).toBe(Buffer.byteLength('<h1>page 0</h1><h1>page 1</h1>'));
        const expires = Date.parse(res.body.expires_at);
        expect(Math.abs(expires - (Date.now() + 7 * DAY))).toBeLessThan(60_000);
        const project = await projectBySlug('lazy-one');
        expect(project).toMatchObject({ workspace_id: alice.workspaceId, type: 'static_file', live_deployment_id: res.body.id });
      });

      it('numbers versions per project and archives the previous live deployment', async () => {
        const v2 = await lazy({ project_slug: 'lazy-one', files: site(1) }).expect(201);
        expect(v2.body.version).toBe(2);
        const project = await projectBySlug('lazy-one');
        const list = await t.http().get(`/projects/${project.id}/deployments`).set(asUser(alice)).expect(200);
        expect(list.body.data.map((d: { version: number; status: string }) => [d.version, d.status])).toEqual([
          [2, 'live'],
          [1, 'archived'],
        ]);
      });

      it('treats another workspace’s slug as taken (409) and never deploys into it', async () => {
        const before = await count('deployments');
        const res = await lazy({ project_slug: 'lazy-one', files: site(1) }, bobToken).expect(409);
        expect(res.body.code).toBe('slug_taken');
        expect(await count('deployments')).toBe(before);
      });

      it('needs an API token with the deploy scope', async () => {
        await t
          .http()
          .post('/v1/deployments')
          .send({ project_slug: 'x-none', files: site(1) })
          .expect(401);
        const read = await createApiToken(t, alice, { scopes: ['read'] });
        await lazy({ project_slug: 'x-read', files: site(1) }, read.token).expect(403);
        const jwt = await t
          .http()
          .post('/v1/deployments')
          .set(asUser(alice))
          .send({ project_slug: 'x-jwt', files: site(1) });
        expect(jwt.status).toBe(403);
        expect(await projectBySlug('x-read')).toBeUndefined();
      });

      it('lets a project-bound token deploy to its own project only', async () => {
        const own = await t.http().post('/projects').set(asUser(alice)).send({ name: 'bound', slug: 'bound-own' }).expect(201);
        const bound = await createApiToken(t, alice, { scopes: ['deploy'], projectId: own.body.id });
        await lazy({ project_slug: 'bound-own', files: site(1) }, bound.token).expect(201);
        await lazy({ project_slug: 'lazy-one', files: site(1) }, bound.token).expect(403);
        await lazy({ project_slug: 'bound-new', files: site(1) }, bound.token).expect(403);
        expect(await projectBySlug('bound-new')).toBeUndefined();
      });

      it('refuses a bad slug or ttl with 400 and creates nothing', async () => {
        expect((await lazy({ project_slug: 'Bad Slug', files: site(1) }).expect(400)).body.message).toContain('project_slug');
        expect((await lazy({ project_slug: 'api', files: site(1) }).expect(400)).body.message).toContain('reserved');
        expect((await lazy({ project_slug: 'ttl-bad', files: site(1), ttl: '7 days' }).expect(400)).body.message).toContain('ttl');
        await lazy({ files: site(1) }).expect(400);
        expect(await projectBySlug('ttl-bad')).toBeUndefined();
      });

      it('creates exactly one project under 10 concurrent lazy deploys to a new slug', async () => {
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) => lazy({ project_slug: 'race-new', files: [{ path: 'index.html', content: `v${i}` }] })),
        );
        expect(results.map((r) => r.status)).toEqual(Array(10).fill(201));
        const projects = await t.dataSource.query(`SELECT id FROM projects WHERE slug = 'race-new'`);
        expect(projects).toHaveLength(1);
        expect(results.map((r) => r.body.version).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      });
    });

    describe('POST /projects/:id/deployments', () => {
      let projectId: string;
      beforeAll(async () => {
        projectId = (
          await t.http().post('/projects').set(asUser(alice)).send({ name: 'Direct', slug: 'direct', type: 'static_site', default_ttl: '30d' }).expect(201)
        ).body.id;
      });
      const deploy = (body: object, session: Session = alice) => t.http().post(`/projects/${projectId}/deployments`).set(asUser(session)).send(body);

      it('answers 201 with the deployment record, using the project’s default ttl', async () => {
        const res = await deploy({
          files: [
            { path: 'index.html', content: 'home' },
            { path: 'img/dot.png', content: Buffer.from([137, 80, 78, 71]).toString('base64'), encoding: 'base64' },
          ],
        }).expect(201);
        expect(Object.keys(res.body).sort()).toEqual(
          [
            'createdAt',
            'createdBy',
            'expires_at',
            'fileCount',
            'id',
            'previewUrl',
            'projectId',
            'size_bytes',
            'status',
            'ttl',
            'url',
            'version',
            'warnings',
          ].sort(),
        );
        expect(res.body).toMatchObject({
          projectId,
          version: 1,
          warnings: [],
          status: 'live',
          size_bytes: 8,
          fileCount: 2,
          ttl: '30d',
          createdBy: alice.userId,
          url: `http://direct.localhost:${t.config.PORT}`,
          previewUrl: `http://direct--1.localhost:${t.config.PORT}`,
        });
        const detail = await t.http().get(`/projects/${projectId}/deployments/${res.body.id}`).set(asUser(alice)).expect(200);
        expect(detail.body.files).toEqual([
          { path: 'img/dot.png', size: 4, contentType: 'image/png', sha256: sha(Buffer.from([137, 80, 78, 71])) },
          { path: 'index.html', size: 4, contentType: 'text/html; charset=utf-8', sha256: sha('home') },
        ]);
      });

      it('stores a forever deployment with no expiry', async () => {
        const res = await deploy({ files: site(1), ttl: 'forever' }).expect(201);
        expect(res.body).toMatchObject({ ttl: 'forever', expires_at: null });
      });

      it('refuses to change the project type', async () => {
        expect((await deploy({ type: 'static_file', files: site(1) }).expect(400)).body.message).toContain('static_site');
      });

      it('hides another workspace’s project and deployments (404)', async () => {
        await deploy({ files: site(1) }, bob).expect(404);
        const mine = await t.http().get(`/projects/${projectId}/deployments`).set(asUser(alice)).expect(200);
        await t.http().get(`/projects/${projectId}/deployments/${mine.body.data[0].id}`).set(asUser(bob)).expect(404);
        await t.http().patch(`/projects/${projectId}/deployments/${mine.body.data[0].id}/promote`).set(asUser(bob)).expect(404);
      });

      it('gives 20 concurrent deploys 20 distinct versions and no 5xx', async () => {
        const before = (await projectBySlug('direct')).last_version as number;
        const results = await Promise.all(Array.from({ length: 20 }, (_, i) => deploy({ files: [{ path: 'index.html', content: `concurrent ${i}` }] })));
        expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
        const versions = results.map((r) => r.body.version).sort((a, b) => a - b);
        expect(versions).toEqual(Array.from({ length: 20 }, (_, i) => before + i + 1));
        const live = await t.dataSource.query(`SELECT count(*)::int AS n FROM deployments WHERE project_id = $1 AND status = 'live'`, [projectId]);
        expect(live[0].n).toBe(1);
      });
    });

    describe('bad files change nothing', () => {
      const bad: [string, unknown, string][] = [
        ['a parent segment', [{ path: '../etc/passwd', content: 'x' }], 'files[0].path'],
        ['an absolute path', [{ path: '/index.html', content: 'x' }], 'files[0].path'],
        ['a drive path', [{ path: 'C:/x.html', content: 'x' }], 'files[0].path'],
        ['a backslash', [{ path: 'a\\b.html', content: 'x' }], 'files[0].path'],
        ['an empty segment', [{ path: 'a//b.html', content: 'x' }], 'files[0].path'],
        ['a NUL byte', [{ path: 'a\u0000.html', content: 'x' }], 'files[0].path'],
        ['a control character', [{ path: 'a\u0007.html', content: 'x' }], 'files[0].path'],
        ['a percent-encoded dot', [{ path: '%2e%2e/x.html', content: 'x' }], 'files[0].path'],
        ['a percent-encoded slash', [{ path: 'a%2fb.html', content: 'x' }], 'files[0].path'],
        ['an over-long path', [{ path: `${'a'.repeat(1025)}.html`, content: 'x' }], 'files[0].path'],
        ['the reserved prefix', [{ path: '.statichost/login', content: 'x' }], 'files[0].path'],
        [
          'a duplicate after NFC',
          [
            { path: 'caf\u00e9.html', content: 'x' },
            { path: 'cafe\u0301.html', content: 'y' },
          ],
          'files[1].path',
        ],
        ['a non-string path', [{ path: 42, content: 'x' }], 'files[0].path'],
        ['invalid base64', [{ path: 'a.bin', content: 'not*base64', encoding: 'base64' }], 'files[0].content'],
        ['a non-string content', [{ path: 'a.html', content: { html: 1 } }], 'files[0].content'],
        ['an unknown encoding', [{ path: 'a.html', content: 'x', encoding: 'gzip' }], 'files[0].encoding'],
        ['an empty list', [], 'files'],
        ['a list that is not an array', 'index.html', 'files'],
        ['an entry that is not an object', [null], 'files[0]'],
        ['an entry with an unknown field', [{ path: 'a.html', content: 'x', mode: 644 }], 'files[0].mode'],
      ];

      it.each(bad)('%s → 400 naming the entry', async (_what, files, where) => {
        const before = { deployments: await count('deployments'), blobs: await count('blobs'), projects: await count('projects') };
        const res = await lazy({ project_slug: 'bad-files', files }).expect(400);
        expect(res.body.message).toContain(where);
        expect({ deployments: await count('deployments'), blobs: await count('blobs'), projects: await count('projects') }).toEqual(before);
      });

      it('answers a file over the size limit with 413 naming the file, its size and the limit', async () => {
        const big = 'x'.repeat(64 * 1024 + 1);
        const res = await lazy({
          project_slug: 'big-file',
          files: [
            { path: 'ok.html', content: 'ok' },
            { path: 'huge.txt', content: big },
          ],
        }).expect(413);
        expect(res.body).toMatchObject({ code: 'payload_too_large', path: 'huge.txt', size: 64 * 1024 + 1, limit: 64 * 1024 });
        expect(res.body.message).toContain('huge.txt');
        expect(res.body.message).toContain('64 KB');
        expect(await projectBySlug('big-file')).toBeUndefined();
      });

      it('answers a request body over the limit with 413', async () => {
        const files = Array.from({ length: 10 }, (_, i) => ({ path: `f${i}.txt`, content: 'y'.repeat(60 * 1024) }));
        expect((await lazy({ project_slug: 'big-body', files }).expect(413)).body.code).toBe('payload_too_large');
      });
    });

    describe('content-addressed storage', () => {
      it('stores each distinct content once and re-deploys only what changed', async () => {
        const storage = t.app.get(StorageProvider);
        const put = jest.spyOn(storage, 'put');
        const files = Array.from({ length: 30 }, (_, i) => ({ path: `docs/p${i}.html`, content: `<p>dedup page ${i}</p>` }));
        files.push({ path: 'copy.html', content: '<p>dedup page 0</p>' });
        await lazy({ project_slug: 'dedup', files }).expect(201);
        expect(put).toHaveBeenCalledTimes(30);
        put.mockClear();
        files[5] = { path: 'docs/p5.html', content: '<p>changed</p>' };
        await lazy({ project_slug: 'dedup', files }).expect(201);
        expect(put).toHaveBeenCalledTimes(1);
        expect(put.mock.calls[0][0]).toBe(`blobs/${sha('<p>changed</p>').slice(0, 2)}/${sha('<p>changed</p>')}`);
        put.mockRestore();
      });

      it('leaves the previous version live when storage fails mid-deploy', async () => {
        const first = await lazy({ project_slug: 'fragile', files: site(1) }).expect(201);
        const storage = t.app.get(StorageProvider);
        const realPut = storage.put.bind(storage);
        let calls = 0;
        const put = jest.spyOn(storage, 'put').mockImplementation(async (key, body, size) => {
          if (++calls === 3) throw new Error('injected storage failure');
          return realPut(key, body, size);
        });
        const files = Array.from({ length: 6 }, (_, i) => ({ path: `n${i}.html`, content: `new content ${i} ${Date.now()}` }));
        const res = await lazy({ project_slug: 'fragile', files });
        put.mockRestore();
        expect(res.status).toBe(503);
        expect(res.body.code).toBe('storage_unavailable');
        const project = await projectBySlug('fragile');
        expect(project.live_deployment_id).toBe(first.body.id);
        const rows = await t.dataSource.query('SELECT id FROM deployments WHERE project_id = $1', [project.id]);
        expect(rows).toEqual([{ id: first.body.id }]);
        // The same request succeeds once storage is back.
        expect((await lazy({ project_slug: 'fragile', files }).expect(201)).body.version).toBe(2);
      });
    });

    describe('promote, archive, expiry', () => {
      let projectId: string;
      let v1: string;
      let v2: string;
      beforeAll(async () => {
        v1 = (await lazy({ project_slug: 'rollback', files: [{ path: 'index.html', content: 'one' }], ttl: '1d' }).expect(201)).body.id;
        v2 = (await lazy({ project_slug: 'rollback', files: [{ path: 'index.html', content: 'two' }], ttl: '30d' }).expect(201)).body.id;
        projectId = (await projectBySlug('rollback')).id;
      });
      const patch = (id: string, action: string) => t.http().patch(`/projects/${projectId}/deployments/${id}/${action}`).set(asUser(alice));

      it('promotes an archived deployment back to live (rollback) without copying files', async () => {
        const blobsBefore = await count('blobs');
        const res = await patch(v1, 'promote').expect(200);
        expect(res.body).toMatchObject({ id: v1, status: 'live', version: 1 });
        expect((await projectBySlug('rollback')).live_deployment_id).toBe(v1);
        const list = await t.http().get(`/projects/${projectId}/deployments`).set(asUser(alice)).expect(200);
        expect(list.body.data.map((d: { status: string }) => d.status)).toEqual(['archived', 'live']);
        expect(list.body.meta).toEqual({ total: 2, page: 1, limit: 20, totalPages: 1 });
        const page2 = await t.http().get(`/projects/${projectId}/deployments?limit=1&page=2`).set(asUser(alice)).expect(200);
        expect(page2.body.data.map((d: { id: string }) => d.id)).toEqual([v1]);
        const past = await t.http().get(`/projects/${projectId}/deployments?limit=1&page=3`).set(asUser(alice)).expect(200);
        expect(past.body).toEqual({ data: [], meta: { total: 2, page: 3, limit: 1, totalPages: 2 } });
        expect(await count('blobs')).toBe(blobsBefore);
        await patch(v1, 'promote').expect(200);
      });

      it('archives the live deployment and takes the site offline', async () => {
        const res = await patch(v1, 'archive').expect(200);
        expect(res.body.status).toBe('archived');
        expect((await projectBySlug('rollback')).live_deployment_id).toBeNull();
        const project = await t.http().get(`/projects/${projectId}`).set(asUser(alice)).expect(200);
        expect(project.body.liveDeploymentId).toBeNull();
        await patch(v2, 'promote').expect(200);
      });

      it('needs deploy to promote and delete to archive', async () => {
        const readOnly = await createApiToken(t, alice, { scopes: ['read'] });
        await t.http().patch(`/projects/${projectId}/deployments/${v1}/promote`).set(bearer(readOnly.token)).expect(403);
        await t.http().patch(`/projects/${projectId}/deployments/${v1}/archive`).set(bearer(deployToken)).expect(403);
      });

      it('expires deployments past their TTL, refuses to promote them and collects their objects', async () => {
        const clock = t.app.get(Clock);
        const sweeper = t.app.get(TtlSweeper);
        const collector = t.app.get(BlobCollector);
        const storage = t.app.get(StorageProvider);
        const later = new Date(Date.now() + 2 * DAY);
        const now = jest.spyOn(clock, 'now').mockReturnValue(later);
        try {
          const report = await sweeper.runOnce();
          expect(report.ran).toBe(true);
          expect(report.expired).toBeGreaterThanOrEqual(1);
          const [row] = await t.dataSource.query('SELECT status FROM deployments WHERE id = $1', [v1]);
          expect(row.status).toBe('expired');
          const res = await patch(v1, 'promote').expect(409);
          expect(res.body.code).toBe('deployment_expired');
          // 'one' is referenced by v1 alone: once the grace period passes its object goes.
          now.mockReturnValue(new Date(later.getTime() + t.config.BLOB_GC_GRACE_SECONDS * 1000 + 1000));
          await collector.runOnce();
          expect(await storage.exists(`blobs/${sha('one').slice(0, 2)}/${sha('one')}`)).toBe(false);
          expect(await storage.exists(`blobs/${sha('two').slice(0, 2)}/${sha('two')}`)).toBe(true);
          const detail = await t.http().get(`/projects/${projectId}/deployments/${v1}`).set(asUser(alice)).expect(200);
          expect(detail.body.status).toBe('expired');
        } finally {
          now.mockRestore();
        }
      });

      it('never deletes an object that a concurrent deploy is reusing', async () => {
        const clock = t.app.get(Clock);
        const sweeper = t.app.get(TtlSweeper);
        const collector = t.app.get(BlobCollector);
        const storage = t.app.get(StorageProvider);
        const content = `shared ${Date.now()}`;
        const key = `blobs/${sha(content).slice(0, 2)}/${sha(content)}`;
        await lazy({ project_slug: 'gc-race', files: [{ path: 'index.html', content }], ttl: '1h' }).expect(201);
        const projectId2 = (await projectBySlug('gc-race')).id;
        const now = jest.spyOn(clock, 'now');
        try {
          // The first deployment expires and its blob becomes collectable...
          const expiredAt = new Date(Date.now() + 2 * 60 * 60 * 1000 + t.config.BLOB_GC_GRACE_SECONDS * 1000);
          now.mockReturnValue(expiredAt);
          // ...while a deploy that reuses it is between claiming and committing.
          const deploy = t
            .http()
            .post(`/projects/${projectId2}/deployments`)
            .set(asUser(alice))
            .send({
              files: [
                { path: 'index.html', content },
                { path: 'other.html', content: `slow ${Date.now()}` },
              ],
              ttl: '30d',
            });
          const [res, report] = await Promise.all([deploy, sweeper.runOnce().then(() => collector.runOnce())]);
          expect(res.status).toBe(201);
          expect(report.ran).toBe(true);
          // Whatever the interleaving, the live deployment's object is in the store.
          expect(await storage.exists(key)).toBe(true);
          const [blob] = await t.dataSource.query('SELECT stored FROM blobs WHERE sha256 = $1', [sha(content)]);
          expect(blob.stored).toBe(true);
        } finally {
          now.mockRestore();
        }
      });
    });

    describe('compressed copies', () => {
      it('stores Brotli and gzip copies beside a compressible blob, serves them, and collects them with it', async () => {
        const clock = t.app.get(Clock);
        const sweeper = t.app.get(TtlSweeper);
        const collector = t.app.get(BlobCollector);
        const storage = t.app.get(StorageProvider);
        const content = Array.from({ length: 400 }, (_, i) => `<p>paragraph ${i} of a compressible page ${driver}</p>`).join('\n');
        const keys = [`blobs/${sha(content).slice(0, 2)}/${sha(content)}`, variantKey(sha(content), 'br'), variantKey(sha(content), 'gzip')];
        await lazy({ project_slug: `zip-${driver}`, files: [{ path: 'index.html', content }], ttl: '1h' }).expect(201);
        await t.app.get(BlobVariants).idle();
        for (const key of keys) expect(await storage.exists(key)).toBe(true);
        const [row] = await t.dataSource.query('SELECT br_size, gzip_size FROM blobs WHERE sha256 = $1', [sha(content)]);
        expect((await storage.head(keys[1]))?.size).toBe(Number(row.br_size));
        // supertest decodes the body; Content-Length tells what came over the wire.
        const res = await t.http().get('/').set('Host', `zip-${driver}.${t.config.SITES_DOMAIN}:${t.port}`).set('Accept-Encoding', 'br').expect(200);
        expect(res.headers['content-encoding']).toBe('br');
        expect(res.headers['content-length']).toBe(String(row.br_size));
        expect(res.text).toBe(content);
        // Expired and past the grace period: the blob and both copies go.
        const now = jest.spyOn(clock, 'now').mockReturnValue(new Date(Date.now() + 2 * 60 * 60 * 1000 + t.config.BLOB_GC_GRACE_SECONDS * 1000));
        try {
          await sweeper.runOnce();
          now.mockReturnValue(new Date(Date.now() + 4 * 60 * 60 * 1000 + 2 * t.config.BLOB_GC_GRACE_SECONDS * 1000));
          await collector.runOnce();
        } finally {
          now.mockRestore();
        }
        for (const key of keys) expect(await storage.exists(key)).toBe(false);
      });
    });

    describe('Idempotency-Key', () => {
      it('replays the first response for the same key and body', async () => {
        const body = { project_slug: 'idem', files: site(1) };
        const first = await lazy(body).set('Idempotency-Key', 'deploy-42').expect(201);
        const again = await lazy(body).set('Idempotency-Key', 'deploy-42').expect(201);
        expect(again.body).toEqual(first.body);
        expect(again.headers['idempotent-replayed']).toBe('true');
        const rows = await t.dataSource.query(`SELECT count(*)::int AS n FROM deployments d JOIN projects p ON p.id = d.project_id WHERE p.slug = 'idem'`);
        expect(rows[0].n).toBe(1);
      });

      it('answers 422 for the same key with another body', async () => {
        await lazy({ project_slug: 'idem', files: site(1) })
          .set('Idempotency-Key', 'deploy-43')
          .expect(201);
        const res = await lazy({ project_slug: 'idem', files: site(2) })
          .set('Idempotency-Key', 'deploy-43')
          .expect(422);
        expect(res.body.code).toBe('idempotency_key_reused');
      });

      it('does not replay to a token bound to another project (its own check comes after the replay)', async () => {
        const body = { project_slug: 'idem-wide', files: site(1) };
        await lazy(body).set('Idempotency-Key', 'deploy-45').expect(201);
        const own = await t.http().post('/projects').set(asUser(alice)).send({ name: 'idem bound', slug: 'idem-bound' }).expect(201);
        const bound = await createApiToken(t, alice, { scopes: ['deploy'], projectId: own.body.id });
        const res = await lazy(body, bound.token).set('Idempotency-Key', 'deploy-45');
        expect(res.headers['idempotent-replayed']).toBeUndefined();
        expect(res.status).toBe(422);
        expect(res.body.code).toBe('idempotency_key_reused');
      });

      it('scopes keys per workspace', async () => {
        await lazy({ project_slug: 'idem-bob', files: site(1) }, bobToken)
          .set('Idempotency-Key', 'deploy-42')
          .expect(201);
      });

      it('lets a failed request be retried with the same key', async () => {
        await lazy({ project_slug: 'idem-fail', files: [{ path: '../x', content: 'x' }] })
          .set('Idempotency-Key', 'deploy-44')
          .expect(400);
        await lazy({ project_slug: 'idem-fail', files: site(1) })
          .set('Idempotency-Key', 'deploy-44')
          .expect(201);
      });
    });
  });
}
