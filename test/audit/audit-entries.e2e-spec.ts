import { startTestApp, type TestApp } from '../helpers/app';
import { addMember, asUser, bearer, createApiToken, registerUser, type UserSession } from '../helpers/identity';

interface Row {
  seq: number;
  action: string;
  actor_type: string;
  actor_id: string | null;
  actor_label: string;
  target_type: string | null;
  target_id: string | null;
  target_label: string | null;
  ip: string | null;
  user_agent: string | null;
  request_id: string | null;
  changes: string[];
}

/**
 * What the existing routes write to the audit log (issue 32): one entry per change, in the
 * change's own transaction, naming who (user or token), what, from which network and
 * client, and which fields, never their values. A refused or rolled-back change leaves none.
 */
describe('audit log entries of the API’s changes (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  const entries = async (workspaceId: string, action?: string): Promise<Row[]> =>
    t.dataSource.query(
      `SELECT seq::int, action, actor_type, actor_id, actor_label, target_type, target_id, target_label, ip, user_agent, request_id, changes
         FROM audit_log WHERE workspace_id = $1 AND ($2::text IS NULL OR action = $2) ORDER BY seq`,
      [workspaceId, action ?? null],
    );
  const count = async (workspaceId: string) => (await entries(workspaceId)).length;

  async function project(owner: UserSession, name = 'Audited site') {
    const res = await t.http().post('/projects').set(asUser(owner)).send({ name }).expect(201);
    return res.body as { id: string; slug: string };
  }

  it('records a revoked token with the user who revoked it, their network and client family, and the request id', async () => {
    const owner = await registerUser(t);
    const token = await createApiToken(t, owner, { scopes: ['read'], name: 'ci reader' });
    const res = await t.http().delete(`/access-tokens/${token.id}`).set(asUser(owner)).set('User-Agent', 'curl/8.5.0').expect(204);

    const [revoked] = await entries(owner.workspaceId, 'token.revoked');
    expect(revoked).toMatchObject({
      actor_type: 'user',
      actor_id: owner.userId,
      actor_label: owner.email,
      target_type: 'token',
      target_id: token.id,
      target_label: 'ci reader',
      ip: '127.0.0.0/24',
      user_agent: 'curl',
      request_id: res.headers['x-request-id'],
    });
    expect((await entries(owner.workspaceId, 'token.created'))[0]).toMatchObject({ target_id: token.id, changes: ['name', 'scopes'] });
  });

  it('records a member removed, by email, and nothing for a removal refused (the last owner)', async () => {
    const owner = await registerUser(t);
    const member = await registerUser(t);
    const memberId = await addMember(t, owner, member, 'viewer');
    expect((await entries(owner.workspaceId)).map((e) => e.action)).toEqual(['workspace.created', 'member.invited', 'member.joined']);

    await t.http().delete(`/workspaces/${owner.workspaceId}/members/${memberId}`).set(asUser(owner)).expect(204);
    const [removed] = await entries(owner.workspaceId, 'member.removed');
    expect(removed).toMatchObject({ actor_id: owner.userId, target_type: 'member', target_id: memberId, target_label: member.email });

    const before = await count(owner.workspaceId);
    const [{ id: ownerMemberId }] = await t.dataSource.query('SELECT id FROM workspace_members WHERE workspace_id = $1 AND user_id = $2', [
      owner.workspaceId,
      owner.userId,
    ]);
    const refused = await t.http().delete(`/workspaces/${owner.workspaceId}/members/${ownerMemberId}`).set(asUser(owner));
    expect([refused.status, refused.body.code]).toEqual([409, 'last_owner']);
    expect(await count(owner.workspaceId)).toBe(before);
  });

  it('records a deployment made by a project-bound API token as the token, named', async () => {
    const owner = await registerUser(t);
    const site = await project(owner);
    const token = await createApiToken(t, owner, { scopes: ['deploy'], projectId: site.id, name: 'release pipeline' });
    const res = await t
      .http()
      .post(`/projects/${site.id}/deployments`)
      .set(bearer(token.token))
      .send({ files: [{ path: 'index.html', content: '<h1>v1</h1>' }] })
      .expect(201);

    const [deployed] = await entries(owner.workspaceId, 'deployment.created');
    expect(deployed).toMatchObject({
      actor_type: 'token',
      actor_id: token.id,
      actor_label: 'release pipeline',
      target_type: 'deployment',
      target_id: res.body.id,
      target_label: `${site.slug} v1`,
    });
  });

  it('records a build variable set by its name, never its value', async () => {
    const owner = await registerUser(t);
    const site = await project(owner);
    const value = 'sk_live_do_not_log_me_4242';
    await t
      .http()
      .put(`/projects/${site.id}/env/STRIPE_KEY`)
      .set(asUser(owner))
      .send({ value, targets: ['production'] })
      .expect(200);

    const [set] = await entries(owner.workspaceId, 'env_var.set');
    expect(set).toMatchObject({ target_type: 'env_var', target_id: site.id, target_label: 'STRIPE_KEY', changes: ['targets', 'value'] });
    const [raw] = await t.dataSource.query('SELECT row_to_json(a)::text AS text FROM audit_log a WHERE workspace_id = $1 AND action = $2', [
      owner.workspaceId,
      'env_var.set',
    ]);
    expect(raw.text).not.toContain(value);
  });

  it('records a PATCH’s changed field names, not the values (a gate password included)', async () => {
    const owner = await registerUser(t);
    const site = await project(owner);
    await t
      .http()
      .patch(`/projects/${site.id}`)
      .set(asUser(owner))
      .send({ name: 'Renamed', gate_type: 'password', password: 'hunter2-gate-secret' })
      .expect(200);

    const [updated] = await entries(owner.workspaceId, 'project.updated');
    expect(updated).toMatchObject({ target_type: 'project', target_id: site.id, changes: ['gate_type', 'name', 'password'] });
    const [raw] = await t.dataSource.query('SELECT row_to_json(a)::text AS text FROM audit_log a WHERE workspace_id = $1', [owner.workspaceId]);
    expect(raw.text).not.toContain('hunter2');
  });

  it('writes nothing when a change is refused (403) or rolls back after the entry was written (409)', async () => {
    const owner = await registerUser(t);
    const other = await registerUser(t);
    const first = await project(owner, 'First');
    const second = await project(owner, 'Second');
    const theirs = await project(other, 'Theirs');
    await t.http().patch(`/projects/${first.id}`).set(asUser(owner)).send({ custom_domain: 'audit-taken.example.com' }).expect(200);
    // Verified (its DNS published the token): the name is the first project's alone now.
    await t.dataSource.query(`UPDATE projects SET domain_status = 'verified', domain_verified_at = now() WHERE id = $1`, [first.id]);
    const before = await count(owner.workspaceId);

    // Refused in the service: a token cannot grant a scope it does not hold.
    const reader = await createApiToken(t, owner, { scopes: ['read', 'admin'], name: 'limited' });
    const afterToken = await count(owner.workspaceId);
    expect(afterToken).toBe(before + 1);
    const refused = await t
      .http()
      .post('/access-tokens')
      .set(bearer(reader.token))
      .send({ name: 'escalate', scopes: ['delete'] });
    expect([refused.status, refused.body.code]).toEqual([403, 'insufficient_scope']);
    // Refused by the guard: another workspace's project is a 404, and the other log is untouched too.
    await t.http().delete(`/projects/${theirs.id}`).set(asUser(owner)).expect(404);
    // The entry is written before the domain is found verified elsewhere: the rollback takes both.
    const taken = await t.http().patch(`/projects/${second.id}`).set(asUser(owner)).send({ custom_domain: 'audit-taken.example.com' });
    expect([taken.status, taken.body.code]).toEqual([409, 'domain_taken']);

    expect(await count(owner.workspaceId)).toBe(afterToken);
    expect((await entries(other.workspaceId)).map((e) => e.action)).toEqual(['workspace.created', 'project.created']);
  });

  it('records a project deleted, and keeps each workspace’s chain whole', async () => {
    const owner = await registerUser(t);
    const site = await project(owner, 'Doomed');
    await t.http().delete(`/projects/${site.id}`).set(asUser(owner)).expect(204);
    expect((await entries(owner.workspaceId, 'project.deleted'))[0]).toMatchObject({ target_id: site.id, target_label: 'Doomed', actor_id: owner.userId });

    const broken = await t.dataSource.query(
      `SELECT workspace_id, seq FROM audit_log
        WHERE hash <> audit_entry_hash(prev_hash, id, workspace_id, seq, at, actor_type, actor_id, actor_label, action, target_type,
                                       target_id, target_label, ip, user_agent, request_id, changes)`,
    );
    expect(broken).toEqual([]);
  });
});
