import { createHash } from 'node:crypto';

import { NO_FREE_QUOTAS, startTestApp, type TestApp } from '../helpers/app';
import { asUser, bearer, createApiToken, registerUser } from '../helpers/identity';
import { type DeployFile, deploySite, site } from '../helpers/sites';

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const GATE_PASSWORD = 'rules and gates';

/**
 * Issue 12: `_redirects`, `_headers`, canonical URLs and not-found handling, over
 * real HTTP. Deploy-time validation first (a bad file is a 400 naming its line and
 * nothing goes live), then what a visitor sees.
 */
describe('Site rules: _redirects, _headers, canonical URLs, 404 and SPA (e2e)', () => {
  let t: TestApp;
  let token: string;
  let session: Awaited<ReturnType<typeof registerUser>>;

  beforeAll(async () => {
    t = await startTestApp({ env: { PLANS_JSON: NO_FREE_QUOTAS } });
    session = await registerUser(t);
    token = (await createApiToken(t, session, { scopes: ['deploy', 'read'] })).token;
  });
  afterAll(() => t.close());

  const deployRaw = (slug: string, files: object[]) => t.http().post('/v1/deployments').set(bearer(token)).send({ project_slug: slug, files });
  const b64 = (b: Buffer): DeployFile => ({ path: '', content: b.toString('base64'), encoding: 'base64' });

  describe('deploy-time validation', () => {
    it('refuses a bad _redirects line with 400 naming the file, the line and the problem; nothing goes live', async () => {
      await deploySite(t, token, 'v-live', [{ path: 'index.html', content: 'v1' }]);
      const res = await deployRaw('v-live', [
        { path: 'index.html', content: 'v2' },
        { path: '_redirects', content: '# comment\n/old /new 301\n/bad /dest 418\n' },
      ]).expect(400);
      expect(res.body.code).toBe('invalid_redirects');
      expect(res.body.message).toMatch(/^_redirects line 3: status "418" is not one of/);
      expect(res.body.errors).toEqual([{ line: 3, message: expect.stringContaining('"418"') }]);
      expect((await site(t, 'v-live').get('/').expect(200)).text).toBe('v1');
    });

    it('refuses headers that would break the service (Set-Cookie, hop-by-hop, Content-Length…) with invalid_headers', async () => {
      const res = await deployRaw('v-headers', [
        { path: 'index.html', content: 'x' },
        { path: '_headers', content: '/*\n  X-Frame-Options: DENY\n  Set-Cookie: a=b\n  Transfer-Encoding: chunked\n  Content-Length: 1\n' },
      ]).expect(400);
      expect(res.body.code).toBe('invalid_headers');
      expect(res.body.errors.map((e: { line: number }) => e.line)).toEqual([3, 4, 5]);
      expect(res.body.message).toContain('_headers line 3: Set-Cookie cannot be set by static files');
      // A refused first deploy creates no site.
      expect((await site(t, 'v-headers').get('/').expect(404)).text).toContain('Site not found');
    });

    it('refuses headers that act on other systems: proxy directives, redirects outside _redirects, Clear-Site-Data (issue #26)', async () => {
      const res = await deployRaw('v-proxy', [
        { path: 'index.html', content: 'x' },
        {
          path: '_headers',
          content:
            '/*\n  X-Frame-Options: DENY\n  X-Accel-Redirect: /internal/\n  Refresh: 0; url=https://evil.example/\n  Location: https://evil.example/\n  Clear-Site-Data: "cookies"\n  X-Sendfile: /etc/passwd\n',
        },
      ]).expect(400);
      expect(res.body.code).toBe('invalid_headers');
      expect(res.body.errors.map((e: { line: number }) => e.line)).toEqual([3, 4, 5, 6, 7]);
      expect(res.body.message).toContain('_headers line 3: X-Accel-Redirect is an instruction to a proxy in front of the server');
      expect(res.body.message).toContain('line 4: Refresh would redirect outside _redirects');
      expect(res.body.message).toContain('line 5: Location would redirect outside _redirects');
      expect(res.body.message).toContain('line 6: Clear-Site-Data could clear the cookies and storage of every site under the same domain');
      expect((await site(t, 'v-proxy').get('/').expect(404)).text).toContain('Site not found');
    });

    it('refuses _headers that would give one answer over 8 KB of headers (100 blocks of 1,900 characters: 191 KB)', async () => {
      const blocks = Array.from({ length: 100 }, (_, i) => `/*\n  X-Pad-${i}: ${'v'.repeat(1900)}`).join('\n');
      const res = await deployRaw('v-pad', [
        { path: 'index.html', content: 'x' },
        { path: '_headers', content: blocks },
      ]).expect(400);
      expect(res.body.code).toBe('invalid_headers');
      expect(res.body.message).toMatch(
        /^_headers line 1: path "\/\*": this block's headers and those of the blocks that can match the same paths \(lines 3, 5/,
      );
      expect(res.body.message).toContain('one answer can get at most 8192 bytes of headers from _headers');
      // The same headers spread over pages of their own are fine: each answer gets one block.
      const pages = Array.from({ length: 100 }, (_, i) => `/p${i}\n  X-Pad: ${'v'.repeat(1900)}`).join('\n');
      await deploySite(t, token, 'v-pad', [
        { path: 'index.html', content: 'x' },
        { path: '_headers', content: pages },
      ]);
    });

    it('refuses CORS with credentials on a gated project, and drops it from a deployment made before the gate was switched on', async () => {
      const rules = '/*\n  Access-Control-Allow-Origin: https://other.sites.example\n  Access-Control-Allow-Credentials: true\n';
      const files = [
        { path: 'index.html', content: 'members only' },
        { path: '_headers', content: rules },
      ];
      const project = await t
        .http()
        .post('/projects')
        .set(asUser(session))
        .send({ name: 'CORS gated', slug: 'v-cors', type: 'static_site', gate_type: 'password', password: GATE_PASSWORD })
        .expect(201);
      const refused = await deployRaw('v-cors', files).expect(400);
      expect(refused.body.code).toBe('invalid_headers');
      expect(refused.body.message).toBe(
        "_headers line 3: Access-Control-Allow-Credentials cannot be set on a gated site: it would let other origins read gated pages with the visitor's access cookie. Nothing was deployed.",
      );
      expect(refused.body.errors).toEqual([{ line: 3, message: expect.stringContaining('Access-Control-Allow-Credentials cannot be set on a gated site') }]);

      // Without the gate the deploy is accepted and the headers are served; switching the gate on drops the credentials one.
      await t.http().patch(`/projects/${project.body.id}`).set(asUser(session)).send({ gate_type: 'none' }).expect(200);
      await deploySite(t, token, 'v-cors', files);
      const open = await site(t, 'v-cors').get('/').expect(200);
      expect(open.headers['access-control-allow-credentials']).toBe('true');
      await t.http().patch(`/projects/${project.body.id}`).set(asUser(session)).send({ gate_type: 'password' }).expect(200);
      const login = await site(t, 'v-cors').post('/.statichost/gate').type('form').send({ password: GATE_PASSWORD, next: '/' }).expect(303);
      const cookie = (login.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
      const gated = await site(t, 'v-cors').get('/').set('Cookie', cookie).expect(200);
      expect(gated.text).toBe('members only');
      expect(gated.headers['access-control-allow-origin']).toBe('https://other.sites.example');
      expect(gated.headers['access-control-allow-credentials']).toBeUndefined();
    });

    it("holds a block for the site's host to the same rules: CORS with credentials on a gated project, and the 8 KB bound with the blocks it meets", async () => {
      const host = `v-cors-host.${t.config.SITES_DOMAIN}`;
      const rules = `/*\n  X-Frame-Options: DENY\nhttps://${host}/*\n  Access-Control-Allow-Origin: https://other.sites.example\n  Access-Control-Allow-Credentials: true\n`;
      const files = [
        { path: 'index.html', content: 'members only' },
        { path: '_headers', content: rules },
      ];
      const project = await t
        .http()
        .post('/projects')
        .set(asUser(session))
        .send({ name: 'CORS gated host', slug: 'v-cors-host', type: 'static_site', gate_type: 'password', password: GATE_PASSWORD })
        .expect(201);
      const refused = await deployRaw('v-cors-host', files).expect(400);
      expect(refused.body.code).toBe('invalid_headers');
      expect(refused.body.errors).toEqual([{ line: 5, message: expect.stringContaining('Access-Control-Allow-Credentials cannot be set on a gated site') }]);

      await t.http().patch(`/projects/${project.body.id}`).set(asUser(session)).send({ gate_type: 'none' }).expect(200);
      await deploySite(t, token, 'v-cors-host', files);
      expect((await site(t, 'v-cors-host').get('/').expect(200)).headers['access-control-allow-credentials']).toBe('true');
      await t.http().patch(`/projects/${project.body.id}`).set(asUser(session)).send({ gate_type: 'password' }).expect(200);
      const login = await site(t, 'v-cors-host').post('/.statichost/gate').type('form').send({ password: GATE_PASSWORD, next: '/' }).expect(303);
      const cookie = (login.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
      const gated = await site(t, 'v-cors-host').get('/').set('Cookie', cookie).expect(200);
      expect([gated.headers['x-frame-options'], gated.headers['access-control-allow-origin']]).toEqual(['DENY', 'https://other.sites.example']);
      expect(gated.headers['access-control-allow-credentials']).toBeUndefined();

      const pad = (n: number) => `  X-Pad-${n}: ${'v'.repeat(1900)}`;
      const big = `/*\n${pad(1)}\n${pad(2)}\n${pad(3)}\nhttps://${host}/docs/*\n${pad(4)}\n${pad(5)}\n`;
      const tooBig = await deployRaw('v-cors-host', [files[0], { path: '_headers', content: big }]).expect(400);
      expect(tooBig.body.message).toMatch(
        /^_headers line 1: path "\/\*": this block's headers and those of the blocks that can match the same paths \(lines 5\)/,
      );
      // Two hosts no request has together: each answer gets one of the blocks.
      await deploySite(t, token, 'v-cors-host', [files[0], { path: '_headers', content: big.replace('/*\n', `https://other.${t.config.SITES_DOMAIN}/*\n`) }]);
    });

    it('refuses a 10,000-line _redirects file (over 2,000 static rules) and 101 dynamic rules', async () => {
      const lines = Array.from({ length: 10_000 }, (_, i) => `/old/${i} /new/${i} 301`).join('\n');
      const res = await deployRaw('v-big', [
        { path: '_redirects', content: lines },
        { path: 'index.html', content: 'x' },
      ]).expect(400);
      expect(res.body.code).toBe('invalid_redirects');
      expect(res.body.message).toContain('line 2001: is static rule number 2001; the limit is 2000');
      const dynamic = Array.from({ length: 101 }, (_, i) => `/d${i}/* /x/:splat 302`).join('\n');
      const res2 = await deployRaw('v-big', [
        { path: '_redirects', content: dynamic },
        { path: 'x/index.html', content: 'x' },
      ]).expect(400);
      expect(res2.body.message).toContain('line 101: is dynamic rule number 101 (with "*" or a placeholder); the limit is 100');
    });

    it('refuses lines over the length limits and over 100 _headers blocks', async () => {
      const long = await deployRaw('v-long', [{ path: '_redirects', content: `/a /${'b'.repeat(1000)} 302` }]).expect(400);
      expect(long.body.message).toContain('line 1: line is 1008 characters long; the limit is 1000');
      const blocks = Array.from({ length: 101 }, (_, i) => `/p${i}\n  X-N: ${i}`).join('\n');
      const many = await deployRaw('v-long', [{ path: '_headers', content: blocks }]).expect(400);
      expect(many.body.code).toBe('invalid_headers');
      expect(many.body.message).toContain('line 201: is path block number 101; the limit is 100');
    });

    it('refuses a file that is not UTF-8, naming its first bad line', async () => {
      const bytes = Buffer.concat([Buffer.from('/a /b 302\n/caf'), Buffer.from([0xe9]), Buffer.from(' /cafe 302\n')]);
      const res = await deployRaw('v-latin1', [{ ...b64(bytes), path: '_redirects' }]).expect(400);
      expect(res.body.message).toBe('_redirects line 2: is not valid UTF-8 (save it as UTF-8). Nothing was deployed.');
    });

    it('refuses rules pointing outside the deployment, proxies with a fragment and protocol-relative destinations', async () => {
      for (const [rule, problem] of [
        ['/x /../../etc/passwd 200', 'is not a path inside the site'],
        ['/x /%2e%2e/etc/passwd 200', 'is not a path inside the site'],
        ['/api/* https://internal.example/:splat#x 200', 'has a fragment'],
        ['/x //evil.example/ 302', 'protocol-relative'],
        ['/x javascript:alert(1) 302', 'scheme other than http or https'],
        ['/x/:h https://:h.example/ 302', 'the host of a redirect must be fixed'],
      ]) {
        const res = await deployRaw('v-outside', [
          { path: '_redirects', content: rule },
          { path: 'index.html', content: 'x' },
        ]).expect(400);
        expect(res.body.message).toContain(`line 1: destination`);
        expect(res.body.message).toContain(problem);
      }
    });

    it('refuses redirect loops between rules (and through canonical URLs), naming the lines', async () => {
      const res = await deployRaw('v-loop', [
        { path: 'index.html', content: 'x' },
        { path: 'guide/index.html', content: 'guide' },
        { path: '_redirects', content: '/a /b 302\n/b /c 301\n/c /a 307\n/guide/ /guide 301!\n/q /q?x=1 302\n' },
      ]).expect(400);
      expect(res.body.code).toBe('invalid_redirects');
      expect(res.body.errors).toEqual([
        { line: 1, message: 'redirects in a loop: /a → /b → /c → /a' },
        { line: 2, message: 'redirects in a loop: /b → /c → /a → /b' },
        { line: 3, message: 'redirects in a loop: /c → /a → /b → /c' },
        // "/guide" → "/guide/" is the canonical 308 for guide/index.html.
        { line: 4, message: 'redirects in a loop: /guide/ → /guide → /guide/' },
        { line: 5, message: 'redirects in a loop: /q → /q?x=1 → /q?x=1' },
      ]);
      const dynamic = await deployRaw('v-loop', [{ path: '_redirects', content: '/a/* /b/:splat 302\n/b/* /a/:splat 302\n' }]).expect(400);
      expect(dynamic.body.message).toContain('line 1: redirects in a loop: /a/x → /b/x → /a/x');
    });

    it('reads digest-only (PUT /v1/blobs) rule files back from storage to check them', async () => {
      const put = async (body: Buffer) => {
        await t
          .http()
          .put(`/v1/blobs/${sha(body)}`)
          .set(bearer(token))
          .set('Content-Type', 'application/octet-stream')
          .send(body)
          .expect(201);
        return { sha256: sha(body), size: body.length };
      };
      const bad = await put(Buffer.from('/ok /fine 302\n/nope\n'));
      const res = await deployRaw('v-digest', [
        { path: 'index.html', content: 'home' },
        { path: '_redirects', ...bad },
      ]).expect(400);
      expect(res.body.message).toContain('_redirects line 2: has only "/nope"');
      const good = await put(Buffer.from('/from /to 302\n'));
      await deployRaw('v-digest', [
        { path: 'index.html', content: 'home' },
        { path: '_redirects', ...good },
      ]).expect(201);
      expect((await site(t, 'v-digest').get('/from').expect(302)).headers.location).toBe('/to');
    });

    it('refuses a digest-only rule file over 4 MiB from its size, without reading it', async () => {
      const huge = Buffer.alloc(4 * 1024 * 1024 + 1, 0x20);
      await t
        .http()
        .put(`/v1/blobs/${sha(huge)}`)
        .set(bearer(token))
        .set('Content-Type', 'application/octet-stream')
        .send(huge)
        .expect(201);
      const res = await deployRaw('v-digest', [{ path: '_headers', sha256: sha(huge), size: huge.length }]).expect(400);
      expect(res.body).toMatchObject({
        code: 'invalid_headers',
        message: `_headers is ${huge.length} bytes; the limit is 4194304 bytes. Nothing was deployed.`,
      });
    });

    it('accepts CRLF line ends and a byte-order mark', async () => {
      const crlf = '\ufeff# rules\r\n/from   /to   302\r\n\r\n/blog/:year/* /news/:year/:splat 301\r\n';
      await deploySite(t, token, 'v-crlf', [
        { path: '_redirects', content: crlf },
        { path: '_headers', content: '/*\r\n  X-Rules: crlf\r\n' },
        { path: 'index.html', content: 'home' },
      ]);
      const res = await site(t, 'v-crlf').get('/from').expect(302);
      expect(res.headers.location).toBe('/to');
      expect((await site(t, 'v-crlf').get('/blog/2024/a/b').expect(301)).headers.location).toBe('/news/2024/a/b');
      expect((await site(t, 'v-crlf').get('/').expect(200)).headers['x-rules']).toBe('crlf');
    });
  });

  describe('_redirects', () => {
    beforeAll(async () => {
      await deploySite(t, token, 'r-site', [
        { path: 'index.html', content: 'home' },
        { path: 'about.html', content: 'about page' },
        { path: 'forced.html', content: 'forced file' },
        { path: 'app.html', content: 'the app shell' },
        { path: 'en/404.html', content: 'english missing' },
        { path: 'docs/index.html', content: 'docs' },
        { path: '404.html', content: 'top missing' },
        { path: 'secret.txt', content: 'not via rules' },
        {
          path: '_redirects',
          content: [
            '# Netlify syntax',
            '/old /new',
            '/temp /new?from=temp 302',
            '/about /elsewhere 301',
            '/forced /elsewhere 302!',
            '/posts/:year/:slug /blog/:year/:slug 308',
            '/p/first /first 302',
            '/p/* /second/:splat 307',
            '/p/after /never 302',
            '/app/* /app.html 200',
            '/en/* /en/404.html 404',
            '/external https://example.com/docs/ 301',
            '/ext/* https://example.com/docs/:splat 302',
            '/go/* /:splat 302',
            '/missing-target /nowhere.html 200',
            '/see-other /docs/ 303',
          ].join('\n'),
        },
      ]);
    });
    const s = () => site(t, 'r-site');

    it('redirects with 301 by default, other statuses as written, and passes the query when the destination has none', async () => {
      expect((await s().get('/old').expect(301)).headers.location).toBe('/new');
      expect((await s().get('/old?a=1&b=2').expect(301)).headers.location).toBe('/new?a=1&b=2');
      expect((await s().get('/temp?a=1').expect(302)).headers.location).toBe('/new?from=temp');
      expect((await s().get('/see-other').expect(303)).headers.location).toBe('/docs/');
      expect((await s().get('/posts/2024/hello%20world').expect(308)).headers.location).toBe('/blog/2024/hello%20world');
      const head = await s().head('/old').expect(301);
      expect(head.headers['content-length']).toBe('0');
    });

    it('lets a file shadow an unforced rule, and a forced rule win over a file', async () => {
      expect((await s().get('/about').expect(200)).text).toBe('about page');
      expect((await s().get('/forced').expect(302)).headers.location).toBe('/elsewhere');
    });

    it('applies the first matching rule in file order, static or dynamic', async () => {
      expect((await s().get('/p/first').expect(302)).headers.location).toBe('/first');
      expect((await s().get('/p/after').expect(307)).headers.location).toBe('/second/after');
      expect((await s().get('/p/a/b').expect(307)).headers.location).toBe('/second/a/b');
    });

    it('rewrites (200) and serves with 404 without changing the URL', async () => {
      const app = await s().get('/app/settings/profile').expect(200);
      expect(app.text).toBe('the app shell');
      expect(app.headers['content-type']).toBe('text/html; charset=utf-8');
      const en = await s().get('/en/nothing-here').expect(404);
      expect(en.text).toBe('english missing');
      // A rewrite to a file the deployment lacks falls through to the not-found handling.
      expect((await s().get('/missing-target').expect(404)).text).toBe('top missing');
    });

    it('sends visitors to another host only where the author wrote an absolute URL', async () => {
      expect((await s().get('/external').expect(301)).headers.location).toBe('https://example.com/docs/');
      expect((await s().get('/ext/a/b?x=1').expect(302)).headers.location).toBe('https://example.com/docs/a/b?x=1');
      for (const path of [
        '/go//evil.com',
        '/go/%2F%2Fevil.com',
        '/go/%2fevil.com',
        '/go/%5C%5Cevil.com',
        '/go/\\\\evil.com',
        '/go/%09/evil.com',
        '/go/./evil.com',
      ]) {
        const res = await s().get(path);
        if (res.status >= 300 && res.status < 400) {
          expect(res.headers.location).toMatch(/^\/(?![/\\])/);
        } else {
          expect(res.status).toBe(404);
        }
      }
      expect((await s().get('/go/evil.com').expect(302)).headers.location).toBe('/evil.com');
      expect((await s().get('/go/').expect(302)).headers.location).toBe('/');
    });

    it('never serves _redirects or _headers as files', async () => {
      for (const path of ['/_redirects', '/_redirects/', '/_redirects.html', '/_headers']) {
        const res = await s().get(path).expect(404);
        expect(res.text).toBe('top missing');
      }
    });
  });

  describe('canonical URLs and not-found handling', () => {
    beforeAll(async () => {
      await deploySite(t, token, 'c-site', [
        { path: 'index.html', content: 'home' },
        { path: 'about.html', content: 'about' },
        { path: 'team/index.html', content: 'team' },
        { path: 'blog/index.html', content: 'blog' },
        { path: 'blog/404.html', content: 'blog missing' },
        { path: '404.html', content: 'site missing' },
      ]);
      await deploySite(t, token, 'spa-site', [
        { path: 'index.html', content: '<div id="app"></div>' },
        { path: 'app.js', content: 'render()' },
        { path: '_headers', content: '/*\n  X-App: spa\n' },
      ]);
      await deploySite(t, token, 'spa-explicit', [
        { path: 'index.html', content: 'spa shell' },
        { path: '404.html', content: 'never for routes' },
        { path: 'real.html', content: 'real' },
        { path: '_redirects', content: '/* /index.html 200\n' },
      ]);
    });

    it('redirects to the canonical URL with 308, keeping the query string', async () => {
      const c = site(t, 'c-site');
      expect((await c.get('/about.html?x=1&y=%20').expect(308)).headers.location).toBe('/about?x=1&y=%20');
      expect((await c.get('/about.html?z=2').expect(308)).headers.location).toBe('/about?z=2');
      expect((await c.get('/about.html').expect(308)).headers.location).toBe('/about');
      expect((await c.get('/about').expect(200)).text).toBe('about');
      expect((await c.get('/team').expect(308)).headers.location).toBe('/team/');
      expect((await c.get('/team/index.html?q').expect(308)).headers.location).toBe('/team/?q');
      expect((await c.get('/team/index').expect(308)).headers.location).toBe('/team/');
      expect((await c.get('/about/').expect(308)).headers.location).toBe('/about');
      expect((await c.get('/index.html').expect(308)).headers.location).toBe('/');
      expect((await c.get('/team/').expect(200)).text).toBe('team');
    });

    it('serves the closest 404.html with status 404', async () => {
      const c = site(t, 'c-site');
      expect((await c.get('/blog/nope').expect(404)).text).toBe('blog missing');
      expect((await c.get('/blog/deep/er/').expect(404)).text).toBe('blog missing');
      expect((await c.get('/nope').expect(404)).text).toBe('site missing');
      expect((await c.get('/app.js').expect(404)).text).toBe('site missing');
      expect((await c.get('/%ff').expect(404)).text).toBe('site missing');
    });

    it('treats a deployment without a top-level 404.html as a single-page app for navigations only', async () => {
      const spa = site(t, 'spa-site');
      const route = await spa.get('/settings/profile?tab=2').expect(200);
      expect(route.text).toBe('<div id="app"></div>');
      expect(route.headers['x-app']).toBe('spa');
      expect((await spa.get('/users/jane.doe').expect(200)).text).toBe('<div id="app"></div>');
      expect((await spa.head('/settings').expect(200)).headers['content-length']).toBe('20');
      await spa.get('/missing.js').expect(404);
      await spa.get('/logo.png').expect(404);
      await spa.request('POST', '/settings').expect(405);
      expect((await spa.get('/_headers').expect(200)).text).toBe('<div id="app"></div>');
    });

    it('gives the SPA behaviour explicitly with "/* /index.html 200" even beside a 404.html, without hiding files', async () => {
      const s = site(t, 'spa-explicit');
      expect((await s.get('/any/route').expect(200)).text).toBe('spa shell');
      expect((await s.get('/asset.js').expect(200)).text).toBe('spa shell');
      expect((await s.get('/real').expect(200)).text).toBe('real');
    });

    it('walks every file of a sample site, following redirects (bounded), with no loops and every file reachable', async () => {
      const files: DeployFile[] = [
        'index.html',
        'about.html',
        'about/index.html',
        'about/team.html',
        'docs/index.html',
        'docs/v1.2/index.html',
        'docs/guide.html',
        'docs/guide/index.html',
        'docs/guide/intro.html',
        'docs/404.html',
        '404.html',
        'blog.html',
        'blog/index.html',
        'blog/2024/post.html',
        'blog/2024/index.html',
        'index/index.html',
        'assets/app.3f9a8c1b.js',
        'assets/style.css',
        'deep/a/b/c/index.html',
        'deep/a/b/c.html',
        'caf\u00e9.html',
        'names with spaces/index.html',
        'x.html/index.html',
      ].map((path) => ({ path, content: `file:${path}` }));
      await deploySite(t, token, 'walk-site', files);
      const w = site(t, 'walk-site');
      const follow = async (start: string) => {
        const seen = [start];
        let url = start;
        for (let hop = 0; hop < 5; hop++) {
          const res = await w.get(url);
          if (res.status !== 308) return { res, seen };
          url = res.headers.location;
          expect(seen).not.toContain(url);
          seen.push(url);
        }
        throw new Error(`more than 5 redirects from ${start}: ${seen.join(' → ')}`);
      };
      const encode = (p: string) => p.split('/').map(encodeURIComponent).join('/');
      for (const { path } of files) {
        const dir = path.endsWith('/index.html') ? path.slice(0, -'index.html'.length) : undefined;
        const starts = [
          `/${encode(path)}`,
          ...(path.endsWith('.html') ? [`/${encode(path.slice(0, -5))}`] : []),
          ...(dir ? [`/${encode(dir)}`, `/${encode(dir.slice(0, -1))}`] : []),
        ];
        for (const start of starts) {
          const { res, seen } = await follow(start);
          expect([200, 404]).toContain(res.status);
          expect(seen.length).toBeLessThanOrEqual(3);
        }
        // The file itself is reachable: from its own path, following redirects, the answer is its content.
        const own = await follow(`/${encode(path)}`);
        expect({ path, status: own.res.status, body: own.res.text }).toEqual({ path, status: 200, body: `file:${path}` });
      }
    });
  });

  describe('_headers', () => {
    beforeAll(async () => {
      const rules = [
        '/*',
        '  X-Frame-Options: DENY',
        '  Vary: Accept-Language',
        '/assets/*',
        '  Cache-Control: public, max-age=60',
        '  ! X-Content-Type-Options',
        '/people/:name',
        '  X-Person: :name',
        '/rewritten/*',
        '  X-Rewritten: yes',
      ].join('\n');
      const files = [
        { path: 'index.html', content: 'home' },
        { path: 'assets/app.js', content: 'app()' },
        { path: 'people/index.html', content: 'people' },
        { path: 'shell.html', content: 'shell' },
        { path: '404.html', content: 'missing' },
        { path: '_headers', content: rules },
        { path: '_redirects', content: '/rewritten/* /shell.html 200\n/people/:name /shell.html 200\n' },
      ];
      await deploySite(t, token, 'h-site', files);
      await t
        .http()
        .post('/projects')
        .set(asUser(session))
        .send({ name: 'H gated', slug: 'h-gated', type: 'static_site', gate_type: 'password', password: GATE_PASSWORD })
        .expect(201);
      await deploySite(t, token, 'h-gated', files);
    });

    it('adds, replaces and removes headers on file answers, rewrites and 404 pages; Vary is merged', async () => {
      const h = site(t, 'h-site');
      const home = await h.get('/').expect(200);
      expect(home.headers['x-frame-options']).toBe('DENY');
      expect(home.headers.vary).toBe('Accept-Language');
      expect(home.headers['cache-control']).toBe('public, max-age=0, must-revalidate');
      const asset = await h.get('/assets/app.js').expect(200);
      expect(asset.headers['cache-control']).toBe('public, max-age=60');
      expect(asset.headers['x-content-type-options']).toBeUndefined();
      expect(asset.headers['content-length']).toBe('5');
      const person = await h.get('/people/J%C3%BCrgen').expect(200);
      expect(person.text).toBe('shell');
      expect(person.headers['x-person']).toBe('J%C3%BCrgen');
      expect((await h.get('/rewritten/a').expect(200)).headers['x-rewritten']).toBe('yes');
      const missing = await h.get('/nope').expect(404);
      expect(missing.text).toBe('missing');
      expect(missing.headers['x-frame-options']).toBe('DENY');
      // 304 and ranges carry them too.
      const again = await h.get('/assets/app.js').set('If-None-Match', asset.headers.etag).expect(304);
      expect(again.headers['cache-control']).toBe('public, max-age=60');
      const range = await h.get('/assets/app.js').set('Range', 'bytes=0-2').expect(206);
      expect(range.headers['x-frame-options']).toBe('DENY');
      expect(range.headers['content-length']).toBe('3');
    });

    it('cannot loosen caching of a gated site: private, no-store and Vary: Cookie stay', async () => {
      const login = await site(t, 'h-gated').post('/.statichost/gate').type('form').send({ password: GATE_PASSWORD, next: '/' }).expect(303);
      const cookie = (login.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
      const asset = await site(t, 'h-gated').get('/assets/app.js').set('Cookie', cookie).expect(200);
      expect(asset.headers['cache-control']).toBe('private, no-store');
      expect(asset.headers.vary).toBe('Cookie, Accept-Language');
      expect(asset.headers['x-frame-options']).toBe('DENY');
      expect(asset.headers['x-content-type-options']).toBeUndefined();
      // Without the cookie: the gate, untouched by the site's rules.
      const gate = await site(t, 'h-gated').get('/rewritten/x').expect(401);
      expect(gate.headers['x-rewritten']).toBeUndefined();
      expect(gate.headers.vary).toBe('Cookie');
    });
  });
});
