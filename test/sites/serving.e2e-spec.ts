import { createHash } from 'node:crypto';

import { Clock } from '../../src/common/time';
import { startTestApp, type TestApp } from '../helpers/app';
import { asUser, createApiToken, registerUser } from '../helpers/identity';
import { deploySite, site, siteHost } from '../helpers/sites';

const etagOf = (s: string | Buffer) => `"${createHash('sha256').update(s).digest('hex')}"`;

describe('Serving sites (e2e)', () => {
  let t: TestApp;
  let token: string;
  let session: Awaited<ReturnType<typeof registerUser>>;

  beforeAll(async () => {
    t = await startTestApp({ env: { SITE_FILE_CACHE_MAX_FILE_BYTES: '1024' } });
    session = await registerUser(t);
    token = (await createApiToken(t, session, { scopes: ['deploy', 'read'] })).token;
    await t.http().post('/projects').set(asUser(session)).send({ name: 'Docs', slug: 'docs-site', type: 'static_site' }).expect(201);
    await deploySite(t, token, 'docs-site', [
      { path: 'index.html', content: '<h1>home</h1>' },
      { path: 'about.html', content: '<h1>about</h1>' },
      { path: 'guide/index.html', content: '<h1>guide</h1>' },
      { path: 'blog/index.html', content: '<h1>blog index</h1>' },
      { path: 'blog', content: 'a file called blog' },
      { path: 'assets/app.3f9a8c1b.js', content: 'console.log(1)' },
      { path: 'data.json', content: '{"a":1}' },
      { path: 'big.txt', content: '0123456789'.repeat(500) },
      { path: 'héllo wörld.txt', content: 'unicode name' },
      { path: '404.html', content: '<h1>custom missing</h1>' },
    ]);
    await deploySite(t, token, 'one-file', [{ path: 'report.pdf', content: Buffer.from('%PDF-1.4 fake').toString('base64'), encoding: 'base64' }]);
  });
  afterAll(() => t.close());

  describe('routing by host', () => {
    it('serves <slug>.<SITES_DOMAIN> whatever the case, port or trailing dot', async () => {
      for (const host of [siteHost(t, 'docs-site'), `DOCS-SITE.LOCALHOST:${t.port}`, 'docs-site.localhost.', 'docs-site.localhost']) {
        const res = await t.http().get('/').set('Host', host).expect(200);
        expect(res.text).toBe('<h1>home</h1>');
      }
    });

    it('answers an unknown site with a 404 page', async () => {
      const res = await site(t, 'no-such-site').get('/').expect(404);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.text).toContain('Site not found');
    });

    it('never lets a site host reach the API', async () => {
      const res = await site(t, 'docs-site').get('/health').expect(404);
      expect(res.text).toContain('<h1>custom missing</h1>');
      await site(t, 'no-such-site').get('/docs/openapi.json').expect(404);
    });

    it('never serves the API host as a site', async () => {
      const res = await t.http().get('/').set('Host', `localhost:${t.port}`);
      expect(res.headers['content-type']).toContain('application/json');
      await t.http().get('/health').set('Host', `127.0.0.1:${t.port}`).expect(200);
    });
  });

  describe('files', () => {
    it('maps / to index.html, dir/ to dir/index.html and clean URLs', async () => {
      const s = site(t, 'docs-site');
      expect((await s.get('/').expect(200)).text).toBe('<h1>home</h1>');
      expect((await s.get('/guide/').expect(200)).text).toBe('<h1>guide</h1>');
      // Canonical URLs (issue 12): a directory's page lives at "dir/", a page file at its extensionless name.
      expect((await s.get('/guide').expect(308)).headers.location).toBe('/guide/');
      expect((await s.get('/about').expect(200)).text).toBe('<h1>about</h1>');
      expect((await s.get('/about.html').expect(308)).headers.location).toBe('/about');
      expect((await s.get('/blog').expect(200)).body.toString()).toBe('a file called blog');
      expect((await s.get('/blog/').expect(200)).text).toBe('<h1>blog index</h1>');
      expect((await s.get('/h%C3%A9llo%20w%C3%B6rld.txt?x=1').expect(200)).text).toBe('unicode name');
    });

    it('serves the single file of a static_file deployment at /', async () => {
      const res = await site(t, 'one-file').get('/').expect(200);
      expect(res.headers['content-type']).toBe('application/pdf');
      expect(res.body.toString()).toBe('%PDF-1.4 fake');
    });

    it('answers a miss with the deployment’s 404.html, or the built-in page', async () => {
      const res = await site(t, 'docs-site').get('/nope').expect(404);
      expect(res.text).toBe('<h1>custom missing</h1>');
      const builtIn = await site(t, 'one-file').get('/nope').expect(404);
      expect(builtIn.text).toContain('Page not found');
    });

    it.each([
      '/../../etc/passwd',
      '/%2e%2e/%2e%2e/etc/passwd',
      '/guide/%2e%2e%2fabout.html',
      '/%252e%252e/about.html',
      '/guide/..%5cabout.html',
      '/a%00b',
      '/%ff%fe',
      '/.statichost/gate',
      '/..',
    ])('answers %s with a 404 and never another file or a 500', async (path) => {
      const res = await site(t, 'docs-site').get(path);
      expect([404]).toContain(res.status);
      expect(res.text).not.toContain('<h1>about</h1>');
    });
  });

  describe('headers', () => {
    it('sets type, charset, strong ETag, cache policy and nosniff', async () => {
      const html = await site(t, 'docs-site').get('/about').expect(200);
      expect(html.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(html.headers.etag).toBe(etagOf('<h1>about</h1>'));
      expect(html.headers['cache-control']).toBe('public, max-age=0, must-revalidate');
      expect(html.headers['x-content-type-options']).toBe('nosniff');
      const json = await site(t, 'docs-site').get('/data.json').expect(200);
      expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
      const asset = await site(t, 'docs-site').get('/assets/app.3f9a8c1b.js').expect(200);
      expect(asset.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    });

    it('answers If-None-Match with 304', async () => {
      const res = await site(t, 'docs-site').get('/about').set('If-None-Match', etagOf('<h1>about</h1>')).expect(304);
      expect(res.text ?? '').toBe('');
      await site(t, 'docs-site')
        .get('/about')
        .set('If-None-Match', `W/${etagOf('<h1>about</h1>')}, "other"`)
        .expect(304);
      await site(t, 'docs-site').get('/about').set('If-None-Match', '"stale"').expect(200);
    });

    it('answers HEAD with the headers and no body', async () => {
      const res = await site(t, 'docs-site').head('/about').expect(200);
      expect(res.headers['content-length']).toBe(String('<h1>about</h1>'.length));
      expect(res.text ?? '').toBe('');
    });

    it('serves single byte ranges from memory and from storage (206 / 416)', async () => {
      const small = await site(t, 'docs-site').get('/about').set('Range', 'bytes=4-8').expect(206);
      expect(small.text).toBe('about');
      expect(small.headers['content-range']).toBe('bytes 4-8/14');
      const big = await site(t, 'docs-site').get('/big.txt').set('Range', 'bytes=-5').expect(206);
      expect(big.text).toBe('56789');
      expect(big.headers['content-range']).toBe('bytes 4995-4999/5000');
      const whole = await site(t, 'docs-site').get('/big.txt').expect(200);
      expect(whole.text).toHaveLength(5000);
      const bad = await site(t, 'docs-site').get('/big.txt').set('Range', 'bytes=6000-7000').expect(416);
      expect(bad.headers['content-range']).toBe('bytes */5000');
      await site(t, 'docs-site').get('/big.txt').set('Range', 'bytes=0-1,5-6').expect(200);
    });

    it("gives the built-in pages (404, 405, 416, unknown site) a strict CSP, no framing and no referrer; the site's own files get none of it (issue #26)", async () => {
      const builtIn = [
        await site(t, 'no-such-site').get('/').expect(404),
        await site(t, 'one-file').get('/nope').expect(404),
        await site(t, 'docs-site').request('POST', '/about').expect(405),
        await site(t, 'docs-site').get('/big.txt').set('Range', 'bytes=6000-7000').expect(416),
      ];
      for (const res of builtIn) {
        expect(res.headers['content-security-policy']).toMatch(
          /^default-src 'none'; style-src 'sha256-[^']+'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'$/,
        );
        expect(res.headers['x-frame-options']).toBe('DENY');
        expect(res.headers['referrer-policy']).toBe('no-referrer');
      }
      for (const path of ['/about', '/nope', '/assets/app.3f9a8c1b.js']) {
        const own = await site(t, 'docs-site').get(path);
        expect([own.status, own.headers['content-security-policy'], own.headers['x-frame-options'], own.headers['referrer-policy']]).toEqual([
          path === '/nope' ? 404 : 200,
          undefined,
          undefined,
          undefined,
        ]);
      }
    });

    it('answers other methods with 405 and Allow', async () => {
      for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
        const res = await site(t, 'docs-site').request(method, '/about').expect(405);
        expect(res.headers.allow).toBe('GET, HEAD');
      }
    });
  });

  describe('states', () => {
    it('answers a project with nothing live with a 404 "nothing published" page', async () => {
      await t.http().post('/projects').set(asUser(session)).send({ name: 'Empty', slug: 'empty-site' }).expect(201);
      const res = await site(t, 'empty-site').get('/').expect(404);
      expect(res.text).toContain('Nothing published');
    });

    it('answers an expired live deployment with 410, and a deleted project with 404', async () => {
      await deploySite(t, token, 'short-lived', [{ path: 'index.html', content: 'soon gone' }], { ttl: '1h' });
      await site(t, 'short-lived').get('/').expect(200);
      const clock = jest.spyOn(t.app.get(Clock), 'now').mockReturnValue(new Date(Date.now() + 2 * 60 * 60 * 1000));
      try {
        expect((await site(t, 'short-lived').get('/').expect(410)).text).toContain('expired');
      } finally {
        clock.mockRestore();
      }
      const project = (await t.dataSource.query(`SELECT id FROM projects WHERE slug = 'short-lived'`))[0];
      await t.http().delete(`/projects/${project.id}`).set(asUser(session)).expect(204);
      await site(t, 'short-lived').get('/').expect(404);
    });

    it('shows a new deploy, a rollback and an archive on the very next request', async () => {
      const v1 = await deploySite(t, token, 'flip', [{ path: 'index.html', content: 'v1' }]);
      expect((await site(t, 'flip').get('/').expect(200)).text).toBe('v1');
      await deploySite(t, token, 'flip', [{ path: 'index.html', content: 'v2' }]);
      expect((await site(t, 'flip').get('/').expect(200)).text).toBe('v2');
      const projectId = (await t.dataSource.query(`SELECT id FROM projects WHERE slug = 'flip'`))[0].id;
      await t.http().patch(`/projects/${projectId}/deployments/${v1.id}/promote`).set(asUser(session)).expect(200);
      expect((await site(t, 'flip').get('/').expect(200)).text).toBe('v1');
      await t.http().patch(`/projects/${projectId}/deployments/${v1.id}/archive`).set(asUser(session)).expect(200);
      await site(t, 'flip').get('/').expect(404);
    });
  });
});
