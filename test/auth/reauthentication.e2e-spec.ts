import { generateSync } from 'otplib';

import { startTestApp, type TestApp } from '../helpers/app';
import { asUser, bearer, createApiToken, registerUser, uniqueEmail, type UserSession } from '../helpers/identity';
import { enrolTotp, registerPasskey } from '../helpers/second-factors';
import { SoftAuthenticator } from '../helpers/soft-authenticator';

/**
 * Recent sign-in for the account's credentials: a session whose sign-in is older than
 * 15 minutes may still do everything else, but cannot change the email, passkeys or TOTP
 * until its person confirms who they are (POST /auth/reauthenticate) as a sign-in would
 * ask them. Against the real app and PostgreSQL; a session is made old by moving its
 * `authenticated_at` back, as the passing of time would.
 */
describe('Recent sign-in for account changes (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  const sessionOf = (accessToken: string): string => JSON.parse(Buffer.from(accessToken.split('.')[1], 'base64url').toString('utf8')).sid;

  /** The session's sign-in, 16 minutes ago. */
  async function age(user: { accessToken: string }): Promise<void> {
    await t.dataSource.query(`UPDATE auth_sessions SET authenticated_at = now() - interval '16 minutes' WHERE id = $1`, [sessionOf(user.accessToken)]);
  }

  const reauthenticate = (user: { accessToken: string }, body: object) => t.http().post('/auth/reauthenticate').set(bearer(user.accessToken)).send(body);
  const askEmail = (user: UserSession, email: string) => t.http().patch('/users/me').set(bearer(user.accessToken)).send({ email });
  const verifyMails = async (user: UserSession, email: string): Promise<number> =>
    Number(
      (
        await t.dataSource.query(`SELECT count(*)::int AS n FROM account_tokens WHERE user_id = $1 AND purpose = 'verify_email' AND email = $2`, [
          user.userId,
          email,
        ])
      )[0].n,
    );
  const passkeyCount = async (user: UserSession): Promise<number> =>
    (await t.dataSource.query('SELECT count(*)::int AS n FROM passkeys WHERE user_id = $1', [user.userId]))[0].n;
  const totpOn = async (user: UserSession): Promise<boolean> =>
    (await t.dataSource.query('SELECT enabled_at FROM totp_credentials WHERE user_id = $1', [user.userId]))[0]?.enabled_at != null;
  const auditChanges = async (user: UserSession, action: string): Promise<string[][]> =>
    (await t.dataSource.query('SELECT changes FROM audit_log WHERE workspace_id = $1 AND action = $2 ORDER BY seq', [user.workspaceId, action])).map(
      (r: { changes: string[] }) => r.changes,
    );
  const authenticationOptions = async () => (await t.http().post('/auth/passkeys/authentication-options').send({}).expect(200)).body;

  function expectReauthenticationRequired(res: { status: number; body: { code: string; message: string } }, what: string): void {
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('reauthentication_required');
    expect(res.body.message).toContain(what);
    expect(res.body.message).toContain('POST /auth/reauthenticate');
  }

  describe('a session signed in more than 15 minutes ago', () => {
    it('cannot ask for a new email (nothing is mailed), but may still change its name or send its email unchanged', async () => {
      const user = await registerUser(t);
      await age(user);
      const email = uniqueEmail();

      expectReauthenticationRequired(await askEmail(user, email), 'Changing your email');
      expect(await verifyMails(user, email)).toBe(0);

      const renamed = await t.http().patch('/users/me').set(bearer(user.accessToken)).send({ name: 'Still Me', email: user.email }).expect(200);
      expect(renamed.body.name).toBe('Still Me');
    });

    it('cannot add a passkey, neither asking for options nor registering an answer to options it got while recent', async () => {
      const user = await registerUser(t);
      const options = await t.http().post('/auth/passkeys/registration-options').set(bearer(user.accessToken)).send({}).expect(200);
      await age(user);

      expectReauthenticationRequired(await t.http().post('/auth/passkeys/registration-options').set(bearer(user.accessToken)).send({}), 'Adding a passkey');
      const response = new SoftAuthenticator(t.config.apiBaseUrl).register(options.body);
      expectReauthenticationRequired(await t.http().post('/auth/passkeys/registration').set(bearer(user.accessToken)).send({ response }), 'Adding a passkey');
      expect(await passkeyCount(user)).toBe(0);
    });

    it('cannot delete a passkey, but may still list and rename it', async () => {
      const user = await registerUser(t);
      await registerPasskey(t, user);
      const [passkey] = (await t.http().get('/auth/passkeys').set(bearer(user.accessToken)).expect(200)).body.data;
      await age(user);

      expectReauthenticationRequired(await t.http().delete(`/auth/passkeys/${passkey.id}`).set(bearer(user.accessToken)), 'Deleting a passkey');
      expect(await passkeyCount(user)).toBe(1);
      await t.http().patch(`/auth/passkeys/${passkey.id}`).set(bearer(user.accessToken)).send({ name: 'Laptop' }).expect(200);
    });

    it('cannot create an API token (it would outlive the session), while a token of the person may still make its own', async () => {
      const user = await registerUser(t);
      const own = await createApiToken(t, user, { scopes: ['deploy', 'read', 'admin'] });
      await age(user);
      const tokens = async () => (await t.dataSource.query('SELECT count(*)::int AS n FROM access_tokens WHERE workspace_id = $1', [user.workspaceId]))[0].n;
      const before = await tokens();
      const asked = await t
        .http()
        .post('/access-tokens')
        .set(asUser(user))
        .send({ name: 'ci', scopes: ['deploy'] });
      expectReauthenticationRequired(asked, 'Creating an API token');
      expect(await tokens()).toBe(before);
      // Listing and revoking need no recent sign-in; a token's own tokens are bounded by it.
      await t.http().get('/access-tokens').set(asUser(user)).expect(200);
      await t
        .http()
        .post('/access-tokens')
        .set(bearer(own.token))
        .send({ name: 'from a token', scopes: ['deploy'] })
        .expect(201);
      await reauthenticate(user, { password: user.password }).expect(204);
      await t
        .http()
        .post('/access-tokens')
        .set(asUser(user))
        .send({ name: 'ci', scopes: ['deploy'] })
        .expect(201);
    });

    it('cannot turn TOTP on: neither start an enrolment nor confirm one started while recent', async () => {
      const user = await registerUser(t);
      const start = await t.http().post('/auth/2fa/totp').set(bearer(user.accessToken)).send({}).expect(200);
      await age(user);

      expectReauthenticationRequired(await t.http().post('/auth/2fa/totp').set(bearer(user.accessToken)).send({}), 'Turning TOTP on');
      expectReauthenticationRequired(
        await t
          .http()
          .post('/auth/2fa/totp/confirm')
          .set(bearer(user.accessToken))
          .send({ code: generateSync({ secret: start.body.secret }) }),
        'Turning TOTP on',
      );
      expect(await totpOn(user)).toBe(false);
    });

    it('does not become recent by refreshing: a stolen refresh token cannot make itself recent', async () => {
      const user = await registerUser(t);
      await age(user);
      const refreshed = await t.http().post('/auth/refresh').send({ refreshToken: user.refreshToken }).expect(200);
      expect(sessionOf(refreshed.body.accessToken)).toBe(sessionOf(user.accessToken));

      expectReauthenticationRequired(await askEmail({ ...user, accessToken: refreshed.body.accessToken }, uniqueEmail()), 'Changing your email');
    });

    it('is not made recent by another session of the same person confirming', async () => {
      const user = await registerUser(t);
      await age(user);
      const other = (await t.http().post('/auth/login').send({ email: user.email, password: user.password }).expect(200)).body;
      await age(other);
      await reauthenticate(other, { password: user.password }).expect(204);

      expectReauthenticationRequired(await askEmail(user, uniqueEmail()), 'Changing your email');
      await askEmail({ ...user, accessToken: other.accessToken }, uniqueEmail()).expect(200);
    });

    it('a new sign-in is recent: the same person in a new session may change them at once', async () => {
      const user = await registerUser(t);
      await age(user);
      const fresh = (await t.http().post('/auth/login').send({ email: user.email, password: user.password }).expect(200)).body;
      const email = uniqueEmail();
      await askEmail({ ...user, accessToken: fresh.accessToken }, email).expect(200);
      expect(await verifyMails(user, email)).toBe(1);
    });
  });

  describe('POST /auth/reauthenticate', () => {
    it('with the password: the session may change the email again; audited as user.reauthenticated', async () => {
      const user = await registerUser(t);
      await age(user);
      await reauthenticate(user, { password: user.password }).expect(204);

      const email = uniqueEmail();
      await askEmail(user, email).expect(200);
      expect(await verifyMails(user, email)).toBe(1);
      expect(await auditChanges(user, 'user.reauthenticated')).toEqual([['password']]);
    });

    it('with a wrong password: 403 reauthentication_failed (not a 401: the session is fine), a failed sign-in, and still not recent', async () => {
      const user = await registerUser(t);
      await age(user);
      const res = await reauthenticate(user, { password: 'not my password at all' }).expect(403);
      expect(res.body.code).toBe('reauthentication_failed');
      expect(res.body.message).toMatch(/^password:/);
      expect(await auditChanges(user, 'user.signin_failed')).toEqual([['password']]);
      expect(await auditChanges(user, 'user.reauthenticated')).toEqual([]);

      expectReauthenticationRequired(await askEmail(user, uniqueEmail()), 'Changing your email');
    });

    it('counts with the sign-in limits: past them 429, even for the right password', async () => {
      const user = await registerUser(t);
      await age(user);
      let status = 0;
      for (let i = 0; i < 30 && status !== 429; i++) status = (await reauthenticate(user, { password: `wrong guess ${i}` })).status;
      expect(status).toBe(429);
      const right = await reauthenticate(user, { password: user.password });
      expect(right.status).toBe(429);
      expect(right.headers['retry-after']).toBeDefined();
      expectReauthenticationRequired(await askEmail(user, uniqueEmail()), 'Changing your email');
    });

    it('with TOTP on: the password needs a current code (or a recovery code) too', async () => {
      const user = await registerUser(t);
      const { secret, recoveryCodes } = await enrolTotp(t, user);
      await age(user);

      const alone = await reauthenticate(user, { password: user.password }).expect(403);
      expect(alone.body.code).toBe('reauthentication_failed');
      expect(alone.body.message).toMatch(/^code:/);
      const wrong = await reauthenticate(user, { password: user.password, code: '000000' === generateSync({ secret }) ? '111111' : '000000' }).expect(403);
      expect(wrong.body.message).toMatch(/^code:/);
      expect(await auditChanges(user, 'user.signin_failed')).toEqual([['code'], ['code']]);
      expectReauthenticationRequired(await t.http().post('/auth/passkeys/registration-options').set(bearer(user.accessToken)).send({}), 'Adding a passkey');

      await reauthenticate(user, { password: user.password, code: recoveryCodes[0] }).expect(204);
      await t.http().post('/auth/passkeys/registration-options').set(bearer(user.accessToken)).send({}).expect(200);
      expect((await auditChanges(user, 'user.reauthenticated')).at(-1)).toEqual(['code', 'password']);
    });

    describe('with a passkey', () => {
      let user: UserSession;
      let authenticator: SoftAuthenticator;

      beforeAll(async () => {
        user = await registerUser(t);
        authenticator = await registerPasskey(t, user);
      });
      beforeEach(() => age(user));

      it('the password alone is not enough when a sign-in of the account asks for the passkey', async () => {
        const res = await reauthenticate(user, { password: user.password }).expect(403);
        expect(res.body.code).toBe('reauthentication_failed');
        expect(res.body.message).toContain('passkey');
      });

      it('one of the person’s passkeys, with them verified by it, confirms it is them', async () => {
        await reauthenticate(user, { passkey: authenticator.authenticate(await authenticationOptions()) }).expect(204);
        await t.http().post('/auth/2fa/totp').set(bearer(user.accessToken)).send({}).expect(200);
        expect((await auditChanges(user, 'user.reauthenticated')).at(-1)).toEqual(['passkey']);
      });

      it('a passkey that does not verify the person (a security key without a PIN) confirms with the password, as at sign-in', async () => {
        const wrongPassword = await reauthenticate(user, {
          password: 'not my password at all',
          passkey: authenticator.authenticate(await authenticationOptions(), { userVerified: false }),
        }).expect(403);
        expect(wrongPassword.body.message).toMatch(/^password:/);
        await reauthenticate(user, {
          password: user.password,
          passkey: authenticator.authenticate(await authenticationOptions(), { userVerified: false }),
        }).expect(204);
        await t.http().post('/auth/2fa/totp').set(bearer(user.accessToken)).send({}).expect(200);
        expect((await auditChanges(user, 'user.reauthenticated')).at(-1)).toEqual(['passkey', 'password']);
      });

      it('refuses a passkey answer without user verification, and someone else’s passkey', async () => {
        const unverified = await reauthenticate(user, { passkey: authenticator.authenticate(await authenticationOptions(), { userVerified: false }) }).expect(
          403,
        );
        expect(unverified.body.code).toBe('reauthentication_failed');
        expect(unverified.body.message).toMatch(/^passkey:/);

        const stranger = await registerUser(t);
        const theirs = await registerPasskey(t, stranger);
        await reauthenticate(user, { passkey: theirs.authenticate(await authenticationOptions()) }).expect(403);

        expectReauthenticationRequired(await t.http().post('/auth/2fa/totp').set(bearer(user.accessToken)).send({}), 'Turning TOTP on');
      });
    });

    it.each([
      ['nothing', {}],
      ['a code alone', { code: '123456' }],
      ['a code with a passkey', { passkey: {}, code: '123456' }],
      ['a null code', { password: 'correct horse battery staple', code: null }],
      ['a null password', { password: null }],
      ['an empty password', { password: '' }],
      ['a passkey that is not an object', { passkey: 'yes' }],
    ])('refuses %s with 400 validation_failed, changing nothing', async (_, body) => {
      const user = await registerUser(t);
      await age(user);
      const res = await reauthenticate(user, body).expect(400);
      expect(res.body.code).toBe('validation_failed');
      expectReauthenticationRequired(await askEmail(user, uniqueEmail()), 'Changing your email');
    });

    it('is for a dashboard session only: an API token is refused', async () => {
      const user = await registerUser(t);
      const token = await createApiToken(t, user, { scopes: ['admin'] });
      const res = await t.http().post('/auth/reauthenticate').set(bearer(token.token)).send({ password: user.password });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('wrong_credential_kind');
    });
  });
});
