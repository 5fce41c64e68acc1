import { SessionsService } from '../../src/auth/sessions/sessions.service';
import { SessionsPurge } from '../../src/auth/sessions/sessions-purge.job';
import { OutboxService } from '../../src/outbox/outbox.service';
import { startTestApp, type TestApp } from '../helpers/app';
import { eventually } from '../helpers/eventually';
import { asUser, bearer, createApiToken, mailedToken, registerUser, type UserSession } from '../helpers/identity';

const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const FIREFOX = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.1; rv:133.0) Gecko/20100101 Firefox/133.0';

/**
 * Sessions people can see and end (issue 32): GET /auth/sessions, DELETE /auth/sessions/:id,
 * DELETE /auth/sessions (all but this one), and PUT /auth/password, which ends the others.
 */
describe('sessions: see them, end them, change the password', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  /** A new sign-in of the account from a browser of the given family. */
  async function signIn(user: UserSession, userAgent: string): Promise<UserSession> {
    const res = await t.http().post('/auth/login').set('User-Agent', userAgent).send({ email: user.email, password: user.password });
    expect(res.status).toBe(200);
    return { ...user, accessToken: res.body.accessToken, refreshToken: res.body.refreshToken };
  }

  const sessions = (user: UserSession) => t.http().get('/auth/sessions').set(bearer(user.accessToken));
  const sessionIdOf = (user: UserSession) => JSON.parse(Buffer.from(user.accessToken.split('.')[1], 'base64url').toString()).sid as string;
  const auditEntries = (workspaceId: string, action: string) =>
    t.dataSource.query(
      `SELECT actor_type, actor_id, target_type, target_id, target_label, ip, user_agent FROM audit_log WHERE workspace_id = $1 AND action = $2 ORDER BY seq`,
      [workspaceId, action],
    );

  it('lists the open sessions with the device, the network, when they started and were last used, and which is this one', async () => {
    const user = await registerUser(t);
    const chrome = await signIn(user, CHROME);
    const firefox = await signIn(user, FIREFOX);
    const res = await sessions(chrome);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(3);
    const byId = new Map(res.body.data.map((s: { id: string }) => [s.id, s]));
    expect(byId.get(sessionIdOf(chrome))).toEqual({
      id: sessionIdOf(chrome),
      device: 'Chrome',
      ip: '127.0.0.0/24',
      createdAt: expect.stringMatching(/Z$/),
      lastUsedAt: expect.stringMatching(/Z$/),
      current: true,
    });
    expect(byId.get(sessionIdOf(firefox))).toMatchObject({ device: 'Firefox', current: false });
    expect(res.body.data.filter((s: { current: boolean }) => s.current)).toHaveLength(1);
    // Most recently used first.
    expect(res.body.data[0].id).toBe(sessionIdOf(firefox));
  });

  it('a refresh moves the session’s last use, and the session stays the same', async () => {
    const user = await registerUser(t);
    const before = (await sessions(user)).body.data[0];
    await new Promise((resolve) => setTimeout(resolve, 20));
    const refreshed = await t.http().post('/auth/refresh').send({ refreshToken: user.refreshToken });
    expect(refreshed.status).toBe(200);
    const after = (await sessions({ ...user, accessToken: refreshed.body.accessToken })).body.data;
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ id: before.id, createdAt: before.createdAt, current: true });
    expect(Date.parse(after[0].lastUsedAt)).toBeGreaterThan(Date.parse(before.lastUsedAt));
  });

  it('DELETE /auth/sessions/:id ends that session at once (its JWT and refresh token), audited as session.ended', async () => {
    const user = await registerUser(t);
    const other = await signIn(user, FIREFOX);
    const res = await t
      .http()
      .delete(`/auth/sessions/${sessionIdOf(other)}`)
      .set('User-Agent', CHROME)
      .set(bearer(user.accessToken));
    expect(res.status).toBe(204);
    expect((await t.http().get('/users/me').set(bearer(other.accessToken))).status).toBe(401);
    expect((await t.http().post('/auth/refresh').send({ refreshToken: other.refreshToken })).status).toBe(401);
    expect((await t.http().get('/users/me').set(bearer(user.accessToken))).status).toBe(200);
    expect((await sessions(user)).body.data.map((s: { id: string }) => s.id)).toEqual([sessionIdOf(user)]);
    expect(await auditEntries(user.workspaceId, 'session.ended')).toEqual([
      {
        actor_type: 'user',
        actor_id: user.userId,
        target_type: 'session',
        target_id: sessionIdOf(other),
        target_label: 'Firefox',
        ip: '127.0.0.0/24',
        user_agent: 'Chrome',
      },
    ]);
  });

  it('ending a session while its refresh is under way ends the token that refresh hands out too', async () => {
    const user = await registerUser(t);
    const other = await signIn(user, 'Other device');
    // The refresh stalls with its new token written, its transaction still open.
    const service = t.app.get(SessionsService) as unknown as { insertRefreshToken: (...args: unknown[]) => Promise<string> };
    const insert = service.insertRefreshToken.bind(service);
    let inserted!: () => void;
    const stalled = new Promise<void>((resolve) => (inserted = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    jest.spyOn(service, 'insertRefreshToken').mockImplementationOnce(async (...args: unknown[]) => {
      const token = await insert(...args);
      inserted();
      await released;
      return token;
    });
    const refreshing = t
      .http()
      .post('/auth/refresh')
      .send({ refreshToken: user.refreshToken })
      .then((res) => res);
    await stalled;
    // The other device ends it now; it waits for the refresh under way.
    const ending = t
      .http()
      .delete(`/auth/sessions/${sessionIdOf(user)}`)
      .set(bearer(other.accessToken))
      .then((res) => res);
    await eventually(async () => {
      const waiting = await t.dataSource.query(`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
      expect(waiting.length).toBeGreaterThan(0);
    });
    release();
    const refreshed = await refreshing;
    expect(refreshed.status).toBe(200);
    expect((await ending).status).toBe(204);
    // The token the refresh handed out is revoked with the session, and so is its access JWT.
    expect((await t.http().post('/auth/refresh').send({ refreshToken: refreshed.body.refreshToken })).status).toBe(401);
    expect((await t.http().get('/auth/sessions').set(bearer(refreshed.body.accessToken))).status).toBe(401);
  });

  it('another person’s session, an ended one or a malformed id is a 404, and nothing ends', async () => {
    const user = await registerUser(t);
    const stranger = await registerUser(t);
    const strangers = sessionIdOf(stranger);
    for (const id of [strangers, '00000000-0000-4000-8000-000000000000', 'not-a-session', "1' OR '1'='1"]) {
      const res = await t
        .http()
        .delete(`/auth/sessions/${encodeURIComponent(id)}`)
        .set(bearer(user.accessToken));
      expect({ id, status: res.status, code: res.body.code }).toEqual({ id, status: 404, code: 'not_found' });
    }
    expect((await t.http().get('/users/me').set(bearer(stranger.accessToken))).status).toBe(200);
    const other = await signIn(user, FIREFOX);
    expect(
      (
        await t
          .http()
          .delete(`/auth/sessions/${sessionIdOf(other)}`)
          .set(bearer(user.accessToken))
      ).status,
    ).toBe(204);
    expect(
      (
        await t
          .http()
          .delete(`/auth/sessions/${sessionIdOf(other)}`)
          .set(bearer(user.accessToken))
      ).status,
    ).toBe(404);
    expect(await auditEntries(user.workspaceId, 'session.ended')).toHaveLength(1);
  });

  it('DELETE /auth/sessions ends every session but this one', async () => {
    const user = await registerUser(t);
    const a = await signIn(user, FIREFOX);
    const b = await signIn(user, CHROME);
    expect((await t.http().delete('/auth/sessions').set(bearer(b.accessToken))).status).toBe(204);
    expect((await t.http().get('/users/me').set(bearer(a.accessToken))).status).toBe(401);
    expect((await t.http().get('/users/me').set(bearer(user.accessToken))).status).toBe(401);
    expect((await t.http().get('/users/me').set(bearer(b.accessToken))).status).toBe(200);
    expect((await sessions(b)).body.data.map((s: { id: string }) => s.id)).toEqual([sessionIdOf(b)]);
    expect(await auditEntries(user.workspaceId, 'session.ended')).toHaveLength(2);
  });

  it('the purge forgets refresh tokens expired over a day ago and the sessions they leave empty; open sessions and recent ones stay', async () => {
    const user = await registerUser(t);
    const stale = await signIn(user, FIREFOX);
    const recent = await signIn(user, CHROME);
    // The live session rotates once: its first token, now rotated, expired long ago as well.
    const rotated = await t.http().post('/auth/refresh').send({ refreshToken: user.refreshToken }).expect(200);
    const live = { ...user, accessToken: rotated.body.accessToken, refreshToken: rotated.body.refreshToken };
    const ago = (days: number) => new Date(Date.now() - days * 86_400_000);
    await t.dataSource.query(`UPDATE refresh_tokens SET expires_at = $2 WHERE family_id = $1`, [sessionIdOf(stale), ago(3)]);
    await t.dataSource.query(`UPDATE auth_sessions SET last_used_at = $2 WHERE id = $1`, [sessionIdOf(stale), ago(40)]);
    // Expired an hour ago: inside the day of grace.
    await t.dataSource.query(`UPDATE refresh_tokens SET expires_at = $2 WHERE family_id = $1`, [sessionIdOf(recent), ago(1 / 24)]);
    await t.dataSource.query(`UPDATE refresh_tokens SET expires_at = $2 WHERE family_id = $1 AND rotated_at IS NOT NULL`, [sessionIdOf(live), ago(3)]);
    const count = async (sql: string, id: string) => (await t.dataSource.query(sql, [id]))[0].n as number;
    const tokensOf = (id: string) => count(`SELECT count(*)::int AS n FROM refresh_tokens WHERE family_id = $1`, id);
    const sessionRows = (id: string) => count(`SELECT count(*)::int AS n FROM auth_sessions WHERE id = $1`, id);
    expect(await tokensOf(sessionIdOf(live))).toBe(2);

    const report = await t.app.get(SessionsPurge).runOnce();
    expect(report).toMatchObject({ ran: true });
    expect(report.tokensPurged).toBeGreaterThanOrEqual(2);
    expect(report.sessionsPurged).toBeGreaterThanOrEqual(1);
    expect([await tokensOf(sessionIdOf(stale)), await sessionRows(sessionIdOf(stale))]).toEqual([0, 0]);
    expect([await tokensOf(sessionIdOf(recent)), await sessionRows(sessionIdOf(recent))]).toEqual([1, 1]);
    // The live session keeps its head and its row, and still refreshes.
    expect([await tokensOf(sessionIdOf(live)), await sessionRows(sessionIdOf(live))]).toEqual([1, 1]);
    await t.http().post('/auth/refresh').send({ refreshToken: live.refreshToken }).expect(200);
    expect((await sessions(live)).body.data.map((s: { id: string }) => s.id)).toEqual([sessionIdOf(live)]);
    // Nothing left to do: a second run forgets nothing of this user.
    await t.app.get(SessionsPurge).runOnce();
    expect(await tokensOf(sessionIdOf(live))).toBe(2);
  });

  it('sessions are a signed-in person’s own: an API token gets 403', async () => {
    const user = await registerUser(t);
    const token = await createApiToken(t, user, { scopes: ['admin'] });
    expect((await t.http().get('/auth/sessions').set(bearer(token.token))).status).toBe(403);
    expect((await t.http().delete('/auth/sessions').set(bearer(token.token))).status).toBe(403);
    expect(
      (
        await t
          .http()
          .put('/auth/password')
          .set(bearer(token.token))
          .send({ currentPassword: user.password, newPassword: 'x'.repeat(12) })
      ).status,
    ).toBe(403);
    expect((await t.http().get('/auth/sessions')).status).toBe(401);
  });

  describe('PUT /auth/password', () => {
    it('changes the password and ends every other session, audited as user.password_changed', async () => {
      const user = await registerUser(t);
      const other = await signIn(user, FIREFOX);
      const newPassword = 'a much longer passphrase now';
      const res = await t.http().put('/auth/password').set(asUser(user)).send({ currentPassword: user.password, newPassword });
      expect(res.status).toBe(204);
      expect((await t.http().get('/users/me').set(bearer(other.accessToken))).status).toBe(401);
      expect((await t.http().get('/users/me').set(bearer(user.accessToken))).status).toBe(200);
      expect((await t.http().post('/auth/login').send({ email: user.email, password: user.password })).status).toBe(401);
      expect((await t.http().post('/auth/login').send({ email: user.email, password: newPassword })).status).toBe(200);
      expect(await auditEntries(user.workspaceId, 'user.password_changed')).toEqual([
        expect.objectContaining({ actor_type: 'user', actor_id: user.userId, target_type: 'user', target_id: user.userId }),
      ]);
      expect(await auditEntries(user.workspaceId, 'session.ended')).toEqual([expect.objectContaining({ target_id: sessionIdOf(other) })]);
    });

    it('a password-reset link asked for before the change no longer works after it', async () => {
      const user = await registerUser(t);
      expect((await t.http().post('/auth/password-reset').send({ email: user.email })).status).toBe(202);
      // The request becomes its token and mail in the outbox.
      for (let i = 0; i < 5 && !(await mailedToken(t, user.email, 'password_reset')); i++) await t.app.get(OutboxService).runOnce();
      const link = (await mailedToken(t, user.email, 'password_reset'))!;
      expect(link).toBeDefined();
      const newPassword = 'the password I chose myself';
      expect((await t.http().put('/auth/password').set(bearer(user.accessToken)).send({ currentPassword: user.password, newPassword })).status).toBe(204);
      const reset = await t.http().post('/auth/password-reset/confirm').send({ token: link, password: 'the thief’s new password' });
      expect(reset.status).toBe(400);
      expect(reset.body.code).toBe('token_used');
      expect((await t.http().post('/auth/login').send({ email: user.email, password: newPassword })).status).toBe(200);
    });

    it('a wrong current password is 403 wrong_password and changes nothing; a short new one is 400', async () => {
      const user = await registerUser(t);
      const other = await signIn(user, FIREFOX);
      const wrong = await t
        .http()
        .put('/auth/password')
        .set(bearer(user.accessToken))
        .send({ currentPassword: 'not it at all', newPassword: 'another long one' });
      expect(wrong.status).toBe(403);
      expect(wrong.body.code).toBe('wrong_password');
      expect(wrong.body.message).toContain('currentPassword');
      const short = await t.http().put('/auth/password').set(bearer(user.accessToken)).send({ currentPassword: user.password, newPassword: 'short' });
      expect(short.status).toBe(400);
      expect(JSON.stringify(short.body)).toContain('newPassword');
      const missing = await t.http().put('/auth/password').set(bearer(user.accessToken)).send({ newPassword: 'another long one' });
      expect(missing.status).toBe(400);
      expect(JSON.stringify(missing.body)).toContain('currentPassword');
      expect((await t.http().get('/users/me').set(bearer(other.accessToken))).status).toBe(200);
      expect((await t.http().post('/auth/login').send({ email: user.email, password: user.password })).status).toBe(200);
      expect(await auditEntries(user.workspaceId, 'user.password_changed')).toEqual([]);
    });

    it('wrong current passwords count as failed sign-ins: past the limit, 429 even for the right one', async () => {
      const user = await registerUser(t);
      let last = 0;
      for (let i = 0; i < 30 && last !== 429; i++) {
        last = (
          await t
            .http()
            .put('/auth/password')
            .set(bearer(user.accessToken))
            .send({ currentPassword: `guess ${i} guess`, newPassword: 'another long one' })
        ).status;
      }
      expect(last).toBe(429);
      const right = await t
        .http()
        .put('/auth/password')
        .set(bearer(user.accessToken))
        .send({ currentPassword: user.password, newPassword: 'another long one' });
      expect(right.status).toBe(429);
      expect(right.headers['retry-after']).toBeDefined();
    });
  });
});
