import { randomBytes } from 'node:crypto';

import { startTestApp, type TestApp } from '../helpers/app';
import { addMember, asUser, bearer, createApiToken, registerUser, type UserSession } from '../helpers/identity';

/**
 * Credentials are cached per instance (src/auth/guard/credential-cache.service.ts). A change
 * made through instance A must hold on instance B from the very next request, with no
 * wait: B has just used the same credential successfully (so it is cached there) and
 * is asked again as soon as A has answered.
 */
describe('Revocation across instances (e2e)', () => {
  let a: TestApp;
  let b: TestApp;
  let owner: UserSession;
  beforeAll(async () => {
    const env = { JWT_SECRET: randomBytes(32).toString('hex') };
    a = await startTestApp({ env });
    b = await startTestApp({ env, sibling: a });
    owner = await registerUser(a, { name: 'Owner' });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('a token revoked on A is refused on B at once', async () => {
    for (let i = 0; i < 5; i++) {
      const token = await createApiToken(a, owner, { scopes: ['read'] });
      await b.http().get('/v1/me').set(bearer(token.token)).expect(200);
      await b.http().get('/v1/me').set(bearer(token.token)).expect(200);
      await a.http().delete(`/access-tokens/${token.id}`).set(asUser(owner)).expect(204);
      const res = await b.http().get('/v1/me').set(bearer(token.token)).expect(401);
      expect(res.headers['www-authenticate']).toContain('Bearer');
    }
  });

  it('a token revoked in the database by hand (no instance involved) is refused at once', async () => {
    const token = await createApiToken(a, owner, { scopes: ['read'] });
    await b.http().get('/v1/me').set(bearer(token.token)).expect(200);
    await a.dataSource.query('UPDATE access_tokens SET revoked_at = now() WHERE id = $1', [token.id]);
    await b.http().get('/v1/me').set(bearer(token.token)).expect(401);
  });

  it('a token that expires while cached is refused from its expiry on', async () => {
    const token = await createApiToken(a, owner, { scopes: ['read'], expires_at: new Date(Date.now() + 1500).toISOString() });
    await b.http().get('/v1/me').set(bearer(token.token)).expect(200);
    await new Promise((r) => setTimeout(r, 1600));
    await b.http().get('/v1/me').set(bearer(token.token)).expect(401);
  });

  it('a role lowered on A holds on B at once', async () => {
    const member = await registerUser(a);
    const memberId = await addMember(a, owner, member, 'admin');
    const rename = (name: string) => b.http().patch(`/workspaces/${owner.workspaceId}`).set(asUser(member, owner.workspaceId)).send({ name });
    await rename('Renamed by an admin').expect(200);
    await a.http().patch(`/workspaces/${owner.workspaceId}/members/${memberId}`).set(asUser(owner)).send({ role: 'viewer' }).expect(200);
    const res = await rename('Renamed by a viewer').expect(403);
    expect(res.body.code).toBe('insufficient_scope');
    // Reads still work: they are what a viewer may do.
    await b.http().get('/projects').set(asUser(member, owner.workspaceId)).expect(200);
  });

  it('a member removed on A is refused on B at once', async () => {
    const member = await registerUser(a);
    const memberId = await addMember(a, owner, member, 'viewer');
    await b.http().get('/projects').set(asUser(member, owner.workspaceId)).expect(200);
    await a.http().delete(`/workspaces/${owner.workspaceId}/members/${memberId}`).set(asUser(owner)).expect(204);
    const res = await b.http().get('/projects').set(asUser(member, owner.workspaceId)).expect(403);
    expect(res.body.code).toBe('not_a_member');
  });

  it('a session ended on A (logout) is refused on B at once', async () => {
    const user = await registerUser(a);
    await b.http().get('/projects').set(asUser(user)).expect(200);
    await a.http().post('/auth/logout').set(bearer(user.accessToken)).send({}).expect(204);
    await b.http().get('/projects').set(asUser(user)).expect(401);
  });

  it('an accepted invitation works on B at once (a "not a member" answer is never cached)', async () => {
    const member = await registerUser(a);
    await b.http().get('/projects').set(asUser(member, owner.workspaceId)).expect(403);
    await addMember(a, owner, member, 'viewer');
    await b.http().get('/projects').set(asUser(member, owner.workspaceId)).expect(200);
  });
});
