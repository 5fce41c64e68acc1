import { startTestApp, type TestApp } from '../helpers/app';
import { asUser, createApiToken, registerUser } from '../helpers/identity';
import { deploySite, site } from '../helpers/sites';

/** Behind a TLS proxy (Caddy): PUBLIC_SCHEME=https makes every address, cookie and answer say so. */
describe('Served over https (PUBLIC_SCHEME=https) (e2e)', () => {
  let t: TestApp;
  let noHsts: TestApp;
  let plain: TestApp;
  let token: string;
  let user: Awaited<ReturnType<typeof registerUser>>;

  beforeAll(async () => {
    t = await startTestApp({ env: { PUBLIC_SCHEME: 'https', PUBLIC_PORT: '443' } });
    noHsts = await startTestApp({ sibling: t, env: { PUBLIC_SCHEME: 'https', HSTS_MAX_AGE_SECONDS: '0' } });
    plain = await startTestApp({ sibling: t });
    user = await registerUser(t);
    token = (await createApiToken(t, user, { scopes: ['deploy', 'read', 'admin'] })).token;
  });
  afterAll(async () => {
    await plain?.close();
    await noHsts?.close();
    await t?.close();
  });

  const HSTS = 'max-age=31536000';

  it('builds https addresses and sends HSTS on API answers, errors included', async () => {
    const dep = await deploySite(t, token, 'secure-site', [{ path: 'index.html', content: '<h1>s</h1>' }]);
    expect(dep.url).toBe('https://secure-site.localhost');
    expect((await t.http().get('/health').expect(200)).headers['strict-transport-security']).toBe(HSTS);
    expect((await t.http().get('/projects/nope').set(asUser(user)).expect(404)).headers['strict-transport-security']).toBe(HSTS);
  });

  it('sends HSTS on every site answer: files, 404 pages, the gate and its redirect, with a __Host- Secure cookie', async () => {
    expect((await site(t, 'secure-site').get('/').expect(200)).headers['strict-transport-security']).toBe(HSTS);
    expect((await site(t, 'secure-site').get('/nope.js').expect(404)).headers['strict-transport-security']).toBe(HSTS);
    expect((await site(t, 'secure-site').get('/index.html').expect(308)).headers['strict-transport-security']).toBe(HSTS);
    expect((await site(t, 'no-such-site').get('/').expect(404)).headers['strict-transport-security']).toBe(HSTS);
    const project = (await t.http().get('/projects').set(asUser(user)).expect(200)).body.data.find((p: { slug: string }) => p.slug === 'secure-site');
    await t.http().patch(`/projects/${project.id}`).set(asUser(user)).send({ gate_type: 'password', password: 'correct horse battery' }).expect(200);
    expect((await site(t, 'secure-site').get('/').expect(401)).headers['strict-transport-security']).toBe(HSTS);
    const granted = await site(t, 'secure-site').post('/.statichost/gate').type('form').send({ password: 'correct horse battery', next: '/' }).expect(303);
    expect(granted.headers['strict-transport-security']).toBe(HSTS);
    expect(String(granted.headers['set-cookie'])).toMatch(/^__Host-[^;]+;.*Secure/);
  });

  it('sends no HSTS when HSTS_MAX_AGE_SECONDS=0, nor over plain http', async () => {
    for (const app of [noHsts, plain]) {
      expect((await app.http().get('/health').expect(200)).headers['strict-transport-security']).toBeUndefined();
      expect((await site(app, 'secure-site').get('/').expect(401)).headers['strict-transport-security']).toBeUndefined();
    }
  });
});
