import { JwtService } from '@nestjs/jwt';

import { Clock } from '../../src/common/time';
import { startTestApp, type TestApp } from '../helpers/app';
import { addMember, asUser, bearer, createApiToken, registerUser, type UserSession } from '../helpers/identity';

/** The one body every unusable credential gets. */
const UNAUTHORIZED = { statusCode: 401, error: 'Unauthorized', message: 'Missing or invalid credentials', code: 'unauthorized' };

describe('The bearer guard (e2e)', () => {
  let t: TestApp;
  let alice: UserSession;
  let bob: UserSession;
  beforeAll(async () => {
    t = await startTestApp();
    alice = await registerUser(t);
    bob = await registerUser(t);
  });
  afterAll(() => t?.close());

  /** GET /access-tokens is an ordinary workspace-scoped route any credential kind may call. */
  const call = (headers: Record<string, string>, path = '/access-tokens') => t.http().get(path).set(headers);

  async function expectUnauthorized(headers: Record<string, string>, path?: string) {
    const res = await call(headers, path);
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="statichost"');
  }

  describe('401 with one uniform body', () => {
    it('for a missing Authorization header', async () => {
      await expectUnauthorized({});
    });

    it('for a malformed Authorization header', async () => {
      const token = await createApiToken(t, alice, { scopes: ['read'] });
      await expectUnauthorized({ Authorization: token.token });
      await expectUnauthorized({ Authorization: `Basic ${Buffer.from('a:b').toString('base64')}` });
      await expectUnauthorized({ Authorization: 'Bearer' });
      await expectUnauthorized({ Authorization: `Bearer ${token.token} extra` });
      await expectUnauthorized({ Authorization: `Bearer  ${token.token}` });
      await expectUnauthorized(bearer('not-a-jwt-and-not-a-token'));
      // And the same token, sent properly, works: the failures above are about the header.
      await call(bearer(token.token)).expect(200);
    });

    it('for an unknown API token, a mistyped one (bad checksum) and a fake prefix', async () => {
      const real = await createApiToken(t, alice, { scopes: ['read'] });
      const mistyped = real.token.slice(0, -1) + (real.token.endsWith('A') ? 'B' : 'A');
      await expectUnauthorized(bearer(mistyped));
      await expectUnauthorized(bearer('sk_live_' + 'A'.repeat(38)));
      await expectUnauthorized(bearer('sk_live_'));
    });

    it('for a revoked API token, on the very next request', async () => {
      const token = await createApiToken(t, alice, { scopes: ['read', 'admin'] });
      await call(bearer(token.token)).expect(200);
      await t.http().delete(`/access-tokens/${token.id}`).set(asUser(alice)).expect(204);
      await expectUnauthorized(bearer(token.token));
      await expectUnauthorized(bearer(token.token), '/v1/me');
    });

    it('for a JWT that is forged, tampered with or unsigned', async () => {
      const claims = JSON.parse(Buffer.from(alice.accessToken.split('.')[1], 'base64url').toString());
      const forged = new JwtService({ secret: 'some-other-secret-of-at-least-32-characters' }).sign(claims);
      await expectUnauthorized(bearer(forged));
      const [h, , s] = alice.accessToken.split('.');
      const escalated = Buffer.from(JSON.stringify({ ...claims, sub: bob.userId })).toString('base64url');
      await expectUnauthorized(bearer(`${h}.${escalated}.${s}`));
      const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
      await expectUnauthorized(bearer(`${none}.${alice.accessToken.split('.')[1]}.`));
    });

    it('never takes a credential from the query string or the body', async () => {
      const token = await createApiToken(t, alice, { scopes: ['read', 'admin'] });
      await expectUnauthorized({}, `/access-tokens?access_token=${token.token}`);
      await expectUnauthorized({}, `/v1/me?access_token=${token.token}`);
      const body = await t
        .http()
        .post('/access-tokens')
        .send({ access_token: token.token, name: 'x', scopes: ['read'] });
      expect(body.status).toBe(401);
      expect(body.body).toEqual(UNAUTHORIZED);
      const jwtInQuery = await t.http().get(`/workspaces?access_token=${alice.accessToken}`);
      expect(jwtInQuery.status).toBe(401);
    });
  });

  describe('the workspace of a JWT request', () => {
    it('is required on a workspace-scoped route: 400 saying X-Workspace-Id is missing', async () => {
      const res = await call(bearer(alice.accessToken)).expect(400);
      expect(res.body).toMatchObject({ statusCode: 400, code: 'workspace_required', message: expect.stringContaining('X-Workspace-Id') });
    });

    it('must be a workspace id', async () => {
      const res = await call({ ...bearer(alice.accessToken), 'X-Workspace-Id': 'acme' }).expect(400);
      expect(res.body).toMatchObject({ code: 'invalid_workspace_header', message: expect.stringContaining('X-Workspace-Id') });
    });

    it("answers 403 when the user is not an active member of it (another user's, an unknown one, or one only invited to)", async () => {
      expect((await call(asUser(alice, bob.workspaceId)).expect(403)).body).toMatchObject({ code: 'not_a_member' });
      await call(asUser(alice, 'ws_zzzzzzzzzzzzzzzzzzzzzzzz')).expect(403);
      await t.http().post(`/workspaces/${bob.workspaceId}/members`).set(asUser(bob)).send({ email: alice.email, role: 'admin' }).expect(201);
      await call(asUser(alice, bob.workspaceId)).expect(403);
    });

    it('is not needed on routes that act in no workspace', async () => {
      await t.http().get('/workspaces').set(bearer(alice.accessToken)).expect(200);
      await t.http().get('/invitations').set(bearer(alice.accessToken)).expect(200);
    });

    it('comes from the path when the route has :workspaceId, and a header that disagrees is 403', async () => {
      await t.http().get(`/workspaces/${alice.workspaceId}`).set(bearer(alice.accessToken)).expect(200);
      await t.http().get(`/workspaces/${alice.workspaceId}`).set(asUser(alice)).expect(200);
      const other = await registerUser(t);
      await addMember(t, other, alice, 'viewer');
      const res = await t.http().get(`/workspaces/${alice.workspaceId}`).set(asUser(alice, other.workspaceId)).expect(403);
      expect(res.body.code).toBe('workspace_mismatch');
    });
  });

  describe('an API token', () => {
    it('acts in its own workspace without X-Workspace-Id, and with a matching one', async () => {
      const token = await createApiToken(t, alice, { scopes: ['read'] });
      await call(bearer(token.token)).expect(200);
      await call({ ...bearer(token.token), 'X-Workspace-Id': alice.workspaceId }).expect(200);
    });

    it('answers 403 when X-Workspace-Id names another workspace', async () => {
      const token = await createApiToken(t, alice, { scopes: ['read'] });
      const res = await call({ ...bearer(token.token), 'X-Workspace-Id': bob.workspaceId }).expect(403);
      expect(res.body).toMatchObject({ statusCode: 403, code: 'workspace_mismatch' });
    });

    it('records its last use at most once a minute', async () => {
      const token = await createApiToken(t, alice, { scopes: ['read'] });
      const lastUsed = async () =>
        (await t.dataSource.query('SELECT last_used_at FROM access_tokens WHERE id = $1', [token.id]))[0].last_used_at as Date | null;
      expect(await lastUsed()).toBeNull();
      await call(bearer(token.token)).expect(200);
      const first = await lastUsed();
      expect(first).toBeInstanceOf(Date);
      await call(bearer(token.token)).expect(200);
      await call(bearer(token.token)).expect(200);
      expect(await lastUsed()).toEqual(first);

      // Two minutes later (by the app's clock, which also throttles the writes):
      const later = new Date(Date.now() + 120_000);
      const clock = jest.spyOn(t.app.get(Clock), 'now').mockReturnValue(later);
      try {
        await call(bearer(token.token)).expect(200);
      } finally {
        clock.mockRestore();
      }
      expect(await lastUsed()).toEqual(later);

      const listed = await call(asUser(alice)).expect(200);
      expect(listed.body.data.find((x: { id: string }) => x.id === token.id).lastUsedAt).toBe((await lastUsed())!.toISOString());
    });
  });

  describe('credential kinds', () => {
    it('GET /v1/me takes an API token only: a JWT gets 403', async () => {
      const res = await t.http().get('/v1/me').set(asUser(alice)).expect(403);
      expect(res.body).toMatchObject({ code: 'wrong_credential_kind', message: expect.stringContaining('API token') });
      await t.http().get('/v1/me').set(bearer(alice.accessToken)).expect(403);
    });

    it('POST /workspaces, /invitations and /auth/logout take a JWT only: a token gets 403', async () => {
      const token = await createApiToken(t, alice, { scopes: ['deploy', 'read', 'delete', 'admin'] });
      expect((await t.http().post('/workspaces').set(bearer(token.token)).send({ name: 'x' }).expect(403)).body.code).toBe('wrong_credential_kind');
      await t.http().get('/invitations').set(bearer(token.token)).expect(403);
      await t.http().post('/auth/logout').set(bearer(token.token)).expect(403);
    });
  });

  describe('scopes', () => {
    it('a read-only token gets 403 insufficient_scope naming the missing scope on writes', async () => {
      const token = await createApiToken(t, alice, { scopes: ['read'] });
      const res = await t
        .http()
        .post('/access-tokens')
        .set(bearer(token.token))
        .send({ name: 'x', scopes: ['read'] })
        .expect(403);
      expect(res.body).toEqual({
        statusCode: 403,
        error: 'Forbidden',
        code: 'insufficient_scope',
        message: 'This API token lacks the admin scope this route requires (it has: read)',
        missingScopes: ['admin'],
      });
      await t.http().patch(`/workspaces/${alice.workspaceId}`).set(bearer(token.token)).send({ name: 'x' }).expect(403);
      await t.http().post(`/workspaces/${alice.workspaceId}/members`).set(bearer(token.token)).send({ email: 'a@b.co', role: 'viewer' }).expect(403);
      await t.http().get(`/workspaces/${alice.workspaceId}/members`).set(bearer(token.token)).expect(200);
    });

    it('a deploy-only token cannot read tokens or members', async () => {
      const token = await createApiToken(t, alice, { scopes: ['deploy'] });
      expect((await call(bearer(token.token)).expect(403)).body.missingScopes).toEqual(['read']);
      await t.http().get(`/workspaces/${alice.workspaceId}/members`).set(bearer(token.token)).expect(403);
    });

    it('a viewer gets read and 403 on writes', async () => {
      const owner = await registerUser(t);
      const viewer = await registerUser(t);
      await addMember(t, owner, viewer, 'viewer');
      const inOwners = asUser(viewer, owner.workspaceId);
      await t.http().get('/access-tokens').set(inOwners).expect(200);
      await t.http().get(`/workspaces/${owner.workspaceId}/members`).set(inOwners).expect(200);
      const res = await t
        .http()
        .post('/access-tokens')
        .set(inOwners)
        .send({ name: 'x', scopes: ['read'] })
        .expect(403);
      expect(res.body).toMatchObject({ code: 'insufficient_scope', message: expect.stringContaining('Your role (viewer)'), missingScopes: ['admin'] });
      await t.http().patch(`/workspaces/${owner.workspaceId}`).set(inOwners).send({ name: 'x' }).expect(403);
      await t.http().post(`/workspaces/${owner.workspaceId}/members`).set(inOwners).send({ email: 'x@y.co', role: 'viewer' }).expect(403);
    });
  });
});

