import { newId } from '../../src/common/ids';
import { startTestApp, type TestApp } from '../helpers/app';
import { addMember, asUser, bearer, createApiToken, registerUser, type UserSession } from '../helpers/identity';

describe('Access tokens (e2e)', () => {
  let t: TestApp;
  let alice: UserSession;
  let bob: UserSession;
  beforeAll(async () => {
    t = await startTestApp();
    alice = await registerUser(t);
    bob = await registerUser(t);
  });
  afterAll(() => t?.close());

  const create = (headers: Record<string, string>, body: object) => t.http().post('/access-tokens').set(headers).send(body);

  /** A project in the session's workspace, made through POST /projects. */
  async function project(session: UserSession): Promise<string> {
    const res = await t.http().post('/projects').set(asUser(session)).send({ name: 'bound project' });
    expect(res.status).toBe(201);
    return res.body.id;
  }

  describe('POST /access-tokens', () => {
    it('returns the secret once, with its prefix, scopes and expiry', async () => {
      const expires = new Date(Date.now() + 86_400_000).toISOString();
      const res = await create(asUser(alice), { name: ' CI ', scopes: ['read', 'deploy'], expires_at: expires }).expect(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^tok_[0-9a-z]{24}$/),
        name: 'CI',
        token: expect.stringMatching(/^sk_live_[0-9A-Za-z]{38}$/),
        scopes: ['deploy', 'read'],
        prefix: res.body.token.slice(0, 12),
        expires_at: expires,
        projectId: null,
        createdAt: expect.stringMatching(/\.\d{3}Z$/),
      });
      const me = await t.http().get('/v1/me').set(bearer(res.body.token)).expect(200);
      expect(me.body).toEqual({ workspaceId: alice.workspaceId, tokenId: res.body.id, scopes: ['deploy', 'read'], projectId: null });
    });

    it('accepts an expiry with an offset, and null for none', async () => {
      const res = await create(asUser(alice), { name: 'x', scopes: ['read'], expires_at: '2099-06-01T12:00:00+02:00' }).expect(201);
      expect(res.body.expires_at).toBe('2099-06-01T10:00:00.000Z');
      expect((await create(asUser(alice), { name: 'x', scopes: ['read'], expires_at: null }).expect(201)).body.expires_at).toBeNull();
    });

    it('answers 400 naming what is wrong', async () => {
      const cases: [object, string][] = [
        [{ scopes: ['read'] }, 'name'],
        [{ name: '', scopes: ['read'] }, 'name: must not be empty'],
        [{ name: 'x' }, 'scopes'],
        [{ name: 'x', scopes: [] }, 'scopes: must name at least one scope'],
        [{ name: 'x', scopes: ['write'] }, 'each scope must be one of: deploy, read, delete, admin'],
        [{ name: 'x', scopes: ['read', 'read'] }, 'scopes: must not repeat a scope'],
        [{ name: 'x', scopes: 'read' }, 'scopes'],
        [{ name: 'x', scopes: ['read'], expires_at: 'tomorrow' }, 'expires_at: must be an ISO 8601 timestamp'],
        [{ name: 'x', scopes: ['read'], expires_at: '2099-01-01T00:00:00' }, 'expires_at: must end with a time zone'],
        [{ name: 'x', scopes: ['read'], expires_at: '2000-01-01T00:00:00.000Z' }, 'expires_at must be in the future'],
        [{ name: 'x', scopes: ['read'], projectId: 'my-project' }, 'projectId: must be a project id'],
        [{ name: 'x', scopes: ['read'], workspaceId: bob.workspaceId }, 'workspaceId: property workspaceId should not exist'],
        [{ name: 'x', scopes: ['read'], userId: bob.userId }, 'userId: property userId should not exist'],
        [{ name: 'x', scopes: ['read'], role: 'owner' }, 'role: property role should not exist'],
        [{ name: 'x', scopes: ['read'], token: 'sk_live_chosen' }, 'token: property token should not exist'],
      ];
      for (const [body, message] of cases) {
        const res = await create(asUser(alice), body);
        expect({ body, status: res.status }).toEqual({ body, status: 400 });
        expect(res.body.message).toContain(message);
      }
      const [{ n }] = await t.dataSource.query('SELECT count(*)::int AS n FROM access_tokens WHERE workspace_id = $1', [bob.workspaceId]);
      expect(n).toBe(0);
    });

    it('cannot grant scopes the caller does not hold (403)', async () => {
      const admin = await createApiToken(t, alice, { scopes: ['admin', 'read'] });
      const res = await create(bearer(admin.token), { name: 'x', scopes: ['read', 'deploy'] }).expect(403);
      expect(res.body).toMatchObject({ code: 'insufficient_scope', missingScopes: ['deploy'], message: expect.stringContaining('deploy') });
      const ok = await create(bearer(admin.token), { name: 'x', scopes: ['read'] }).expect(201);
      expect(ok.body.scopes).toEqual(['read']);
    });

    it("a token's token cannot outlive it, and inherits its expiry", async () => {
      const soon = new Date(Date.now() + 3_600_000).toISOString();
      const parent = await createApiToken(t, alice, { scopes: ['admin', 'read'], expires_at: soon });
      const later = new Date(Date.now() + 7_200_000).toISOString();
      expect((await create(bearer(parent.token), { name: 'x', scopes: ['read'], expires_at: later }).expect(403)).body.code).toBe('token_outlives_creator');
      expect((await create(bearer(parent.token), { name: 'x', scopes: ['read'] }).expect(201)).body.expires_at).toBe(soon);
    });

    it('needs X-Workspace-Id with a JWT and acts in that workspace', async () => {
      await create(bearer(alice.accessToken), { name: 'x', scopes: ['read'] }).expect(400);
      const other = await registerUser(t);
      await addMember(t, other, alice, 'admin');
      const res = await create(asUser(alice, other.workspaceId), { name: 'x', scopes: ['read'] }).expect(201);
      expect((await t.http().get('/v1/me').set(bearer(res.body.token)).expect(200)).body.workspaceId).toBe(other.workspaceId);
    });
  });

  describe('project-bound tokens', () => {
    it("are bound to a project of the workspace; another workspace's project is 404", async () => {
      const mine = await project(alice);
      const theirs = await project(bob);
      const bound = await create(asUser(alice), { name: 'bound', scopes: ['deploy', 'read'], projectId: mine }).expect(201);
      expect(bound.body.projectId).toBe(mine);
      expect((await t.http().get('/v1/me').set(bearer(bound.body.token)).expect(200)).body).toMatchObject({ projectId: mine });
      expect((await create(asUser(alice), { name: 'x', scopes: ['read'], projectId: theirs }).expect(404)).body.message).toBe(`Project ${theirs} not found`);
      await create(asUser(alice), { name: 'x', scopes: ['read'], projectId: newId('proj') }).expect(404);
    });

    it('cannot mint a workspace-wide token or one for another project', async () => {
      const mine = await project(alice);
      const sibling = await project(alice);
      const bound = await createApiToken(t, alice, { scopes: ['admin', 'read'], projectId: mine });
      expect((await create(bearer(bound.token), { name: 'wide', scopes: ['read'] }).expect(403)).body.code).toBe('project_bound_token');
      await create(bearer(bound.token), { name: 'sibling', scopes: ['read'], projectId: sibling }).expect(404);
      const child = await create(bearer(bound.token), { name: 'child', scopes: ['read'], projectId: mine }).expect(201);
      expect(child.body.projectId).toBe(mine);
    });

    it("see and revoke their project's tokens only, and stay off workspace-wide routes", async () => {
      const mine = await project(alice);
      const bound = await createApiToken(t, alice, { scopes: ['admin', 'read'], projectId: mine });
      const sameProject = await createApiToken(t, alice, { scopes: ['read'], projectId: mine });
      const wide = await createApiToken(t, alice, { scopes: ['read'] });
      const listed = await t.http().get('/access-tokens?limit=100').set(bearer(bound.token)).expect(200);
      expect(listed.body.data.map((x: { id: string }) => x.id).sort()).toEqual([bound.id, sameProject.id].sort());
      await t.http().delete(`/access-tokens/${wide.id}`).set(bearer(bound.token)).expect(404);
      await t.http().delete(`/access-tokens/${sameProject.id}`).set(bearer(bound.token)).expect(204);

      expect((await t.http().get(`/workspaces/${alice.workspaceId}/members`).set(bearer(bound.token)).expect(403)).body.code).toBe('project_bound_token');
      await t.http().patch(`/workspaces/${alice.workspaceId}`).set(bearer(bound.token)).send({ name: 'x' }).expect(403);
    });
  });

  describe('GET /access-tokens', () => {
    it("lists the workspace's live tokens, newest first, with lastUsedAt and never a secret", async () => {
      const owner = await registerUser(t);
      const a = await createApiToken(t, owner, { scopes: ['read'], name: 'first' });
      const b = await createApiToken(t, owner, { scopes: ['deploy'], name: 'second' });
      const revoked = await createApiToken(t, owner, { scopes: ['read'], name: 'revoked' });
      await t.http().delete(`/access-tokens/${revoked.id}`).set(asUser(owner)).expect(204);
      await t.http().get('/v1/me').set(bearer(a.token)).expect(200);

      const res = await t.http().get('/access-tokens').set(asUser(owner)).expect(200);
      expect(res.body.meta).toEqual({ total: 2, page: 1, limit: 20, totalPages: 1 });
      expect(res.body.data).toEqual([
        {
          id: b.id,
          name: 'second',
          scopes: ['deploy'],
          prefix: b.token.slice(0, 12),
          expires_at: null,
          projectId: null,
          createdAt: expect.any(String),
          lastUsedAt: null,
        },
        {
          id: a.id,
          name: 'first',
          scopes: ['read'],
          prefix: a.token.slice(0, 12),
          expires_at: null,
          projectId: null,
          createdAt: expect.any(String),
          lastUsedAt: expect.any(String),
        },
      ]);
      const text = JSON.stringify(res.body);
      for (const secret of [a.token, b.token]) {
        expect(text).not.toContain(secret);
        expect(text).not.toContain(secret.slice(12));
      }
      expect(text).not.toContain('token_hash');
      expect(text).not.toContain('tokenHash');
    });

    it("never shows another workspace's tokens", async () => {
      const other = await createApiToken(t, bob, { scopes: ['read'] });
      const res = await t.http().get('/access-tokens?limit=100').set(asUser(alice)).expect(200);
      expect(res.body.data.map((x: { id: string }) => x.id)).not.toContain(other.id);
    });
  });

  describe('DELETE /access-tokens/:tokenId', () => {
    it('revokes; the token fails on the very next request; a second delete is 404', async () => {
      const token = await createApiToken(t, alice, { scopes: ['read'] });
      await t.http().get('/v1/me').set(bearer(token.token)).expect(200);
      await t.http().delete(`/access-tokens/${token.id}`).set(asUser(alice)).expect(204);
      await t.http().get('/v1/me').set(bearer(token.token)).expect(401);
      await t.http().delete(`/access-tokens/${token.id}`).set(asUser(alice)).expect(404);
    });

    it("answers 404 for another workspace's token, which keeps working", async () => {
      const theirs = await createApiToken(t, bob, { scopes: ['read'] });
      const res = await t.http().delete(`/access-tokens/${theirs.id}`).set(asUser(alice)).expect(404);
      expect(res.body.message).toBe(`Access token ${theirs.id} not found`);
      const aliceAdmin = await createApiToken(t, alice, { scopes: ['admin'] });
      await t.http().delete(`/access-tokens/${theirs.id}`).set(bearer(aliceAdmin.token)).expect(404);
      await t.http().delete('/access-tokens/tok_zzzzzzzzzzzzzzzzzzzzzzzz').set(asUser(alice)).expect(404);
      await t.http().get('/v1/me').set(bearer(theirs.token)).expect(200);
    });

    it('a token may revoke itself', async () => {
      const token = await createApiToken(t, alice, { scopes: ['admin'] });
      await t.http().delete(`/access-tokens/${token.id}`).set(bearer(token.token)).expect(204);
      await t.http().get('/v1/me').set(bearer(token.token)).expect(401);
    });
  });

  it('a secret never appears after its creation: not in responses, not in the logs, not in the database', async () => {
    const token = await createApiToken(t, alice, { scopes: ['read', 'admin'], name: 'secret-check' });
    const secretPart = token.token.slice('sk_live_'.length);
    const responses: string[] = [];
    for (const path of ['/v1/me', '/access-tokens', '/workspaces', `/workspaces/${alice.workspaceId}`, `/workspaces/${alice.workspaceId}/members`]) {
      const res = await t.http().get(path).set(bearer(token.token)).expect(200);
      responses.push(JSON.stringify(res.body), JSON.stringify(res.headers));
    }
    await t.http().get(`/access-tokens?access_token=${token.token}`).expect(401);
    for (const text of responses) expect(text).not.toContain(secretPart);

    const logs = t.logs.join('');
    expect(logs).toContain('/v1/me');
    expect(logs).not.toContain(secretPart);

    const rows = await t.dataSource.query('SELECT * FROM access_tokens');
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(secretPart);
    expect(dump).not.toContain(secretPart.slice(0, 20));
    const [row] = rows.filter((r: { id: string }) => r.id === token.id);
    expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.prefix).toBe(token.token.slice(0, 12));
  });
});
