import { startTestApp, type TestApp } from '../helpers/app';
import { asUser, createApiToken, registerUser } from '../helpers/identity';
import { deploySite, site } from '../helpers/sites';

const PASSWORD = 'open sesame 42';

function cookieFrom(res: { headers: Record<string, unknown> }): string {
  const set = res.headers['set-cookie'] as string[] | undefined;
  if (!set?.length) throw new Error('no Set-Cookie');
  return set[0].split(';')[0];
}

describe('Password gate (e2e)', () => {
  let t: TestApp;
  let session: Awaited<ReturnType<typeof registerUser>>;
  let token: string;
  let projectId: string;

  beforeAll(async () => {
    t = await startTestApp({ env: { GATE_MAX_ATTEMPTS: '3', TRUST_PROXY: 'true' } });
    session = await registerUser(t);
    token = (await createApiToken(t, session, { scopes: ['deploy'] })).token;
    projectId = (
      await t
        .http()
        .post('/projects')
        .set(asUser(session))
        .send({ name: 'Secret Plans', slug: 'secret', type: 'static_site', gate_type: 'password', password: PASSWORD })
        .expect(201)
    ).body.id;
    await deploySite(t, token, 'secret', [
      { path: 'index.html', content: '<h1>the plans</h1>' },
      { path: 'app.css', content: 'body{}' },
      { path: 'docs/page.html', content: 'deep page' },
    ]);
    await deploySite(t, token, 'open-site', [{ path: 'index.html', content: 'public' }]);
  });
  afterAll(() => t.close());

  const login = (password: string, next = '/', ip = '203.0.113.1') =>
    site(t, 'secret').post('/.statichost/gate').set('X-Forwarded-For', ip).type('form').send({ password, next });

  it.each([
    ['GET', '/'],
    ['GET', '/app.css'],
    ['GET', '/docs/page.html'],
    ['GET', '/missing'],
    ['GET', '/%2e%2e/index.html'],
    ['GET', '/docs%2fpage.html'],
    ['HEAD', '/'],
    ['POST', '/'],
    ['DELETE', '/app.css'],
  ])('answers %s %s with the password page (401), private and uncacheable', async (method, path) => {
    const res = await site(t, 'secret').request(method, path).expect(401);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.headers.vary).toBe('Cookie');
    if (method !== 'HEAD') {
      expect(res.text).toContain('<form method="post" action="/.statichost/gate">');
      expect(res.text).toContain('type="password"');
      expect(res.text).not.toContain('the plans');
      expect(res.text).not.toMatch(/<script|<link|src=/);
    }
  });

  it('keeps the page first asked for in the form', async () => {
    const res = await site(t, 'secret').get('/docs/page.html?x=1').expect(401);
    expect(res.text).toContain('name="next" value="/docs/page.html?x=1"');
  });

  it('refuses a wrong password with the form again', async () => {
    const res = await login('wrong password', '/', '203.0.113.50').expect(401);
    expect(res.text).toContain('not right');
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('grants access with a signed cookie and redirects to the page first asked for', async () => {
    const res = await login(PASSWORD, '/docs/page.html').expect(303);
    expect(res.headers.location).toBe('/docs/page.html');
    const setCookie = (res.headers['set-cookie'] as unknown as string[])[0];
    expect(setCookie).toMatch(/^statichost_gate=v1\.proj_/);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Lax');
    expect(setCookie).toContain('Path=/');
    expect(setCookie).not.toMatch(/Domain=/i);
    const cookie = cookieFrom(res);
    // Canonical URLs (issue 12): the .html name is a 308 to the extensionless one, private like every gated answer.
    const canonical = await site(t, 'secret').get('/docs/page.html').set('Cookie', cookie).expect(308);
    expect(canonical.headers.location).toBe('/docs/page');
    expect(canonical.headers['cache-control']).toBe('private, no-store');
    expect(canonical.headers.vary).toBe('Cookie');
    const page = await site(t, 'secret').get('/docs/page').set('Cookie', cookie).expect(200);
    expect(page.text).toBe('deep page');
    expect(page.headers['cache-control']).toBe('private, no-store');
    expect(page.headers.vary).toBe('Cookie');
    const asset = await site(t, 'secret').get('/app.css').set('Cookie', cookie).expect(200);
    expect(asset.headers['cache-control']).toBe('private, no-store');
    // No 404.html: an extensionless miss gets the SPA's index.html (issue 12); a missing asset stays a 404.
    await site(t, 'secret').get('/missing.png').set('Cookie', cookie).expect(404);
  });

  it.each([['//evil.com'], ['https://evil.com/x'], ['/\\evil.com'], ['javascript:alert(1)']])('ignores the unsafe next %j', async (next) => {
    const res = await login(PASSWORD, next, '203.0.113.60').expect(303);
    expect(res.headers.location).toBe('/');
  });

  it('refuses a forged or foreign cookie', async () => {
    const cookie = cookieFrom(await login(PASSWORD, '/', '203.0.113.61').expect(303));
    await site(t, 'secret')
      .get('/')
      .set(
        'Cookie',
        cookie.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')),
      )
      .expect(401);
    // Another gated site of the same service does not accept it.
    await t.http().post('/projects').set(asUser(session)).send({ name: 'Other', slug: 'other-secret', gate_type: 'password', password: PASSWORD }).expect(201);
    await deploySite(t, token, 'other-secret', [{ path: 'index.html', content: 'other' }]);
    await site(t, 'other-secret').get('/').set('Cookie', cookie).expect(401);
  });

  it('invalidates issued cookies when the password changes or the gate is turned off and on', async () => {
    const cookie = cookieFrom(await login(PASSWORD, '/', '203.0.113.62').expect(303));
    await site(t, 'secret').get('/').set('Cookie', cookie).expect(200);
    await t.http().patch(`/projects/${projectId}`).set(asUser(session)).send({ password: 'a brand new password' }).expect(200);
    await site(t, 'secret').get('/').set('Cookie', cookie).expect(401);
    const fresh = cookieFrom(await login('a brand new password', '/', '203.0.113.63').expect(303));
    await site(t, 'secret').get('/').set('Cookie', fresh).expect(200);
    await t.http().patch(`/projects/${projectId}`).set(asUser(session)).send({ gate_type: 'none' }).expect(200);
    const open = await site(t, 'secret').get('/').expect(200);
    expect(open.headers['cache-control']).toBe('public, max-age=0, must-revalidate');
    await t.http().patch(`/projects/${projectId}`).set(asUser(session)).send({ gate_type: 'password', password: PASSWORD }).expect(200);
    await site(t, 'secret').get('/').set('Cookie', fresh).expect(401);
  });

  it('blocks an address after too many wrong passwords, even for the right one, without affecting others', async () => {
    const ip = '198.51.100.7';
    for (let i = 0; i < 3; i++) await login('nope nope', '/', ip).expect(401);
    const blocked = await login(PASSWORD, '/', ip).expect(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(blocked.headers['cache-control']).toBe('private, no-store');
    await login(PASSWORD, '/', '198.51.100.8').expect(303);
  });

  it('counts wrong passwords sent all at once: no more than the limit are checked', async () => {
    const ip = '198.51.100.20';
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => login(`guess ${i}`, '/', ip)));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(9);
    await login(PASSWORD, '/', ip).expect(429);
  });

  it('counts an IPv6 client by its /64, which one host commonly holds whole', async () => {
    for (let i = 1; i <= 3; i++) await login('nope nope', '/', `2001:db8:7:1::${i}`).expect(401);
    await login(PASSWORD, '/', '2001:db8:7:1:ffff::9').expect(429);
    await login(PASSWORD, '/', '2001:db8:7:2::1').expect(303);
  });

  it('gives back the try of a right password, and takes none for an empty one', async () => {
    const ip = '198.51.100.30';
    for (let i = 0; i < 5; i++) await login(PASSWORD, '/', ip).expect(303);
    for (let i = 0; i < 5; i++) await login('', '/', ip).expect(401);
    for (let i = 0; i < 3; i++) await login('nope nope', '/', ip).expect(401);
    await login(PASSWORD, '/', ip).expect(429);
  });

  it('ignores a forwarded address that is not an IP (it cannot pick its own counter)', async () => {
    const res = await login('wrong once more', '/', `x${'y'.repeat(300)}`);
    expect(res.status).toBe(401);
  });

  it('leaves public sites uncached-private-free', async () => {
    const res = await site(t, 'open-site').get('/').expect(200);
    expect(res.headers.vary).toBeUndefined();
  });
});
