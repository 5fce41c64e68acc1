import { generateSync } from 'otplib';

import { DeferredWork } from '../../src/common/deferred-work';
import { Clock } from '../../src/common/time';
import { startTestApp, type TestApp } from '../helpers/app';
import { addMember, asUser, bearer, createApiToken, registerUser, type UserSession } from '../helpers/identity';

/**
 * Two-factor sign-in (issue 32) against the real app and PostgreSQL: the codes are
 * computed here with otplib from the secret the enrolment hands out, at the times the
 * app's Clock is moved to, as an authenticator app would at those moments.
 */
describe('Two-factor sign-in (e2e)', () => {
  let t: TestApp;
  /** The app's time, in ms: a step's 10th second, so ±1 step is never a boundary question. */
  let now: number;
  const STEP = 30_000;

  beforeAll(async () => {
    t = await startTestApp();
    now = Math.floor(Date.now() / STEP) * STEP + 10_000;
    jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => new Date(now));
  });
  afterAll(() => t?.close());

  /** The code an authenticator shows `steps` time steps from the app's now. */
  const code = (secret: string, steps = 0) => generateSync({ secret, epoch: Math.floor((now + steps * STEP) / 1000) });
  /** Moves the app's clock to the next time step: a new code, the last one used up. */
  const nextStep = () => (now += STEP);

  /** A new account with TOTP on: its secret and recovery codes. */
  async function withTotp(): Promise<{ user: UserSession; secret: string; recoveryCodes: string[] }> {
    const user = await registerUser(t);
    const start = await t.http().post('/auth/2fa/totp').set(bearer(user.accessToken)).send({}).expect(200);
    const confirm = await t
      .http()
      .post('/auth/2fa/totp/confirm')
      .set(bearer(user.accessToken))
      .send({ code: code(start.body.secret) })
      .expect(200);
    // Two steps on: the confirming code's step, and the one before now's, are both usable no more / again.
    nextStep();
    nextStep();
    return { user, secret: start.body.secret, recoveryCodes: confirm.body.recoveryCodes };
  }

  /** POST /auth/login with the right password of an account with a second factor: its challenge. */
  async function challengeOf(user: UserSession): Promise<string> {
    const res = await t.http().post('/auth/login').send({ email: user.email, password: user.password }).expect(401);
    return res.body.challenge;
  }

  const secondFactor = (body: object) => t.http().post('/auth/login/second-factor').send(body);

  async function auditActions(workspaceId: string, action: string): Promise<{ actor_id: string; target_id: string; changes: string[] }[]> {
    return t.dataSource.query('SELECT actor_id, target_id, changes FROM audit_log WHERE workspace_id = $1 AND action = $2 ORDER BY seq', [workspaceId, action]);
  }

  describe('enrolment', () => {
    it('starts with a secret, its otpauth URL and an SVG QR code; nothing changes at sign-in until a code confirms it', async () => {
      const user = await registerUser(t);
      const before = await t.http().get('/auth/2fa').set(bearer(user.accessToken)).expect(200);
      expect(before.body).toEqual({ totp: { enabled: false, enabledAt: null }, recoveryCodesLeft: 0, passkeys: 0, methods: [] });

      const start = await t.http().post('/auth/2fa/totp').set(bearer(user.accessToken)).send({}).expect(200);
      expect(start.body).toEqual({
        secret: expect.stringMatching(/^[A-Z2-7]{32}$/),
        otpauthUrl: expect.stringMatching(/^otpauth:\/\/totp\/statichost:.+\?/),
        qrCode: expect.stringMatching(/^data:image\/svg\+xml;base64,/),
      });
      expect(new URL(start.body.otpauthUrl).searchParams.get('secret')).toBe(start.body.secret);
      expect(Buffer.from(start.body.qrCode.split(',')[1], 'base64').toString('utf8')).toMatch(/^<svg /);
      // The secret is sealed at rest: the row holds no trace of it.
      const [row] = await t.dataSource.query('SELECT secret_ciphertext, enabled_at FROM totp_credentials WHERE user_id = $1', [user.userId]);
      expect(row.enabled_at).toBeNull();
      expect(Buffer.from(row.secret_ciphertext).toString('latin1')).not.toContain(start.body.secret);

      // Not on yet: the password alone signs in.
      await t.http().post('/auth/login').send({ email: user.email, password: user.password }).expect(200);

      // Starting again replaces the unconfirmed secret: a code of the first no longer confirms.
      const again = await t.http().post('/auth/2fa/totp').set(bearer(user.accessToken)).send({}).expect(200);
      expect(again.body.secret).not.toBe(start.body.secret);
      const stale = await t
        .http()
        .post('/auth/2fa/totp/confirm')
        .set(bearer(user.accessToken))
        .send({ code: code(start.body.secret) })
        .expect(400);
      expect(stale.body.code).toBe('invalid_totp_code');

      const confirm = await t
        .http()
        .post('/auth/2fa/totp/confirm')
        .set(bearer(user.accessToken))
        .send({ code: code(again.body.secret) })
        .expect(200);
      expect(confirm.body.recoveryCodes).toHaveLength(10);
      expect(new Set(confirm.body.recoveryCodes).size).toBe(10);
      const hashes: { code_hash: string }[] = await t.dataSource.query('SELECT code_hash FROM recovery_codes WHERE user_id = $1', [user.userId]);
      expect(hashes).toHaveLength(10);
      for (const c of confirm.body.recoveryCodes) expect(hashes.map((h) => h.code_hash)).not.toContain(c);

      const after = await t.http().get('/auth/2fa').set(bearer(user.accessToken)).expect(200);
      expect(after.body).toEqual({
        totp: { enabled: true, enabledAt: new Date(now).toISOString() },
        recoveryCodesLeft: 10,
        passkeys: 0,
        methods: ['totp', 'recovery_code'],
      });
      expect(await auditActions(user.workspaceId, 'two_factor.enabled')).toEqual([{ actor_id: user.userId, target_id: user.userId, changes: ['totp'] }]);

      const twice = await t.http().post('/auth/2fa/totp').set(bearer(user.accessToken)).send({}).expect(409);
      expect(twice.body.code).toBe('totp_already_enabled');
      nextStep();
    });

    it('refuses to confirm what was never started, and bad input, with a 4xx naming it', async () => {
      const user = await registerUser(t);
      const none = await t.http().post('/auth/2fa/totp/confirm').set(bearer(user.accessToken)).send({ code: '123456' }).expect(409);
      expect(none.body.code).toBe('totp_not_started');
      const empty = await t.http().post('/auth/2fa/totp/confirm').set(bearer(user.accessToken)).send({ code: '' }).expect(400);
      expect(empty.body.message).toContain('code: must not be empty');
      const notString = await t.http().post('/auth/2fa/totp/confirm').set(bearer(user.accessToken)).send({ code: 123456 }).expect(400);
      expect(notString.body.code).toBe('validation_failed');
      await t.http().get('/auth/2fa').expect(401);
    });
  });

  describe('sign-in with TOTP on', () => {
    it('answers 401 second_factor_required with a challenge and no tokens, then signs in with a code', async () => {
      const { user, secret } = await withTotp();
      const login = await t.http().post('/auth/login').set('X-Session-Mode', 'cookie').send({ email: user.email, password: user.password }).expect(401);
      expect(login.body).toEqual({
        statusCode: 401,
        error: 'Unauthorized',
        code: 'second_factor_required',
        message: expect.stringContaining('POST /auth/login/second-factor'),
        challenge: expect.stringMatching(/^[\w-]{43}$/),
        methods: ['totp', 'recovery_code'],
      });
      expect(login.headers['set-cookie']).toBeUndefined();
      expect(login.body).not.toHaveProperty('accessToken');

      const done = await secondFactor({ challenge: login.body.challenge, totp: code(secret) }).expect(200);
      expect(done.body).toEqual({
        accessToken: expect.any(String),
        refreshToken: expect.any(String),
        expiresIn: 900,
        user: expect.objectContaining({ id: user.userId }),
      });
      await t.http().get('/users/me').set(bearer(done.body.accessToken)).expect(200);
      // The challenge is used up by the answer that signed in.
      nextStep();
      const reused = await secondFactor({ challenge: login.body.challenge, totp: code(secret) }).expect(401);
      expect(reused.body.code).toBe('invalid_login_challenge');
      const signedIn = await auditActions(user.workspaceId, 'user.signed_in');
      expect(signedIn.at(-1)).toEqual({ actor_id: user.userId, target_id: user.userId, changes: ['password', 'totp'] });
    });

    it('finishes in cookie mode like POST /auth/login does', async () => {
      const { user, secret } = await withTotp();
      const challenge = await challengeOf(user);
      const done = await secondFactor({ challenge, totp: code(secret) })
        .set('X-Session-Mode', 'cookie')
        .expect(200);
      expect(done.body).not.toHaveProperty('refreshToken');
      expect(String(done.headers['set-cookie'])).toContain('statichost_refresh=');
    });

    it('accepts a code once: the same code again (replay) is refused, even on a new challenge', async () => {
      const { user, secret } = await withTotp();
      const used = code(secret);
      await secondFactor({ challenge: await challengeOf(user), totp: used }).expect(200);
      const replay = await secondFactor({ challenge: await challengeOf(user), totp: used }).expect(401);
      expect(replay.body.code).toBe('invalid_second_factor');
      nextStep();
      await secondFactor({ challenge: await challengeOf(user), totp: code(secret) }).expect(200);
    });

    it('accepts a code one step early or late (drift), not two', async () => {
      const { user, secret } = await withTotp();
      await secondFactor({ challenge: await challengeOf(user), totp: code(secret, -2) }).expect(401);
      await secondFactor({ challenge: await challengeOf(user), totp: code(secret, 2) }).expect(401);
      await secondFactor({ challenge: await challengeOf(user), totp: code(secret, -1) }).expect(200);
      nextStep();
      nextStep();
      await secondFactor({ challenge: await challengeOf(user), totp: code(secret, 1) }).expect(200);
      // That was the step after now: now's own code is older and refused (no replay of earlier steps).
      await secondFactor({ challenge: await challengeOf(user), totp: code(secret) }).expect(401);
      nextStep();
      nextStep();
    });

    it('takes each recovery code once', async () => {
      const { user, recoveryCodes } = await withTotp();
      await secondFactor({ challenge: await challengeOf(user), recoveryCode: recoveryCodes[0].toUpperCase() }).expect(200);
      const again = await secondFactor({ challenge: await challengeOf(user), recoveryCode: recoveryCodes[0] }).expect(401);
      expect(again.body.code).toBe('invalid_second_factor');
      const status = await t.http().get('/auth/2fa').set(bearer(user.accessToken)).expect(200);
      expect(status.body.recoveryCodesLeft).toBe(9);
      const unknown = await secondFactor({ challenge: await challengeOf(user), recoveryCode: 'aaaaa-bbbbb' }).expect(401);
      expect(unknown.body.code).toBe('invalid_second_factor');
    });

    it('refuses an expired challenge (5 minutes)', async () => {
      const { user, secret } = await withTotp();
      const challenge = await challengeOf(user);
      now += 5 * 60_000 + 1000;
      const late = await secondFactor({ challenge, totp: code(secret) }).expect(401);
      expect(late.body.code).toBe('invalid_login_challenge');
      nextStep();
    });

    it('refuses a made-up challenge and answers that are not exactly one', async () => {
      const { user, secret } = await withTotp();
      expect((await secondFactor({ challenge: 'x'.repeat(43), totp: code(secret) }).expect(401)).body.code).toBe('invalid_login_challenge');
      const challenge = await challengeOf(user);
      const none = await secondFactor({ challenge }).expect(400);
      expect(none.body.message).toContain('exactly one of totp, recoveryCode and passkey');
      await secondFactor({ challenge, totp: code(secret), recoveryCode: 'aaaaa-bbbbb' }).expect(400);
      await secondFactor({ challenge, passkey: 'not an object' }).expect(400);
      // The refusals above used nothing up.
      await secondFactor({ challenge, totp: code(secret) }).expect(200);
      nextStep();
    });

    it('counts wrong codes with the failed sign-ins: past the limit even the right code gets 429', async () => {
      const { user, secret } = await withTotp();
      const challenge = await challengeOf(user);
      // LOGIN_MAX_FAILURES_PER_ADDRESS (5) wrong answers from this address.
      for (let i = 0; i < 5; i++) await secondFactor({ challenge, totp: code(secret, 5) }).expect(401);
      const limited = await secondFactor({ challenge, totp: code(secret) }).expect(429);
      expect(limited.headers['retry-after']).toBeDefined();
      // Nor does the right password clear the count: it is refused as well, so no fresh challenge either.
      await t.http().post('/auth/login').send({ email: user.email, password: user.password }).expect(429);
    });

    it('records a password-only sign-in as user.signed_in in each workspace of the user', async () => {
      const owner = await registerUser(t);
      const member = await registerUser(t);
      await addMember(t, owner, member, 'viewer');
      await t.http().post('/auth/login').send({ email: member.email, password: member.password }).expect(200);
      for (const workspaceId of [member.workspaceId, owner.workspaceId]) {
        expect((await auditActions(workspaceId, 'user.signed_in')).filter((e) => e.actor_id === member.userId)).toEqual([
          { actor_id: member.userId, target_id: member.userId, changes: ['password'] },
        ]);
      }
    });

    it('records each failed sign-in of an existing account: wrong password, wrong second factor', async () => {
      const { user } = await withTotp();
      await t.http().post('/auth/login').send({ email: user.email, password: 'not the password' }).expect(401);
      // A wrong password's entry is written after the answer (DeferredWork).
      await t.app.get(DeferredWork).settled();
      await secondFactor({ challenge: await challengeOf(user), totp: '000000' }).expect(401);
      expect(await auditActions(user.workspaceId, 'user.signin_failed')).toEqual([
        { actor_id: user.userId, target_id: user.userId, changes: ['password'] },
        { actor_id: user.userId, target_id: user.userId, changes: ['totp'] },
      ]);
    });
  });

  describe('turning it off and new recovery codes', () => {
    it('needs the password and a current code or a recovery code', async () => {
      const { user, secret, recoveryCodes } = await withTotp();
      const wrongPassword = await t
        .http()
        .delete('/auth/2fa/totp')
        .set(bearer(user.accessToken))
        .send({ password: 'nope nope nope', code: code(secret) })
        .expect(401);
      expect(wrongPassword.body.code).toBe('invalid_login');
      const wrongCode = await t.http().delete('/auth/2fa/totp').set(bearer(user.accessToken)).send({ password: user.password, code: '000000' }).expect(400);
      expect(wrongCode.body.code).toBe('invalid_totp_code');
      await t.http().delete('/auth/2fa/totp').set(bearer(user.accessToken)).send({ password: user.password }).expect(400);
      // Still on after the refusals.
      await challengeOf(user);

      const fresh = await t
        .http()
        .post('/auth/2fa/recovery-codes')
        .set(bearer(user.accessToken))
        .send({ code: code(secret) })
        .expect(200);
      expect(fresh.body.recoveryCodes).toHaveLength(10);
      expect(fresh.body.recoveryCodes).not.toContain(recoveryCodes[0]);
      await secondFactor({ challenge: await challengeOf(user), recoveryCode: recoveryCodes[0] }).expect(401);
      expect(await auditActions(user.workspaceId, 'two_factor.recovery_codes_regenerated')).toHaveLength(1);

      await t.http().delete('/auth/2fa/totp').set(bearer(user.accessToken)).send({ password: user.password, code: fresh.body.recoveryCodes[0] }).expect(204);
      await t.http().post('/auth/login').send({ email: user.email, password: user.password }).expect(200);
      expect(await auditActions(user.workspaceId, 'two_factor.disabled')).toEqual([{ actor_id: user.userId, target_id: user.userId, changes: ['totp'] }]);
      const off = await t.http().delete('/auth/2fa/totp').set(bearer(user.accessToken)).send({ password: user.password, code: '123456' }).expect(409);
      expect(off.body.code).toBe('totp_not_enabled');
      nextStep();
    });

    it('counts wrong codes for new recovery codes with the failed sign-ins: past the limit even the right code gets 429', async () => {
      const { user, secret, recoveryCodes } = await withTotp();
      const regenerate = (answer: string) => t.http().post('/auth/2fa/recovery-codes').set(bearer(user.accessToken)).send({ code: answer });
      // LOGIN_MAX_FAILURES_PER_ADDRESS (5) wrong codes from this address, TOTP and recovery codes alike.
      for (let i = 0; i < 4; i++) await regenerate(code(secret, 5)).expect(400);
      await regenerate('aaaaa-bbbbb').expect(400);
      const limited = await regenerate(code(secret)).expect(429);
      expect(limited.headers['retry-after']).toBeDefined();
      await regenerate(recoveryCodes[0]).expect(429);
      // Refused before the code was looked at: the recovery code was not used up.
      expect((await t.http().get('/auth/2fa').set(bearer(user.accessToken)).expect(200)).body.recoveryCodesLeft).toBe(10);
      // The same counts as sign-in's: the password is refused too.
      await t.http().post('/auth/login').send({ email: user.email, password: user.password }).expect(429);
    });

    it('counts wrong codes for turning TOTP off, the password being right: past the limit even the right code gets 429', async () => {
      const { user, secret } = await withTotp();
      const disable = (answer: string) => t.http().delete('/auth/2fa/totp').set(bearer(user.accessToken)).send({ password: user.password, code: answer });
      for (let i = 0; i < 5; i++) await disable(code(secret, 5)).expect(400);
      const limited = await disable(code(secret)).expect(429);
      expect(limited.headers['retry-after']).toBeDefined();
      expect((await t.http().get('/auth/2fa').set(bearer(user.accessToken)).expect(200)).body.totp.enabled).toBe(true);
    });

    it('clears the count of this account and address with a right code, as a sign-in does', async () => {
      const { user, secret } = await withTotp();
      const regenerate = (answer: string) => t.http().post('/auth/2fa/recovery-codes').set(bearer(user.accessToken)).send({ code: answer });
      for (let i = 0; i < 4; i++) await regenerate(code(secret, 5)).expect(400);
      await regenerate(code(secret)).expect(200);
      for (let i = 0; i < 4; i++) await regenerate(code(secret, 5)).expect(400);
      nextStep();
      await regenerate(code(secret)).expect(200);
    });
  });

  describe('the workspace policy requireTwoFactor', () => {
    it('holds members without a second factor at 403 two_factor_required until they enrol; API tokens are unaffected', async () => {
      const { user: owner, secret: ownerSecret } = await withTotp();
      const member = await registerUser(t);
      await addMember(t, owner, member, 'admin');
      const token = await createApiToken(t, owner, { scopes: ['read', 'deploy', 'admin'] });

      const set = await t.http().patch(`/workspaces/${owner.workspaceId}`).set(asUser(owner)).send({ requireTwoFactor: true }).expect(200);
      expect(set.body).toEqual(expect.objectContaining({ id: owner.workspaceId, requireTwoFactor: true }));
      expect(await auditActions(owner.workspaceId, 'workspace.updated')).toEqual([
        expect.objectContaining({ actor_id: owner.userId, changes: ['requireTwoFactor'] }),
      ]);

      const refused = await t.http().get('/projects').set(asUser(member, owner.workspaceId)).expect(403);
      expect(refused.body).toEqual(expect.objectContaining({ code: 'two_factor_required', workspaceId: owner.workspaceId }));
      await t.http().get(`/workspaces/${owner.workspaceId}`).set(bearer(member.accessToken)).expect(403);
      // A route naming the workspace in its query (billing) is the workspace's too.
      const usage = await t.http().get('/billing/usage').query({ workspaceId: owner.workspaceId }).set(bearer(member.accessToken)).expect(403);
      expect(usage.body.code).toBe('two_factor_required');
      // Still reachable: their account, their workspace list, their own workspace, enrolment.
      await t.http().get('/users/me').set(bearer(member.accessToken)).expect(200);
      const list = await t.http().get('/workspaces').set(bearer(member.accessToken)).expect(200);
      expect(list.body.data).toEqual(expect.arrayContaining([expect.objectContaining({ id: owner.workspaceId, requireTwoFactor: true })]));
      await t.http().get('/projects').set(asUser(member)).expect(200);
      // The owner (TOTP on) and API tokens work on.
      await t.http().get('/projects').set(asUser(owner)).expect(200);
      await t.http().get('/projects').set(bearer(token.token)).expect(200);

      // The member enrols: the next request is let in.
      const start = await t.http().post('/auth/2fa/totp').set(bearer(member.accessToken)).send({}).expect(200);
      await t
        .http()
        .post('/auth/2fa/totp/confirm')
        .set(bearer(member.accessToken))
        .send({ code: code(start.body.secret) })
        .expect(200);
      await t.http().get('/projects').set(asUser(member, owner.workspaceId)).expect(200);

      // Turning TOTP off again closes the workspace at once (the cached "yes" dies with the auth epoch).
      nextStep();
      await t
        .http()
        .delete('/auth/2fa/totp')
        .set(bearer(member.accessToken))
        .send({ password: member.password, code: code(start.body.secret) })
        .expect(204);
      await t.http().get('/projects').set(asUser(member, owner.workspaceId)).expect(403);

      // Lifting the policy lets them back in.
      await t.http().patch(`/workspaces/${owner.workspaceId}`).set(asUser(owner)).send({ requireTwoFactor: false }).expect(200);
      await t.http().get('/projects').set(asUser(member, owner.workspaceId)).expect(200);
      expect(ownerSecret).toBeTruthy();
      nextStep();
    });

    it("holds the removal of a payment method too, whose route names no workspace: the service checks the method's workspace", async () => {
      const { user: owner, secret } = await withTotp();
      const admin = await registerUser(t);
      await addMember(t, owner, admin, 'admin');
      const card = await t
        .http()
        .post('/billing/payment-methods')
        .set(bearer(owner.accessToken))
        .send({ workspaceId: owner.workspaceId, paymentMethodToken: 'pm_card_visa' })
        .expect(201);
      await t.http().patch(`/workspaces/${owner.workspaceId}`).set(asUser(owner)).send({ requireTwoFactor: true }).expect(200);
      // The admin has no second factor: the policy answers before the owner-only rule, as the guard's order is.
      const byAdmin = await t.http().delete(`/billing/payment-methods/${card.body.id}`).set(bearer(admin.accessToken)).expect(403);
      expect(byAdmin.body).toEqual(expect.objectContaining({ code: 'two_factor_required', workspaceId: owner.workspaceId }));
      // The owner turns TOTP off: a session without a second factor removes nothing either.
      await t
        .http()
        .delete('/auth/2fa/totp')
        .set(bearer(owner.accessToken))
        .send({ password: owner.password, code: code(secret) })
        .expect(204);
      nextStep();
      const byOwner = await t.http().delete(`/billing/payment-methods/${card.body.id}`).set(bearer(owner.accessToken)).expect(403);
      expect(byOwner.body).toEqual(expect.objectContaining({ code: 'two_factor_required', workspaceId: owner.workspaceId }));
      expect(await t.dataSource.query('SELECT id FROM payment_methods WHERE workspace_id = $1', [owner.workspaceId])).toEqual([{ id: card.body.id }]);
      // Enrolled again, the owner removes it.
      const start = await t.http().post('/auth/2fa/totp').set(bearer(owner.accessToken)).send({}).expect(200);
      await t
        .http()
        .post('/auth/2fa/totp/confirm')
        .set(bearer(owner.accessToken))
        .send({ code: code(start.body.secret) })
        .expect(200);
      nextStep();
      await t.http().delete(`/billing/payment-methods/${card.body.id}`).set(bearer(owner.accessToken)).expect(204);
      expect(await t.dataSource.query('SELECT id FROM payment_methods WHERE workspace_id = $1', [owner.workspaceId])).toEqual([]);
    });

    it('is for owners to set: an admin or an API token gets 403, a non-boolean 400, an empty PATCH 400', async () => {
      const owner = await registerUser(t);
      const admin = await registerUser(t);
      await addMember(t, owner, admin, 'admin');
      const token = await createApiToken(t, owner, { scopes: ['read', 'admin'] });
      const byAdmin = await t
        .http()
        .patch(`/workspaces/${owner.workspaceId}`)
        .set(asUser(admin, owner.workspaceId))
        .send({ requireTwoFactor: true })
        .expect(403);
      expect(byAdmin.body.code).toBe('owner_required');
      await t.http().patch(`/workspaces/${owner.workspaceId}`).set(bearer(token.token)).send({ requireTwoFactor: true }).expect(403);
      const notBoolean = await t.http().patch(`/workspaces/${owner.workspaceId}`).set(asUser(owner)).send({ requireTwoFactor: 'yes' }).expect(400);
      expect(notBoolean.body.message).toContain('requireTwoFactor: must be true or false');
      await t.http().patch(`/workspaces/${owner.workspaceId}`).set(asUser(owner)).send({}).expect(400);
      // An admin still renames.
      await t.http().patch(`/workspaces/${owner.workspaceId}`).set(asUser(admin, owner.workspaceId)).send({ name: 'Renamed' }).expect(200);
      const [row] = await t.dataSource.query('SELECT require_two_factor, name FROM workspaces WHERE id = $1', [owner.workspaceId]);
      expect(row).toEqual({ require_two_factor: false, name: 'Renamed' });
    });
  });
});
