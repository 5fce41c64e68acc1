import { startTestApp, type TestApp } from '../helpers/app';
import { bearer, registerUser, uniqueEmail } from '../helpers/identity';

const COOKIE = 'X-Session-Mode';
const PASSWORD = 'correct horse battery staple';

/** The Set-Cookie of an answer for cookie `name` (the refresh cookie under http by default), or undefined. */
function refreshSetCookie(res: { headers: Record<string, unknown> }, name = 'statichost_refresh'): string | undefined {
  const all = (res.headers['set-cookie'] as string[] | undefined) ?? [];
  return all.find((c) => c.startsWith(`${name}=`));
}
const HOST_COOKIE = '__Host-statichost_refresh';
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

    const again = await t.http().post('/auth/refresh').set(COOKIE, 'cookie').set('Cookie', second).send({}).expect(200);
    const third = cookieValue(refreshSetCookie(again)!);

    // The first cookie again after its successor was used (a stolen copy): the whole session
    // ends, and the answer drops the cookie.
    const reused = await t.http().post('/auth/refresh').set(COOKIE, 'cookie').set('Cookie', first).send({}).expect(401);
    expect(reused.body.code).toBe('invalid_refresh_token');
    expect(refreshSetCookie(reused)).toMatch(/^statichost_refresh=; Max-Age=0; Path=\/auth/);
    await t.http().post('/auth/refresh').set(COOKIE, 'cookie').set('Cookie', third).send({}).expect(401);
    await t.http().get('/users/me').set(bearer(again.body.accessToken)).expect(401);
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

  it('logs no shared-parent warning for the default hosts (localhost beside *.localhost)', () => {
    expect(t.logs.filter((line) => line.includes('share the parent domain'))).toEqual([]);
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

  // Issue 26: a site under the API host's parent domain can set `statichost_refresh` for that
  // parent with a longer path; the browser then sends it first, beside the real one.
  it('refuses a refresh carrying the cookie twice rather than guessing which is real, deletes it, and uses neither token', async () => {
    const victim = await registerUser(t, { password: PASSWORD });
    const attacker = await registerUser(t, { password: PASSWORD });
    const login = await t.http().post('/auth/login').set(COOKIE, 'cookie').send({ email: victim.email, password: PASSWORD }).expect(200);
    const real = cookieValue(refreshSetCookie(login)!);
    const planted = `statichost_refresh=${attacker.refreshToken}`;

    const twice = await t.http().post('/auth/refresh').set(COOKIE, 'cookie').set('Cookie', `${planted}; ${real}`).send({}).expect(400);
    expect(twice.body).toMatchObject({ code: 'duplicate_refresh_cookie', message: expect.stringContaining('2 statichost_refresh cookies') });
    expect(twice.body).not.toHaveProperty('accessToken');
    expect(refreshSetCookie(twice)).toMatch(/^statichost_refresh=; Max-Age=0; Path=\/auth/);
    // Either order; and nothing was spent: each token still refreshes its own account.
    await t.http().post('/auth/refresh').set(COOKIE, 'cookie').set('Cookie', `${real}; ${planted}`).send({}).expect(400);
    const mine = await t.http().post('/auth/refresh').set(COOKIE, 'cookie').set('Cookie', real).send({}).expect(200);
    const me = await t.http().get('/users/me').set(bearer(mine.body.accessToken)).expect(200);
    expect(me.body.email).toBe(victim.email.toLowerCase());
    await t.http().post('/auth/refresh').send({ refreshToken: attacker.refreshToken }).expect(200);
  });

  it("logout with the cookie twice still ends the caller's session (it reads the JWT, never the cookie) and deletes the cookie", async () => {
    const user = await registerUser(t, { password: PASSWORD });
    const login = await t.http().post('/auth/login').set(COOKIE, 'cookie').send({ email: user.email, password: PASSWORD }).expect(200);
    const real = cookieValue(refreshSetCookie(login)!);
    const out = await t
      .http()
      .post('/auth/logout')
      .set(COOKIE, 'cookie')
      .set(bearer(login.body.accessToken))
      .set('Cookie', `statichost_refresh=rt_planted; ${real}`)
      .expect(204);
    expect(refreshSetCookie(out)).toMatch(/^statichost_refresh=; Max-Age=0/);
    await t.http().post('/auth/refresh').set(COOKIE, 'cookie').set('Cookie', real).send({}).expect(401);
  });

  describe('under https (PUBLIC_SCHEME=https)', () => {
    let https: TestApp;
    beforeAll(async () => {
      https = await startTestApp({ env: { PUBLIC_SCHEME: 'https' } });
    });
    afterAll(() => https?.close());

    it('the cookie is __Host-statichost_refresh: Secure, Path=/, no Domain, so no other host can set or shadow it', async () => {
      const res = await https
        .http()
        .post('/auth/register')
        .set(COOKIE, 'cookie')
        .send({ email: uniqueEmail('sec'), password: PASSWORD, name: 'S' })
        .expect(201);
      expect(refreshSetCookie(res)).toBeUndefined();
      expect(refreshSetCookie(res, HOST_COOKIE)).toMatch(
        /^__Host-statichost_refresh=rt_[0-9A-Za-z]{43}; Max-Age=2592000; Path=\/; HttpOnly; Secure; SameSite=Strict$/,
      );
      const refreshed = await https
        .http()
        .post('/auth/refresh')
        .set(COOKIE, 'cookie')
        .set('Cookie', cookieValue(refreshSetCookie(res, HOST_COOKIE)!))
        .send({})
        .expect(200);
      expect(refreshSetCookie(refreshed, HOST_COOKIE)).toMatch(/^__Host-statichost_refresh=rt_.*; Path=\/; HttpOnly; Secure; SameSite=Strict$/);
    });

    it("a planted statichost_refresh (the old name, which a sibling host can still set) is never read: the session stays the victim's", async () => {
      const victim = await registerUser(https, { password: PASSWORD });
      const attacker = await registerUser(https, { password: PASSWORD });
      const login = await https.http().post('/auth/login').set(COOKIE, 'cookie').send({ email: victim.email, password: PASSWORD }).expect(200);
      const real = cookieValue(refreshSetCookie(login, HOST_COOKIE)!);
      const res = await https
        .http()
        .post('/auth/refresh')
        .set(COOKIE, 'cookie')
        .set('Cookie', `statichost_refresh=${attacker.refreshToken}; ${real}`)
        .send({})
        .expect(200);
      const me = await https.http().get('/users/me').set(bearer(res.body.accessToken)).expect(200);
      expect(me.body.email).toBe(victim.email.toLowerCase());
      // The old name is deleted where this host set it before (a planted one lives under another domain and is simply ignored).
      expect(refreshSetCookie(res)).toBe('statichost_refresh=; Max-Age=0; Path=/auth; HttpOnly; Secure; SameSite=Strict');
      // Alone it is no session at all (a signed-out victim is not signed into the attacker's account).
      const alone = await https
        .http()
        .post('/auth/refresh')
        .set(COOKIE, 'cookie')
        .set('Cookie', `statichost_refresh=${attacker.refreshToken}`)
        .send({})
        .expect(401);
      expect(alone.body.code).toBe('invalid_refresh_token');
      expect(refreshSetCookie(alone)).toMatch(/^statichost_refresh=; Max-Age=0; Path=\/auth/);
      // ...and it was not spent: still the attacker's own to use.
      await https.http().post('/auth/refresh').send({ refreshToken: attacker.refreshToken }).expect(200);
    });

    it('refuses two __Host-statichost_refresh cookies (a browser that let one be planted) with 400 and deletes the cookie', async () => {
      const user = await registerUser(https, { password: PASSWORD });
      const login = await https.http().post('/auth/login').set(COOKIE, 'cookie').send({ email: user.email, password: PASSWORD }).expect(200);
      const real = cookieValue(refreshSetCookie(login, HOST_COOKIE)!);
      const res = await https
        .http()
        .post('/auth/refresh')
        .set(COOKIE, 'cookie')
        .set('Cookie', `__Host-statichost_refresh=rt_planted; ${real}`)
        .send({})
        .expect(400);
      expect(res.body.code).toBe('duplicate_refresh_cookie');
      expect(refreshSetCookie(res, HOST_COOKIE)).toBe('__Host-statichost_refresh=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Strict');
    });
  });
});