describe('Expired credentials (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { JWT_ACCESS_TTL_SECONDS: '2' } });
  });
  afterAll(() => t?.close());

  const waitUntil = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms - Date.now()) + 50));

  it('an access JWT works until its exp, then gets the uniform 401', async () => {
    const user = await registerUser(t);
    const { exp } = JSON.parse(Buffer.from(user.accessToken.split('.')[1], 'base64url').toString());
    if (Date.now() < exp * 1000 - 200) await t.http().get('/workspaces').set(bearer(user.accessToken)).expect(200);
    await waitUntil(exp * 1000);
    const res = await t.http().get('/workspaces').set(bearer(user.accessToken)).expect(401);
    expect(res.body).toEqual(UNAUTHORIZED);
    // The refresh token still gets a fresh pair.
    const refreshed = await t.http().post('/auth/refresh').send({ refreshToken: user.refreshToken }).expect(200);
    await t.http().get('/workspaces').set(bearer(refreshed.body.accessToken)).expect(200);
  });

  it('an API token works until expires_at, then gets the uniform 401', async () => {
    const user = await registerUser(t);
    const expiresAt = Date.now() + 1500;
    const token = await createApiToken(t, user, { scopes: ['read'], expires_at: new Date(expiresAt).toISOString() });
    expect(token.body.expires_at).toBe(new Date(expiresAt).toISOString());
    await t.http().get('/v1/me').set(bearer(token.token)).expect(200);
    await waitUntil(expiresAt);
    const res = await t.http().get('/v1/me').set(bearer(token.token)).expect(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });
});
