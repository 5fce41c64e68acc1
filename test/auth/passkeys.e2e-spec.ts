import fc from 'fast-check';

import { MAX_PASSKEYS_PER_USER } from '../../src/auth/passkeys/passkeys.service';
import { PASSKEY_VERIFIER, type PasskeyVerifier } from '../../src/auth/two-factor/passkey-verifier';
import { startTestApp, type TestApp } from '../helpers/app';
import { registerUser, type UserSession } from '../helpers/identity';
import { SoftAuthenticator } from '../helpers/soft-authenticator';

/**
 * Passkeys over HTTP (issue 32), answered by a software authenticator (test/helpers):
 * registering, listing, renaming and deleting, a passwordless sign-in, the second-factor
 * seam, and the refusals a browser would never send (another origin, a replayed or
 * unknown challenge, another user's passkey). A refusal changes nothing and writes no
 * audit entry. The real browser's flow is passkeys.browser.e2e-spec.ts.
 */
describe('passkeys (e2e)', () => {
  let t: TestApp;
  let origin: string;
  let verifier: PasskeyVerifier;

  beforeAll(async () => {
    t = await startTestApp();
    origin = t.config.apiBaseUrl;
    verifier = t.app.get<PasskeyVerifier>(PASSKEY_VERIFIER);
  });
  afterAll(() => t.close());

  const bearer = (u: UserSession) => ({ Authorization: `Bearer ${u.accessToken}` });
  const registrationOptions = async (u: UserSession) => {
    const res = await t.http().post('/auth/passkeys/registration-options').set(bearer(u)).send({});
    expect(res.status).toBe(200);
    return res.body as { challenge: string; user: { id: string; name: string }; rp: { id: string }; excludeCredentials: { id: string }[] };
  };
  const authenticationOptions = async () => {
    const res = await t.http().post('/auth/passkeys/authentication-options').send({});
    expect(res.status).toBe(200);
    return res.body as { challenge: string; rpId: string; allowCredentials?: unknown };
  };
  const registerPasskey = async (u: UserSession, name?: string) => {
    const authenticator = new SoftAuthenticator(origin);
    const res = await t
      .http()
      .post('/auth/passkeys/registration')
      .set(bearer(u))
      .send({ response: authenticator.register(await registrationOptions(u)), ...(name ? { name } : {}) });
    expect(res.status).toBe(201);
    return { authenticator, passkey: res.body as { id: string; name: string } };
  };
  const auditActions = async (workspaceId: string) =>
    (await t.dataSource.query(`SELECT action, actor_id, target_id, changes FROM audit_log WHERE workspace_id = $1 ORDER BY seq`, [workspaceId])) as {
      action: string;
      actor_id: string;
      target_id: string;
      changes: string[];
    }[];
  const passkeyCount = async (userId: string) => (await t.dataSource.query(`SELECT count(*)::int AS n FROM passkeys WHERE user_id = $1`, [userId]))[0].n;

  it('registers a passkey, lists, renames and deletes it, each audited in the user’s workspace', async () => {
    const user = await registerUser(t);
    const options = await registrationOptions(user);
    expect(options).toMatchObject({
      rp: { id: 'localhost' },
      user: { name: user.email },
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
      excludeCredentials: [],
    });
    const authenticator = new SoftAuthenticator(origin);
    const created = await t
      .http()
      .post('/auth/passkeys/registration')
      .set(bearer(user))
      .send({ response: authenticator.register(options), name: 'Laptop' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^pk_/),
      name: 'Laptop',
      createdAt: expect.any(String),
      lastUsedAt: null,
      backedUp: false,
      deviceType: 'singleDevice',
    });
    const id = created.body.id as string;

    // The passkey it has is excluded from the next registration.
    expect((await registrationOptions(user)).excludeCredentials).toEqual([expect.objectContaining({ id: authenticator.id })]);
    expect((await t.http().get('/auth/passkeys').set(bearer(user))).body).toEqual({ data: [created.body] });

    const renamed = await t.http().patch(`/auth/passkeys/${id}`).set(bearer(user)).send({ name: '  Work laptop ' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id, name: 'Work laptop' });

    expect((await t.http().delete(`/auth/passkeys/${id}`).set(bearer(user))).status).toBe(204);
    expect((await t.http().get('/auth/passkeys').set(bearer(user))).body).toEqual({ data: [] });

    expect((await auditActions(user.workspaceId)).filter((e) => e.action.startsWith('passkey.'))).toEqual([
      { action: 'passkey.registered', actor_id: user.userId, target_id: id, changes: ['name'] },
      { action: 'passkey.renamed', actor_id: user.userId, target_id: id, changes: ['name'] },
      { action: 'passkey.deleted', actor_id: user.userId, target_id: id, changes: [] },
    ]);
  });

  it('signs in with a passkey and no password (cookie mode too), audited as the user’s sign-in', async () => {
    const user = await registerUser(t);
    const { authenticator, passkey } = await registerPasskey(user);
    const options = await authenticationOptions();
    expect(options.rpId).toBe('localhost');
    expect(options.allowCredentials).toBeUndefined();

    const res = await t
      .http()
      .post('/auth/passkeys/authentication')
      .send({ response: authenticator.authenticate(options) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      accessToken: expect.any(String),
      refreshToken: expect.stringMatching(/^rt_/),
      user: { id: user.userId, email: user.email },
    });
    const me = await t
      .http()
      .get('/users/me')
      .set({ Authorization: `Bearer ${res.body.accessToken}` });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(user.userId);

    const cookie = await t
      .http()
      .post('/auth/passkeys/authentication')
      .set('X-Session-Mode', 'cookie')
      .send({ response: authenticator.authenticate(await authenticationOptions()) });
    expect(cookie.status).toBe(200);
    expect(cookie.body.refreshToken).toBeUndefined();
    expect((cookie.headers['set-cookie'] as unknown as string[]).join('\n')).toMatch(/statichost_refresh=rt_/);

    const [listed] = (await t.http().get('/auth/passkeys').set(bearer(user))).body.data;
    expect(listed).toMatchObject({ id: passkey.id, lastUsedAt: expect.any(String) });
    const signIns = (await auditActions(user.workspaceId)).filter((e) => e.action === 'user.signed_in');
    expect(signIns).toEqual([
      { action: 'user.signed_in', actor_id: user.userId, target_id: user.userId, changes: ['passkey'] },
      { action: 'user.signed_in', actor_id: user.userId, target_id: user.userId, changes: ['passkey'] },
    ]);
  });

  it('names a passkey registered without a name after the browser it was made in', async () => {
    const user = await registerUser(t);
    const chrome = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
    const res = await t
      .http()
      .post('/auth/passkeys/registration')
      .set(bearer(user))
      .set('User-Agent', chrome)
      .send({ response: new SoftAuthenticator(origin).register(await registrationOptions(user)) });
    expect(res.status).toBe(201);
    expect(res.body.name).toBe('Chrome passkey');
  });

  it('refuses bad input with a 400 naming the field, and changes nothing', async () => {
    const user = await registerUser(t);
    const good = new SoftAuthenticator(origin).register(await registrationOptions(user));
    const cases: [object, RegExp][] = [
      [{}, /response/],
      [{ response: 'x' }, /response/],
      [{ response: { ...good, response: { ...good.response, clientDataJSON: 'not base64url!' } } }, /clientDataJSON/],
      [{ response: { ...good, type: 'password' } }, /type/],
      [{ response: { ...good, extra: 1 } }, /extra/],
      [{ response: good, name: '' }, /name/],
    ];
    for (const [body, field] of cases) {
      const res = await t.http().post('/auth/passkeys/registration').set(bearer(user)).send(body);
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      expect(res.body.message).toMatch(field);
    }
    const signIn = await t
      .http()
      .post('/auth/passkeys/authentication')
      .send({ response: { id: 'x' } });
    expect(signIn.status).toBe(400);
    expect(signIn.body.message).toMatch(/response\./);
    const rename = await t.http().patch('/auth/passkeys/pk_0123456789abcdefghijklmn').set(bearer(user)).send({ name: 'x', extra: true });
    expect(rename.status).toBe(400);
    expect(await passkeyCount(user.userId)).toBe(0);
  });

  it('refuses a registration made for another origin or relying party, another user’s challenge, or a used one', async () => {
    const user = await registerUser(t);
    const other = await registerUser(t);
    const post = (u: UserSession, response: object) => t.http().post('/auth/passkeys/registration').set(bearer(u)).send({ response });

    const wrongOrigin = await post(user, new SoftAuthenticator(origin).register(await registrationOptions(user), { origin: 'https://evil.example' }));
    expect(wrongOrigin.status).toBe(400);
    expect(wrongOrigin.body).toMatchObject({ code: 'invalid_passkey_response', message: expect.stringMatching(/origin/i) });

    const wrongRp = await post(user, new SoftAuthenticator(origin).register(await registrationOptions(user), { rpId: 'evil.example' }));
    expect(wrongRp.status).toBe(400);
    expect(wrongRp.body.message).toMatch(/RP ID/i);

    const othersChallenge = await post(user, new SoftAuthenticator(origin).register(await registrationOptions(other)));
    expect(othersChallenge.status).toBe(400);
    expect(othersChallenge.body.message).toMatch(/challenge/);

    const answer = new SoftAuthenticator(origin).register(await registrationOptions(user));
    expect((await post(user, answer)).status).toBe(201);
    const replay = await post(user, answer);
    expect(replay.status).toBe(400);
    expect(replay.body.message).toMatch(/already answered/);

    // The refusals wrote nothing: one passkey, one entry.
    expect(await passkeyCount(user.userId)).toBe(1);
    expect((await auditActions(user.workspaceId)).filter((e) => e.action.startsWith('passkey.')).map((e) => e.action)).toEqual(['passkey.registered']);
  });

  it('refuses the same passkey registered twice (409)', async () => {
    const user = await registerUser(t);
    const { authenticator } = await registerPasskey(user);
    const again = await t
      .http()
      .post('/auth/passkeys/registration')
      .set(bearer(user))
      .send({ response: authenticator.register(await registrationOptions(user)) });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('passkey_already_registered');
    expect(await passkeyCount(user.userId)).toBe(1);
  });

  it('holds at most 20 passkeys per account: the options and the registration both refuse the 21st (409), also when two race for the last place', async () => {
    const user = await registerUser(t);
    // 18 straight in, then two registrations answered from options issued while there was room, sent at once.
    for (let i = 0; i < MAX_PASSKEYS_PER_USER - 2; i++) {
      await t.dataSource.query(
        `INSERT INTO passkeys (id, user_id, credential_id, public_key, counter, transports, device_type, backed_up, name) VALUES ($1, $2, $3, '\\x00', 0, '{}', 'singleDevice', false, $4)`,
        [`pk_cap${String(i).padStart(21, '0')}`, user.userId, `cred-cap-${user.userId}-${i}`, `key ${i}`],
      );
    }
    const [a, b, c] = await Promise.all([registrationOptions(user), registrationOptions(user), registrationOptions(user)]);
    const answers = [a, b, c].map((o) => new SoftAuthenticator(origin).register(o));
    const results = await Promise.all(answers.map((response) => t.http().post('/auth/passkeys/registration').set(bearer(user)).send({ response })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 409]);
    expect(results.find((r) => r.status === 409)!.body.code).toBe('passkey_limit_reached');
    expect(await passkeyCount(user.userId)).toBe(MAX_PASSKEYS_PER_USER);
    const full = await t.http().post('/auth/passkeys/registration-options').set(bearer(user)).send({});
    expect(full.status).toBe(409);
    expect(full.body).toMatchObject({ code: 'passkey_limit_reached', message: expect.stringMatching(/20 passkeys.*delete one first/) });
  });

  it('refuses a sign-in from another origin, with an unknown, expired or replayed challenge, without user verification, or with a deleted passkey', async () => {
    const user = await registerUser(t);
    const { authenticator, passkey } = await registerPasskey(user);
    const signIn = (response: object) => t.http().post('/auth/passkeys/authentication').send({ response });
    const refused = async (response: object, reason: RegExp) => {
      const res = await signIn(response);
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 'passkey_not_accepted', message: expect.stringMatching(reason) });
      expect(res.body.accessToken).toBeUndefined();
    };

    await refused(authenticator.authenticate(await authenticationOptions(), { origin: 'https://evil.example' }), /origin/i);
    await refused(authenticator.authenticate({ challenge: Buffer.from('never issued').toString('base64url') }), /challenge/);

    const late = await authenticationOptions();
    await t.dataSource.query(`UPDATE passkey_challenges SET expires_at = now() - interval '1 second'`);
    await refused(authenticator.authenticate(late), /expired/);

    const answer = authenticator.authenticate(await authenticationOptions());
    expect((await signIn(answer)).status).toBe(200);
    await refused(answer, /already answered/);

    await refused(authenticator.authenticate(await authenticationOptions(), { userVerified: false }), /verif/i);
    // A registration's challenge does not open a sign-in.
    await refused(authenticator.authenticate(await registrationOptions(user)), /challenge/);

    // A cloned authenticator: its counter behind the one the service last saw.
    authenticator.counter = 0;
    await refused(authenticator.authenticate(await authenticationOptions()), /counter/);

    await t.http().delete(`/auth/passkeys/${passkey.id}`).set(bearer(user)).expect(204);
    await refused(authenticator.authenticate(await authenticationOptions()), /not registered/);

    expect((await auditActions(user.workspaceId)).filter((e) => e.action === 'user.signed_in')).toHaveLength(1);
  });

  it('as the second factor: true for the user’s own passkey, once; false for another user’s, a replay or junk', async () => {
    const user = await registerUser(t);
    const other = await registerUser(t);
    const mine = await registerPasskey(user);
    const theirs = await registerPasskey(other);
    expect(await verifier.countFor(user.userId)).toBe(1);
    expect(await verifier.countFor((await registerUser(t)).userId)).toBe(0);

    expect(await verifier.verifySecondFactor(user.userId, theirs.authenticator.authenticate(await authenticationOptions()))).toBe(false);
    // No user verification is needed for a second factor: the password was the first.
    const answer = mine.authenticator.authenticate(await authenticationOptions(), { userVerified: false });
    expect(await verifier.verifySecondFactor(user.userId, answer)).toBe(true);
    expect(await verifier.verifySecondFactor(user.userId, answer)).toBe(false);
    expect(
      await verifier.verifySecondFactor(user.userId, mine.authenticator.authenticate(await authenticationOptions(), { origin: 'https://evil.example' })),
    ).toBe(false);
    for (const junk of [null, 'x', 42, {}, { id: 'x', response: {} }]) expect(await verifier.verifySecondFactor(user.userId, junk)).toBe(false);
  });

  it('answers junk in any field of a WebAuthn answer with a 4xx, never a 500', async () => {
    const user = await registerUser(t);
    const { authenticator } = await registerPasskey(user);
    const junk = fc.oneof(
      fc.base64String({ maxLength: 200 }).map((b) => b.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')),
      fc.constant(''),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('clientDataJSON', 'authenticatorData', 'signature', 'userHandle'), junk, async (field, value) => {
        // No user handle at all is a valid answer (an authenticator may omit it).
        fc.pre(!(field === 'userHandle' && value === ''));
        const answer = authenticator.authenticate(await authenticationOptions());
        const res = await t
          .http()
          .post('/auth/passkeys/authentication')
          .send({ response: { ...answer, response: { ...answer.response, [field]: value } } });
        expect([400, 401]).toContain(res.status);
      }),
      { numRuns: 25 },
    );
    const options = await registrationOptions(user);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('clientDataJSON', 'attestationObject'), junk, async (field, value) => {
        const answer = new SoftAuthenticator(origin).register(options);
        const res = await t
          .http()
          .post('/auth/passkeys/registration')
          .set(bearer(user))
          .send({ response: { ...answer, response: { ...answer.response, [field]: value } } });
        expect(res.status).toBe(400);
      }),
      { numRuns: 15 },
    );
  });

  it('counts as the second factor a workspace requires, until the user’s last passkey is deleted', async () => {
    const user = await registerUser(t);
    await t.http().patch(`/workspaces/${user.workspaceId}`).set(bearer(user)).send({ requireTwoFactor: true }).expect(200);
    const projects = () => t.http().get('/projects').set(bearer(user)).set('X-Workspace-Id', user.workspaceId);
    expect((await projects()).body.code).toBe('two_factor_required');
    const { passkey } = await registerPasskey(user);
    expect((await projects()).status).toBe(200);
    await t.http().delete(`/auth/passkeys/${passkey.id}`).set(bearer(user)).expect(204);
    // The guard's cache kept "has a second factor": deleting the passkey must make it ask again.
    const after = await projects();
    expect(after.status).toBe(403);
    expect(after.body.code).toBe('two_factor_required');
  });

  it('hides another user’s passkey (404) and needs a signed-in user', async () => {
    const user = await registerUser(t);
    const other = await registerUser(t);
    const { passkey } = await registerPasskey(other);
    const rename = await t.http().patch(`/auth/passkeys/${passkey.id}`).set(bearer(user)).send({ name: 'Mine now' });
    expect(rename.status).toBe(404);
    expect(rename.body.code).toBe('passkey_not_found');
    expect((await t.http().delete(`/auth/passkeys/${passkey.id}`).set(bearer(user))).status).toBe(404);
    expect((await t.http().get('/auth/passkeys').set(bearer(other))).body.data).toEqual([expect.objectContaining({ id: passkey.id, name: passkey.name })]);
    expect((await t.http().get('/auth/passkeys')).status).toBe(401);
    expect((await t.http().post('/auth/passkeys/registration-options').send({})).status).toBe(401);
  });
});
