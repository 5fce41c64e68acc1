import { startTestApp, type TestApp } from '../helpers/app';
import { addMember, asUser, bearer, createApiToken, loginUser, registerUser, type UserSession, verifyEmail } from '../helpers/identity';
import { changeUnderLock, someoneWaits } from '../helpers/row-lock';

describe('Workspaces (e2e)', () => {
  let t: TestApp;
  let alice: UserSession;
  beforeAll(async () => {
    t = await startTestApp();
    alice = await registerUser(t, { name: 'Alice' });
  });
  afterAll(() => t?.close());

  describe('POST /workspaces', () => {
    it('creates a workspace owned by the signed-in user, no X-Workspace-Id needed', async () => {
      const res = await t.http().post('/workspaces').set(bearer(alice.accessToken)).send({ name: '  Acme  ' }).expect(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^ws_[0-9a-z]{24}$/),
        name: 'Acme',
        plan: 'free',
        createdAt: expect.any(String),
        role: 'owner',
        requireTwoFactor: false,
      });
      const members = await t.http().get(`/workspaces/${res.body.id}/members`).set(bearer(alice.accessToken)).expect(200);
      expect(members.body.data).toEqual([expect.objectContaining({ userId: alice.userId, role: 'owner', status: 'active' })]);
    });

    it('answers 400 for a missing, empty or too long name, and for smuggled fields', async () => {
      expect((await t.http().post('/workspaces').set(bearer(alice.accessToken)).send({}).expect(400)).body.message).toContain('name');
      await t.http().post('/workspaces').set(bearer(alice.accessToken)).send({ name: '   ' }).expect(400);
      await t
        .http()
        .post('/workspaces')
        .set(bearer(alice.accessToken))
        .send({ name: 'x'.repeat(101) })
        .expect(400);
      for (const extra of [{ plan: 'team' }, { role: 'owner' }, { userId: 'usr_aaaaaaaaaaaaaaaaaaaaaaaa' }, { workspaceId: alice.workspaceId }]) {
        const field = Object.keys(extra)[0];
        const res = await t
          .http()
          .post('/workspaces')
          .set(bearer(alice.accessToken))
          .send({ name: 'Smuggled', ...extra })
          .expect(400);
        expect(res.body.message).toBe(`${field}: property ${field} should not exist`);
      }
      const [{ n }] = await t.dataSource.query(`SELECT count(*)::int AS n FROM workspaces WHERE name = 'Smuggled'`);
      expect(n).toBe(0);
    });
  });

  describe('GET /workspaces', () => {
    it("lists a user's active memberships with their role, paginated", async () => {
      const user = await registerUser(t);
      const other = await registerUser(t);
      await addMember(t, other, user, 'viewer');
      const pending = await registerUser(t);
      await t.http().post(`/workspaces/${pending.workspaceId}/members`).set(asUser(pending)).send({ email: user.email, role: 'admin' }).expect(201);

      const res = await t.http().get('/workspaces').set(bearer(user.accessToken)).expect(200);
      expect(res.body.meta).toEqual({ total: 2, page: 1, limit: 20, totalPages: 1 });
      expect(res.body.data.map((w: { id: string; role: string }) => [w.id, w.role])).toEqual([
        [user.workspaceId, 'owner'],
        [other.workspaceId, 'viewer'],
      ]);
      const page2 = await t.http().get('/workspaces?limit=1&page=2').set(bearer(user.accessToken)).expect(200);
      expect(page2.body).toEqual({ data: [expect.objectContaining({ id: other.workspaceId })], meta: { total: 2, page: 2, limit: 1, totalPages: 2 } });
      const past = await t.http().get('/workspaces?limit=1&page=3').set(bearer(user.accessToken)).expect(200);
      expect(past.body).toEqual({ data: [], meta: { total: 2, page: 3, limit: 1, totalPages: 2 } });
    });

    it('gives an API token its own workspace only, with no role', async () => {
      const token = await createApiToken(t, alice, { scopes: ['deploy'] });
      const res = await t.http().get('/workspaces').set(bearer(token.token)).expect(200);
      expect(res.body).toEqual({
        data: [{ id: alice.workspaceId, name: "Alice's workspace", plan: 'free', createdAt: expect.any(String), role: null, requireTwoFactor: false }],
        meta: { total: 1, page: 1, limit: 20, totalPages: 1 },
      });
    });
  });

  describe('GET /workspaces/:workspaceId', () => {
    it("returns id, name, plan, createdAt and the caller's role", async () => {
      const viewer = await registerUser(t);
      await addMember(t, alice, viewer, 'viewer');
      const res = await t.http().get(`/workspaces/${alice.workspaceId}`).set(bearer(viewer.accessToken)).expect(200);
      expect(res.body).toEqual({
        id: alice.workspaceId,
        name: expect.any(String),
        plan: 'free',
        createdAt: expect.any(String),
        role: 'viewer',
        requireTwoFactor: false,
        // The plan's limits and the usage beside them: test/billing/quotas.e2e-spec.ts.
        limits: expect.any(Object),
        usage: expect.any(Object),
      });
    });

    it('answers 404 for a workspace the caller is not in, or that does not exist', async () => {
      const stranger = await registerUser(t);
      const res = await t.http().get(`/workspaces/${alice.workspaceId}`).set(bearer(stranger.accessToken)).expect(404);
      expect(res.body).toMatchObject({ code: 'not_found', message: `Workspace ${alice.workspaceId} not found` });
      await t.http().get('/workspaces/ws_zzzzzzzzzzzzzzzzzzzzzzzz').set(bearer(stranger.accessToken)).expect(404);
      await t.http().get('/workspaces/nonsense').set(bearer(stranger.accessToken)).expect(404);
      const token = await createApiToken(t, stranger, { scopes: ['read', 'admin'] });
      await t.http().get(`/workspaces/${alice.workspaceId}`).set(bearer(token.token)).expect(404);
    });
  });

  describe('PATCH /workspaces/:workspaceId', () => {
    it('renames for an admin or an admin-scoped token', async () => {
      const owner = await registerUser(t);
      const admin = await registerUser(t);
      await addMember(t, owner, admin, 'admin');
      const res = await t.http().patch(`/workspaces/${owner.workspaceId}`).set(bearer(admin.accessToken)).send({ name: 'Renamed' }).expect(200);
      expect(res.body).toMatchObject({ id: owner.workspaceId, name: 'Renamed', role: 'admin' });
      const token = await createApiToken(t, owner, { scopes: ['admin'] });
      const byToken = await t.http().patch(`/workspaces/${owner.workspaceId}`).set(bearer(token.token)).send({ name: 'By token' }).expect(200);
      expect(byToken.body).toMatchObject({ name: 'By token', role: null });
      expect((await t.http().get(`/workspaces/${owner.workspaceId}`).set(bearer(owner.accessToken)).expect(200)).body.name).toBe('By token');
    });

    it('a rename waiting behind an owner’s policy change keeps the policy (the row is read under the lock)', async () => {
      const owner = await registerUser(t);
      const policy = await changeUnderLock(t, 'workspaces', owner.workspaceId, (c) =>
        c.query(`UPDATE workspaces SET require_two_factor = true WHERE id = $1`, [owner.workspaceId]),
      );
      const rename = t
        .http()
        .patch(`/workspaces/${owner.workspaceId}`)
        .set(asUser(owner))
        .send({ name: 'Renamed meanwhile' })
        .then((r) => r);
      await someoneWaits(t);
      await policy.commit();
      expect((await rename).body).toMatchObject({ name: 'Renamed meanwhile', requireTwoFactor: true });
    });

    it('cannot change the plan (billing does that)', async () => {
      const res = await t.http().patch(`/workspaces/${alice.workspaceId}`).set(bearer(alice.accessToken)).send({ name: 'x', plan: 'team' }).expect(400);
      expect(res.body.message).toBe('plan: property plan should not exist');
    });

    it("answers 404 for another workspace's id", async () => {
      const stranger = await registerUser(t);
      await t.http().patch(`/workspaces/${alice.workspaceId}`).set(bearer(stranger.accessToken)).send({ name: 'pwned' }).expect(404);
      const token = await createApiToken(t, stranger, { scopes: ['admin'] });
      await t.http().patch(`/workspaces/${alice.workspaceId}`).set(bearer(token.token)).send({ name: 'pwned' }).expect(404);
      const [row] = await t.dataSource.query('SELECT name FROM workspaces WHERE id = $1', [alice.workspaceId]);
      expect(row.name).not.toBe('pwned');
    });
  });

  describe('members', () => {
    let owner: UserSession;
    const members = (s: UserSession, ws = owner.workspaceId) => t.http().get(`/workspaces/${ws}/members`).set(bearer(s.accessToken));
    const invite = (s: UserSession, body: object, ws = owner.workspaceId) => t.http().post(`/workspaces/${ws}/members`).set(bearer(s.accessToken)).send(body);
    const remove = (s: UserSession, memberId: string, ws = owner.workspaceId) =>
      t.http().delete(`/workspaces/${ws}/members/${memberId}`).set(bearer(s.accessToken));
    const setRole = (s: UserSession, memberId: string, role: string, ws = owner.workspaceId) =>
      t.http().patch(`/workspaces/${ws}/members/${memberId}`).set(bearer(s.accessToken)).send({ role });
    const memberIdOf = async (user: UserSession, ws = owner.workspaceId) =>
      (await t.dataSource.query('SELECT id FROM workspace_members WHERE workspace_id = $1 AND email = $2', [ws, user.email]))[0].id as string;

    beforeEach(async () => {
      owner = await registerUser(t, { name: 'Owner' });
    });

    it('invite -> the invited person sees it -> accepts -> active member', async () => {
      const carol = await registerUser(t, { name: 'Carol' });
      await verifyEmail(t, carol);
      const invited = await invite(owner, { email: carol.email.toUpperCase(), role: 'admin' }).expect(201);
      expect(invited.body).toEqual({
        id: expect.stringMatching(/^mem_[0-9a-z]{24}$/),
        email: carol.email,
        role: 'admin',
        status: 'invited',
        invitedAt: expect.any(String),
        joinedAt: null,
        userId: null,
        // An invitation has no account yet, so no name.
        name: null,
      });

      const pending = await t.http().get('/invitations').set(bearer(carol.accessToken)).expect(200);
      expect(pending.body).toEqual({
        data: [{ ...invited.body, workspaceId: owner.workspaceId, workspaceName: "Owner's workspace" }],
        meta: { total: 1, page: 1, limit: 20, totalPages: 1 },
      });
      // Invited is not a member yet.
      await t.http().get('/access-tokens').set(asUser(carol, owner.workspaceId)).expect(403);

      const accepted = await t.http().post(`/invitations/${invited.body.id}/accept`).set(bearer(carol.accessToken)).expect(200);
      expect(accepted.body).toMatchObject({
        id: invited.body.id,
        status: 'active',
        userId: carol.userId,
        joinedAt: expect.any(String),
        workspaceId: owner.workspaceId,
        name: 'Carol',
      });
      expect((await t.http().get('/invitations').set(bearer(carol.accessToken)).expect(200)).body.data).toEqual([]);
      await t.http().get('/access-tokens').set(asUser(carol, owner.workspaceId)).expect(200);
      await t.http().post(`/invitations/${invited.body.id}/accept`).set(bearer(carol.accessToken)).expect(404);

      const list = await members(owner).expect(200);
      expect(list.body.data.map((m: { email: string; role: string; status: string }) => [m.email, m.role, m.status])).toEqual([
        [owner.email, 'owner', 'active'],
        [carol.email, 'admin', 'active'],
      ]);
    });

    it('an invitation waits for someone who registers later', async () => {
      const email = `later-${Date.now()}@example.test`;
      await invite(owner, { email, role: 'viewer' }).expect(201);
      const later = await registerUser(t, { email });
      await verifyEmail(t, later);
      const pending = await t.http().get('/invitations').set(bearer(later.accessToken)).expect(200);
      expect(pending.body.data).toHaveLength(1);
      await t.http().post(`/invitations/${pending.body.data[0].id}/accept`).set(bearer(later.accessToken)).expect(200);
      expect((await t.http().get(`/workspaces/${owner.workspaceId}`).set(bearer(later.accessToken)).expect(200)).body.role).toBe('viewer');
    });

    it("someone else's invitation is a 404, and accept takes no body", async () => {
      const dave = await registerUser(t);
      const eve = await registerUser(t);
      const invited = await invite(owner, { email: dave.email, role: 'admin' }).expect(201);
      await t.http().post(`/invitations/${invited.body.id}/accept`).set(bearer(eve.accessToken)).expect(404);
      const smuggled = await t.http().post(`/invitations/${invited.body.id}/accept`).set(bearer(dave.accessToken)).send({ role: 'owner' }).expect(400);
      expect(smuggled.body.message).toBe('role: property role should not exist');
      await t.http().post('/invitations/mem_zzzzzzzzzzzzzzzzzzzzzzzz/accept').set(bearer(dave.accessToken)).expect(404);
    });

    it('inviting an existing member or a pending invitee is 409', async () => {
      const frank = await registerUser(t);
      await invite(owner, { email: frank.email, role: 'viewer' }).expect(201);
      expect((await invite(owner, { email: frank.email, role: 'admin' }).expect(409)).body).toMatchObject({ code: 'already_member' });
      expect((await invite(owner, { email: owner.email.toUpperCase(), role: 'viewer' }).expect(409)).body.message).toContain('already a member');
    });

    it('validates the invite: email, role, and nothing else', async () => {
      expect((await invite(owner, { email: 'nope', role: 'viewer' }).expect(400)).body.message).toContain('email');
      expect((await invite(owner, { email: 'a@b.co', role: 'god' }).expect(400)).body.message).toBe('role: must be one of: owner, admin, viewer');
      for (const extra of [{ userId: owner.userId }, { status: 'active' }, { workspaceId: owner.workspaceId }]) {
        const field = Object.keys(extra)[0];
        expect((await invite(owner, { email: 'a@b.co', role: 'viewer', ...extra }).expect(400)).body.message).toBe(
          `${field}: property ${field} should not exist`,
        );
      }
    });

    it('only an owner can invite an owner', async () => {
      const admin = await registerUser(t);
      await addMember(t, owner, admin, 'admin');
      expect((await invite(admin, { email: 'x@y.co', role: 'owner' }, owner.workspaceId).expect(403)).body.code).toBe('insufficient_role');
      const token = await createApiToken(t, owner, { scopes: ['admin'] });
      await t.http().post(`/workspaces/${owner.workspaceId}/members`).set(bearer(token.token)).send({ email: 'x@y.co', role: 'owner' }).expect(403);
      await t.http().post(`/workspaces/${owner.workspaceId}/members`).set(bearer(token.token)).send({ email: 'x@y.co', role: 'viewer' }).expect(201);
      await invite(owner, { email: 'z@y.co', role: 'owner' }).expect(201);
    });

    it('the last owner cannot be removed or demoted (409); with a second owner they can', async () => {
      const ownerMember = await memberIdOf(owner);
      expect((await remove(owner, ownerMember).expect(409)).body).toMatchObject({ code: 'last_owner', message: expect.stringContaining('last owner') });
      expect((await setRole(owner, ownerMember, 'admin').expect(409)).body.code).toBe('last_owner');

      const second = await registerUser(t);
      const secondMember = await addMember(t, owner, second, 'owner');
      await setRole(owner, ownerMember, 'admin').expect(200);
      // Now `second` is the last owner.
      await remove(second, secondMember).expect(409);
      await setRole(owner, secondMember, 'viewer').expect(403);
      await setRole(second, ownerMember, 'owner').expect(200);
      await remove(owner, secondMember).expect(204);
    });

    it('two owners removing each other at once leave one owner', async () => {
      const second = await registerUser(t);
      const secondMember = await addMember(t, owner, second, 'owner');
      const ownerMember = await memberIdOf(owner);
      const results = await Promise.all([remove(owner, secondMember), remove(second, ownerMember)]);
      // Exactly one removal wins. The other is refused as the last owner's (409) when both
      // requests overlap, finds its caller already gone (404: not a member) when the winner
      // committed before it was authorised, or (403 not_a_member) when it was authorised and
      // then waited for the lock the winner held; never a second 204.
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toContain(204);
      expect(statuses.filter((s) => s === 204)).toHaveLength(1);
      expect([403, 404]).toContain(statuses.find((s) => s !== 204));
      const [{ n }] = await t.dataSource.query(
        `SELECT count(*)::int AS n FROM workspace_members WHERE workspace_id = $1 AND role = 'owner' AND status = 'active'`,
        [owner.workspaceId],
      );
      expect(n).toBe(1);
    });

    it('a member may remove themselves; removing others needs admin; owners only by owners', async () => {
      const viewer = await registerUser(t);
      const admin = await registerUser(t);
      const other = await registerUser(t);
      const viewerMember = await addMember(t, owner, viewer, 'viewer');
      const adminMember = await addMember(t, owner, admin, 'admin');
      const otherMember = await addMember(t, owner, other, 'viewer');

      expect((await remove(viewer, otherMember).expect(403)).body).toMatchObject({ code: 'insufficient_scope', missingScopes: ['admin'] });
      expect((await remove(admin, await memberIdOf(owner)).expect(403)).body.code).toBe('insufficient_role');
      await remove(admin, otherMember).expect(204);
      await remove(viewer, viewerMember).expect(204);
      await t.http().get('/access-tokens').set(asUser(viewer, owner.workspaceId)).expect(403);
      await remove(admin, adminMember).expect(204);
      expect((await members(owner).expect(200)).body.data).toHaveLength(1);
    });

    it('an admin changes admins and viewers, not owners; role changes take effect at once', async () => {
      const admin = await registerUser(t);
      const viewer = await registerUser(t);
      await addMember(t, owner, admin, 'admin');
      const viewerMember = await addMember(t, owner, viewer, 'viewer');
      await t
        .http()
        .post('/access-tokens')
        .set(asUser(viewer, owner.workspaceId))
        .send({ name: 'x', scopes: ['read'] })
        .expect(403);
      const promoted = await setRole(admin, viewerMember, 'admin').expect(200);
      expect(promoted.body).toMatchObject({ id: viewerMember, role: 'admin', status: 'active' });
      await t
        .http()
        .post('/access-tokens')
        .set(asUser(viewer, owner.workspaceId))
        .send({ name: 'x', scopes: ['read'] })
        .expect(201);
      await setRole(admin, viewerMember, 'owner').expect(403);
      await setRole(admin, await memberIdOf(owner), 'viewer').expect(403);
      expect((await setRole(admin, viewerMember, 'boss').expect(400)).body.message).toContain('role');
    });

    it("tokens die with their person's membership, and shrink with their role", async () => {
      const admin = await registerUser(t);
      const adminMember = await addMember(t, owner, admin, 'admin');
      const adminSession = { accessToken: admin.accessToken, workspaceId: owner.workspaceId };
      const readOnly = await createApiToken(t, adminSession, { scopes: ['read'] });
      const deployer = await createApiToken(t, adminSession, { scopes: ['deploy', 'read'] });
      const ownersToken = await createApiToken(t, owner, { scopes: ['deploy'] });
      // A token minted with the admin's token belongs to the admin too.
      const adminToken = await createApiToken(t, adminSession, { scopes: ['admin', 'read'] });
      const minted = await t
        .http()
        .post('/access-tokens')
        .set(bearer(adminToken.token))
        .send({ name: 'g', scopes: ['read'] })
        .expect(201);

      await setRole(owner, adminMember, 'viewer').expect(200);
      await t.http().get('/v1/me').set(bearer(readOnly.token)).expect(200);
      await t.http().get('/v1/me').set(bearer(deployer.token)).expect(401);
      await t.http().get('/v1/me').set(bearer(adminToken.token)).expect(401);
      await t.http().get('/v1/me').set(bearer(minted.body.token)).expect(200);

      await remove(owner, adminMember).expect(204);
      await t.http().get('/v1/me').set(bearer(readOnly.token)).expect(401);
      await t.http().get('/v1/me').set(bearer(minted.body.token)).expect(401);
      await t.http().get('/v1/me').set(bearer(ownersToken.token)).expect(200);
    });

    it("another workspace's ids are 404 on every member route", async () => {
      const stranger = await registerUser(t);
      const strangerMember = await memberIdOf(stranger, stranger.workspaceId);
      const ownerMember = await memberIdOf(owner);
      // The stranger's own member id through the owner's workspace path, and the owner's workspace path itself.
      await remove(owner, strangerMember).expect(404);
      await setRole(owner, strangerMember, 'viewer').expect(404);
      await members(stranger).expect(404);
      await invite(stranger, { email: 'x@y.co', role: 'viewer' }).expect(404);
      await remove(stranger, ownerMember).expect(404);
      await setRole(stranger, ownerMember, 'viewer').expect(404);
      await remove(owner, 'mem_zzzzzzzzzzzzzzzzzzzzzzzz').expect(404);
      const token = await createApiToken(t, stranger, { scopes: ['read', 'admin'] });
      await t.http().get(`/workspaces/${owner.workspaceId}/members`).set(bearer(token.token)).expect(404);
      await t.http().delete(`/workspaces/${owner.workspaceId}/members/${ownerMember}`).set(bearer(token.token)).expect(404);
      const [{ n }] = await t.dataSource.query('SELECT count(*)::int AS n FROM workspace_members WHERE id = ANY($1)', [[strangerMember, ownerMember]]);
      expect(n).toBe(2);
    });

    it('a logged-in member uses the same session across workspaces by switching X-Workspace-Id', async () => {
      const member = await registerUser(t);
      await addMember(t, owner, member, 'viewer');
      const session = await loginUser(t, member);
      await t
        .http()
        .post('/access-tokens')
        .set(asUser(session))
        .send({ name: 'own', scopes: ['admin'] })
        .expect(201);
      await t
        .http()
        .post('/access-tokens')
        .set(asUser(session, owner.workspaceId))
        .send({ name: 'theirs', scopes: ['read'] })
        .expect(403);
    });
  });
});
