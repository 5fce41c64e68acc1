import { startTestApp, type TestApp } from '../helpers/app';
import { bearer, registerUser, uniqueEmail } from '../helpers/identity';

const COOKIE = 'X-Session-Mode';
const PASSWORD = 'correct horse battery staple';

function setCookies(res: { headers: Record<string, unknown> }): string[] {
  return (res.headers['set-cookie'] as string[] | undefined) ?? [];
}
const marker = (res: { headers: Record<string, unknown> }) => setCookies(res).find((c) => c.startsWith('statichost_session='));
const refresh = (res: { headers: Record<string, unknown> }) =>
  setCookies(res)
    .find((c) => /^(__Host-)?statichost_refresh=/.test(c))!
    .split(';')[0];

/**
 * Issue 26: the dashboard cannot see the HttpOnly refresh cookie, so beside it the API
 * sets a marker that scripts can read, with the same lifetime, and clears it wherever the
 * refresh cookie goes: a signed-out visit then asks for no refresh.
 */
describe('The session marker cookie beside cookie-mode sessions (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  it('register, login and refresh in cookie mode set it, readable by scripts and holding nothing secret', async () => {
    const registered = await t
      .http()
      .post('/auth/register')
      .set(COOKIE, 'cookie')
      .send({ email: uniqueEmail('mk'), password: PASSWORD, name: 'Marker' })
      .expect(201);
    expect(marker(registered)).toBe('statichost_session=1; Max-Age=2592000; Path=/; SameSite=Strict');
    const refreshed = await t.http().post('/auth/refresh').set(COOKIE, 'cookie').set('Cookie', refresh(registered)).send({}).expect(200);
    expect(marker(refreshed)).toBe('statichost_session=1; Max-Age=2592000; Path=/; SameSite=Strict');
  });

  it('body-mode sessions (CLI, SDK) get none', async () => {
    const user = await registerUser(t, { password: PASSWORD });
    const login = await t.http().post('/auth/login').send({ email: user.email, password: PASSWORD }).expect(200);
    expect(setCookies(login)).toEqual([]);
  });

  it('logout in cookie mode clears it', async () => {
    const user = await registerUser(t, { password: PASSWORD });
    const login = await t.http().post('/auth/login').set(COOKIE, 'cookie').send({ email: user.email, password: PASSWORD }).expect(200);
    expect(marker(login)).toMatch(/^statichost_session=1;/);
    const out = await t.http().post('/auth/logout').set(COOKIE, 'cookie').set(bearer(login.body.accessToken)).set('Cookie', refresh(login)).expect(204);
    expect(marker(out)).toBe('statichost_session=; Max-Age=0; Path=/; SameSite=Strict');
  });

  it('a refresh that fails (no cookie, or a dead one) clears it, so the dashboard does not ask again', async () => {
    const none = await t.http().post('/auth/refresh').set(COOKIE, 'cookie').set('Cookie', 'statichost_session=1').send({}).expect(401);
    expect(marker(none)).toBe('statichost_session=; Max-Age=0; Path=/; SameSite=Strict');
    const user = await registerUser(t, { password: PASSWORD });
    const login = await t.http().post('/auth/login').set(COOKIE, 'cookie').send({ email: user.email, password: PASSWORD }).expect(200);
    await t.http().post('/auth/logout').set(bearer(login.body.accessToken)).send({}).expect(204);
    const dead = await t.http().post('/auth/refresh').set(COOKIE, 'cookie').set('Cookie', refresh(login)).send({}).expect(401);
    expect(marker(dead)).toBe('statichost_session=; Max-Age=0; Path=/; SameSite=Strict');
  });
});
