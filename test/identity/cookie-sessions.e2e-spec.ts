import { startTestApp, type TestApp } from '../helpers/app';
import { bearer, registerUser, uniqueEmail } from '../helpers/identity';

const COOKIE = 'X-Session-Mode';
const PASSWORD = 'correct horse battery staple';

/** The `statichost_refresh` Set-Cookie of an answer, or undefined. */
function refreshSetCookie(res: { headers: Record<string, unknown> }): string | undefined {
  const all = (res.headers['set-cookie'] as string[] | undefined) ?? [];
  return all.find((c) => c.startsWith('statichost_refresh='));
}
const cookieValue = (setCookie: string) => setCookie.split(';')[0];

describe('Cookie-mode sessions for the dashboard (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  it('register in cookie mode: the refresh token is in an HttpOnly, SameSite=Strict cookie on /auth, not in the body', async () => {
    const res = await t
      .http()
      .post('/auth/register')
      .set(COOKIE, 'cookie')
      .send({ email: uniqueEmail('ck'), password: PASSWORD, name: 'Cookie' })
      .expect(201);
    expect(res.body.refreshToken).toBeUndefined();
    expect(res.body.accessToken).toEqual(expect.any(String));
    expect(res.body.workspace.id).toMatch(/^ws_/);
    const setCookie = refreshSetCookie(res)!;
    expect(setCookie).toMatch(/^statichost_refresh=rt_[0-9A-Za-z]{43}; Max-Age=2592000; Path=\/auth; HttpOnly; SameSite=Strict$/);
  });

  it('login, refresh with the cookie (rotated each time), logout clears it; a reused cookie ends the session', async () => {
    const user = await registerUser(t, { password: PASSWORD });
    const login = await t.http().post('/auth/login').set(COOKIE, 'cookie').send({ email: user.email, password: PASSWORD }).expect(200);
    expect(login.body).not.toHaveProperty('refreshToken');
    const first = cookieValue(refreshSetCookie(login)!);

    const refreshed = await t.http().post('/auth/refresh').set(COOKIE, 'cookie').set('Cookie', first).send({}).expect(200);
    expect(refreshed.body).toEqual({ accessToken: expect.any(String), expiresIn: 900 });
    const second = cookieValue(refreshSetCookie(refreshed)!);
    expect(second).not.toBe(first);
    await t.http().get('/users/me').set(bearer(refreshed.body.accessToken)).expect(200);

    // The rotated cookie again (a stolen copy): the whole session ends, and the answer drops the cookie.
    const reused = await t.http().post('/auth/refresh').set(COOKIE, 'cookie').set('Cookie', first).send({}).expect(401);
    expect(reused.body.code).toBe('invalid_refresh_token');
    expect(refreshSetCookie(reused)).toMatch(/^statichost_refresh=; Max-Age=0; Path=\/auth/);
    await t.http().post('/auth/refresh').set(COOKIE, 'cookie').set('Cookie', second).send({}).expect(401);
    await t.http().get('/users/me').set(bearer(refreshed.body.accessToken)).expect(401);
  });

  it('logout in cookie mode ends the session and deletes the cookie', async () => {
    const user = await registerUser(t, { password: PASSWORD });
    const login = await t.http().post('/auth/login').set(COOKIE, 'cookie').send({ email: user.email, password: PASSWORD }).expect(200);
    const cookie = cookieValue(refreshSetCookie(login)!);
    const out = await t.http().post('/auth/logout').set(COOKIE, 'cookie').set(bearer(login.body.accessToken)).set('Cookie', cookie).expect(204);
    expect(refreshSetCookie(out)).toMatch(/^statichost_refresh=; Max-Age=0/);
    await t.http().post('/auth/refresh').set(COOKIE, 'cookie').set('Cookie', cookie).send({}).expect(401);
  });

  it('never reads the cookie without the header: a cross-site form post cannot refresh (CSRF)', async () => {
    const user = await registerUser(t, { password: PASSWORD });
    const login = await t.http().post('/auth/login').set(COOKIE, 'cookie').send({ email: user.email, password: PASSWORD }).expect(200);
    const cookie = cookieValue(refreshSetCookie(login)!);
    // What a form on another site can send: the cookie (if the browser attached it) and a form body, no custom header.
    const forged = await t.http().post('/auth/refresh').set('Cookie', cookie).type('form').send('x=1');
    expect(forged.status).toBe(400);
    expect(refreshSetCookie(forged)).toBeUndefined();
    const json = await t.http().post('/auth/refresh').set('Cookie', cookie).send({}).expect(400);
    expect(json.body).toMatchObject({ code: 'validation_failed', message: expect.stringContaining('refreshToken must not be empty') });
    // The cookie still works for the dashboard itself.
    await t.http().post('/auth/refresh').set(COOKIE, 'cookie').set('Cookie', cookie).send({}).expect(200);
    // And no CORS is granted for the custom header from another origin.
    const preflight = await t
      .http()
      .options('/auth/refresh')
      .set('Origin', 'https://evil.example')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'x-session-mode');
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('keeps body tokens for API clients, and names a wrong X-Session-Mode', async () => {
    const user = await registerUser(t, { password: PASSWORD });
    const login = await t.http().post('/auth/login').send({ email: user.email, password: PASSWORD }).expect(200);
    expect(login.body.refreshToken).toMatch(/^rt_/);
    expect(refreshSetCookie(login)).toBeUndefined();
    const bad = await t.http().post('/auth/login').set(COOKIE, 'cookies').send({ email: user.email, password: PASSWORD }).expect(400);
    expect(bad.body).toMatchObject({ code: 'invalid_session_mode', message: expect.stringContaining('X-Session-Mode') });
    // No cookie at all in cookie mode: the session is simply not there.
    const none = await t.http().post('/auth/refresh').set(COOKIE, 'cookie').send({}).expect(401);
    expect(none.body.code).toBe('invalid_refresh_token');
  });

  it('sets Secure on the cookie when the public scheme is https', async () => {
    const https = await startTestApp({ env: { PUBLIC_SCHEME: 'https' } });
    try {
      const res = await https
        .http()
        .post('/auth/register')
        .set(COOKIE, 'cookie')
        .send({ email: uniqueEmail('sec'), password: PASSWORD, name: 'S' })
        .expect(201);
      expect(refreshSetCookie(res)).toMatch(/; Secure/);
    } finally {
      await https.close();
    }
  });
});
