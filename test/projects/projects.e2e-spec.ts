import { startTestApp, type TestApp } from '../helpers/app';
import { asUser, bearer, createApiToken, registerUser } from '../helpers/identity';

type Session = Awaited<ReturnType<typeof registerUser>>;

describe('Projects (e2e)', () => {
  let t: TestApp;
  let alice: Session;
  let bob: Session;

  beforeAll(async () => {
    t = await startTestApp();
    alice = await registerUser(t);
    bob = await registerUser(t);
  });
  afterAll(() => t.close());

  const create = (body: object, session: Session = alice) => t.http().post('/projects').set(asUser(session)).send(body);

  describe('POST /projects', () => {
    it('creates from a name alone and answers exactly the spec’s fields', async () => {
      const res = await create({ name: 'Marketing Site' }).expect(201);
      expect(Object.keys(res.body).sort()).toEqual(['createdAt', 'default_ttl', 'id', 'name', 'slug', 'type', 'workspaceId']);
      expect(res.body).toMatchObject({
        name: 'Marketing Site',
        slug: 'marketing-site',
        type: 'static_file',
        default_ttl: '7d',
        workspaceId: alice.workspaceId,
      });
      expect(res.body.id).toMatch(/^proj_[0-9a-z]{24}$/);
      expect(res.body.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    });

    it('adds a short suffix when the derived slug is taken, and 409 for a taken explicit slug', async () => {
      const first = await create({ name: 'Docs Portal' }).expect(201);
      const second = await create({ name: 'Docs Portal' }).expect(201);
      expect(first.body.slug).toBe('docs-portal');
      expect(second.body.slug).toMatch(/^docs-portal-[a-z0-9]{6}$/);
      const taken = await create({ name: 'x', slug: 'docs-portal' }, bob).expect(409);
      expect(taken.body).toMatchObject({ statusCode: 409, code: 'slug_taken' });
      expect(taken.body.message).toContain('docs-portal');
    });

    it.each([
      ['Upper', 'slug'],
      ['-dash', 'slug'],
      ['a'.repeat(64), 'slug'],
      ['api', 'reserved'],
      ['www', 'reserved'],
      ['xn--abc', 'slug'],
      ['ab', 'slug'],
    ])('refuses slug %j with 400', async (slug) => {
      const res = await create({ name: 'x', slug }).expect(400);
      expect(res.body.message).toMatch(/^slug: /);
    });

    it.each([['0d'], ['7'], ['1w'], ['-1d'], ['1.5d'], ['']])('refuses default_ttl %j', async (ttl) => {
      const res = await create({ name: 'x', default_ttl: ttl }).expect(400);
      expect(res.body.message).toContain('default_ttl');
    });

    it('accepts every TTL form', async () => {
      for (const ttl of ['12h', '30d', 'forever']) {
        expect((await create({ name: `ttl ${ttl}`, default_ttl: ttl }).expect(201)).body.default_ttl).toBe(ttl);
      }
    });

    it('requires a password of 8+ characters with gate_type password, and never returns it', async () => {
      expect((await create({ name: 'g', gate_type: 'password' }).expect(400)).body.message).toContain('password');
      expect((await create({ name: 'g', gate_type: 'password', password: 'short' }).expect(400)).body.message).toContain('at least 8');
      const ok = await create({ name: 'gated', gate_type: 'password', password: 'long enough secret' }).expect(201);
      const got = await t.http().get(`/projects/${ok.body.id}`).set(asUser(alice)).expect(200);
      expect(got.body.gate_type).toBe('password');
      expect(JSON.stringify(got.body)).not.toContain('long enough secret');
      expect(got.body).not.toHaveProperty('password');
      expect(got.body).not.toHaveProperty('password_hash');
      const [row] = await t.dataSource.query('SELECT password_hash FROM projects WHERE id = $1', [ok.body.id]);
      expect(row.password_hash).toMatch(/^scrypt\$/);
      expect(row.password_hash).not.toContain('long enough secret');
    });

    it('refuses unknown fields and bad types, naming them', async () => {
      expect((await create({ name: 'x', workspaceId: bob.workspaceId }).expect(400)).body.message).toContain('workspaceId');
      expect((await create({ name: 'x', type: 'docker' }).expect(400)).body.message).toContain('type');
      expect((await create({}).expect(400)).body.message).toContain('name');
    });

    it('needs the admin scope: a read-only token gets 403, an admin token 201', async () => {
      const read = await createApiToken(t, alice, { scopes: ['read'] });
      expect((await t.http().post('/projects').set(bearer(read.token)).send({ name: 'nope' })).status).toBe(403);
      const admin = await createApiToken(t, alice, { scopes: ['admin'] });
      const res = await t.http().post('/projects').set(bearer(admin.token)).send({ name: 'by token' }).expect(201);
      expect(res.body.workspaceId).toBe(alice.workspaceId);
    });
  });

  describe('GET /projects and /projects/:id', () => {
    it('lists the caller’s workspace only, in the paginated envelope, newest first', async () => {
      await create({ name: 'bob only' }, bob).expect(201);
      const res = await t.http().get('/projects?limit=2').set(asUser(alice)).expect(200);
      expect(res.body.meta).toMatchObject({ page: 1, limit: 2 });
      expect(res.body.meta.total).toBeGreaterThan(2);
      expect(res.body.data).toHaveLength(2);
      expect(res.body.data[0].createdAt >= res.body.data[1].createdAt).toBe(true);
      for (const p of res.body.data) expect(p.workspaceId).toBe(alice.workspaceId);
      expect(Object.keys(res.body.data[0]).sort()).toEqual(
        [
          'createdAt',
          'custom_domain',
          'default_ttl',
          'domainRecords',
          'domainStatus',
          'domainVerifiedAt',
          'gate_type',
          'id',
          'liveCreatedAt',
          'liveDeploymentId',
          'liveSizeBytes',
          'liveVersion',
          'name',
          'slug',
          'type',
          'updatedAt',
          'url',
          'workspaceId',
        ].sort(),
      );
      expect(res.body.data[0].url).toBe(`http://${res.body.data[0].slug}.localhost:${t.config.PORT}`);

      // A page past the end still says how many there are.
      const past = await t.http().get('/projects?limit=2&page=1000').set(asUser(alice)).expect(200);
      expect(past.body).toEqual({ data: [], meta: { ...res.body.meta, page: 1000 } });
    });

    it('gives each project its live deployment’s version and size (the dashboard’s list), null before the first', async () => {
      const created = await create({ name: 'with live summary' }).expect(201);
      const id = created.body.id;
      const listed = async () => (await t.http().get('/projects?limit=100').set(asUser(alice)).expect(200)).body.data.find((p: { id: string }) => p.id === id);
      expect(await listed()).toMatchObject({ liveDeploymentId: null, liveVersion: null, liveSizeBytes: null });
      const deploy = (content: string) =>
        t
          .http()
          .post(`/projects/${id}/deployments`)
          .set(asUser(alice))
          .send({ type: 'static_file', files: [{ path: 'index.html', content }] })
          .expect(201);
      await deploy('12345');
      const second = await deploy('1234567890');
      expect(await listed()).toMatchObject({ liveDeploymentId: second.body.id, liveVersion: 2, liveSizeBytes: 10 });
      expect((await t.http().get(`/projects/${id}`).set(asUser(alice)).expect(200)).body).toMatchObject({ liveVersion: 2, liveSizeBytes: 10 });
    });

    it('answers 400 naming a bad page or limit', async () => {
      expect((await t.http().get('/projects?page=0').set(asUser(alice)).expect(400)).body.message).toContain('page');
      expect((await t.http().get('/projects?limit=101').set(asUser(alice)).expect(400)).body.message).toContain('limit');
      expect((await t.http().get('/projects?limit=abc').set(asUser(alice)).expect(400)).body.message).toContain('limit');
    });

    it('hides another workspace’s project behind a 404 on every id route', async () => {
      const theirs = await create({ name: 'private' }, bob).expect(201);
      const id = theirs.body.id;
      await t.http().get(`/projects/${id}`).set(asUser(alice)).expect(404);
      await t.http().patch(`/projects/${id}`).set(asUser(alice)).send({ name: 'pwned' }).expect(404);
      await t.http().delete(`/projects/${id}`).set(asUser(alice)).expect(404);
      await t.http().get(`/projects/${id}/deployments`).set(asUser(alice)).expect(404);
      await t.http().get(`/projects/proj_doesnotexist`).set(asUser(alice)).expect(404);
      expect((await t.http().get(`/projects/${id}`).set(asUser(bob)).expect(200)).body.name).toBe('private');
    });

    it('shows a project-bound token its own project alone', async () => {
      const mine = await create({ name: 'bound target' }).expect(201);
      const other = await create({ name: 'not for token' }).expect(201);
      const bound = await createApiToken(t, alice, { scopes: ['read', 'admin'], projectId: mine.body.id });
      const list = await t.http().get('/projects').set(bearer(bound.token)).expect(200);
      expect(list.body.data.map((p: { id: string }) => p.id)).toEqual([mine.body.id]);
      await t.http().get(`/projects/${other.body.id}`).set(bearer(bound.token)).expect(404);
      await t.http().post('/projects').set(bearer(bound.token)).send({ name: 'x' }).expect(403);
    });
  });

  describe('PATCH /projects/:id', () => {
    it('updates name and default_ttl and bumps updatedAt', async () => {
      const p = await create({ name: 'before' }).expect(201);
      const res = await t.http().patch(`/projects/${p.body.id}`).set(asUser(alice)).send({ name: 'after', default_ttl: '30d' }).expect(200);
      expect(res.body).toMatchObject({ name: 'after', default_ttl: '30d', slug: p.body.slug });
      expect(res.body.updatedAt >= p.body.createdAt).toBe(true);
    });

    it('requires a password to turn the password gate on, and keeps it across gate changes', async () => {
      const p = await create({ name: 'gate cycle' }).expect(201);
      const url = `/projects/${p.body.id}`;
      const missing = await t.http().patch(url).set(asUser(alice)).send({ gate_type: 'password' }).expect(400);
      expect(missing.body.message).toContain('password');
      await t.http().patch(url).set(asUser(alice)).send({ gate_type: 'password', password: 'first password' }).expect(200);
      await t.http().patch(url).set(asUser(alice)).send({ gate_type: 'none' }).expect(200);
      const back = await t.http().patch(url).set(asUser(alice)).send({ gate_type: 'password' }).expect(200);
      expect(back.body.gate_type).toBe('password');
      const [row] = await t.dataSource.query('SELECT gate_version FROM projects WHERE id = $1', [p.body.id]);
      expect(row.gate_version).toBe(4);
    });

    it('refuses a bad ttl, an unknown gate type and unknown fields', async () => {
      const p = await create({ name: 'strict' }).expect(201);
      const url = `/projects/${p.body.id}`;
      await t.http().patch(url).set(asUser(alice)).send({ default_ttl: 'soon' }).expect(400);
      await t.http().patch(url).set(asUser(alice)).send({ gate_type: 'oauth' }).expect(400);
      await t.http().patch(url).set(asUser(alice)).send({ slug: 'new-slug' }).expect(400);
      const after = await t.http().get(url).set(asUser(alice)).expect(200);
      expect(after.body).toMatchObject({ default_ttl: '7d', gate_type: 'none', slug: p.body.slug });
    });
  });

  describe('DELETE /projects/:id', () => {
    it('answers 204, removes its deployments and frees the slug', async () => {
      const p = await create({ name: 'doomed', slug: 'doomed-site' }).expect(201);
      const deployer = await createApiToken(t, alice, { scopes: ['deploy'] });
      await t
        .http()
        .post('/v1/deployments')
        .set(bearer(deployer.token))
        .send({ project_slug: 'doomed-site', files: [{ path: 'index.html', content: 'hi' }] })
        .expect(201);
      await t.http().delete(`/projects/${p.body.id}`).set(asUser(alice)).expect(204);
      await t.http().get(`/projects/${p.body.id}`).set(asUser(alice)).expect(404);
      const [{ n }] = await t.dataSource.query('SELECT count(*)::int AS n FROM deployments WHERE project_id = $1', [p.body.id]);
      expect(n).toBe(0);
      await create({ name: 'reborn', slug: 'doomed-site' }, bob).expect(201);
    });

    it('revokes the tokens bound to a deleted project', async () => {
      const p = await create({ name: 'with bound token' }).expect(201);
      const bound = await createApiToken(t, alice, { scopes: ['read'], projectId: p.body.id });
      await t.http().get(`/projects/${p.body.id}`).set(bearer(bound.token)).expect(200);
      await t.http().delete(`/projects/${p.body.id}`).set(asUser(alice)).expect(204);
      await t.http().get('/projects').set(bearer(bound.token)).expect(401);
    });

    it('needs the delete scope', async () => {
      const p = await create({ name: 'kept' }).expect(201);
      const read = await createApiToken(t, alice, { scopes: ['read', 'deploy'] });
      await t.http().delete(`/projects/${p.body.id}`).set(bearer(read.token)).expect(403);
      const del = await createApiToken(t, alice, { scopes: ['delete'] });
      await t.http().delete(`/projects/${p.body.id}`).set(bearer(del.token)).expect(204);
    });
  });
});
