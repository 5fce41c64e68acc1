import { startTestApp, type TestApp } from '../helpers/app';
import { siteHost } from '../helpers/sites';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildWeb } = require('../../scripts/build.js') as { buildWeb(o?: { quiet?: boolean }): boolean };

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('The dashboard served by the app (e2e)', () => {
  let t: TestApp;
  let asset: string;
  beforeAll(async () => {
    buildWeb({ quiet: true });
    t = await startTestApp();
    const index = await t.http().get('/app/').expect(200);
    asset = /src="(\/app\/assets\/index-[^"]+\.js)"/.exec(index.text)![1];
  });
  afterAll(() => t?.close());

  it('sends a browser asking for / to the app; JSON clients still get the JSON 404', async () => {
    await t.http().get('/').set('Accept', BROWSER_ACCEPT).expect(302).expect('Location', '/app/');
    const json = await t.http().get('/').set('Accept', '*/*').expect(404);
    expect(json.body).toMatchObject({ statusCode: 404, code: 'not_found' });
    await t.http().get('/projects').set('Accept', BROWSER_ACCEPT).expect(401);
  });

  it('answers index.html for any /app path, no-cache, with a strict CSP and the other headers', async () => {
    for (const path of ['/app/', '/app/sign-in', '/app/w/ws_x/projects/proj_y/settings', '/app/verify-email?token=ev_x']) {
      const res = await t
        .http()
        .get(path)
        .expect(200)
        .expect('Content-Type', /text\/html/);
      expect(res.text).toContain('<div id="root"></div>');
      expect(res.headers['cache-control']).toBe('no-cache');
      const csp = res.headers['content-security-policy'];
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
    // No inline script in the page the CSP protects.
    const index = await t.http().get('/app/').expect(200);
    expect(index.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  });

  it('serves hashed assets immutable, and an unknown asset as a plain 404, never the index', async () => {
    const js = await t
      .http()
      .get(asset)
      .expect(200)
      .expect('Content-Type', /javascript/);
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const missing = await t.http().get('/app/assets/index-old.js').expect(404);
    expect(missing.text).not.toContain('<div id="root">');
    await t.http().get('/app/assets/..%2f..%2fpackage.json').expect(404);
  });

  it('leaves site hosts alone: /app on a site is the site’s own path', async () => {
    const res = await t.http().get('/app/').set('Host', siteHost(t, 'nosuchsite')).set('Accept', BROWSER_ACCEPT);
    expect(res.status).toBe(404);
    expect(res.text).not.toContain('<div id="root">');
  });
});
