import { startTestApp, type TestApp } from './helpers/app';
import { asUser, bearer, createApiToken, registerUser } from './helpers/identity';

/**
 * Every route of the OpenAPI document, called with malformed ids, bodies and
 * queries by both kinds of credential: whatever is wrong, the answer is a 4xx with
 * the error body, never a 5xx.
 */
describe('No route answers bad input with a 5xx (e2e)', () => {
  let t: TestApp;
  let headerSets: Record<string, string>[];
  let session: Awaited<ReturnType<typeof registerUser>>;
  let token: string;
  let paths: Record<string, Record<string, unknown>>;

  beforeAll(async () => {
    t = await startTestApp();
    session = await registerUser(t);
    ({ token } = await createApiToken(t, session, { scopes: ['deploy', 'read', 'delete', 'admin'] }));
    headerSets = [asUser(session), bearer(token)];
    paths = (await t.http().get('/docs/openapi.json').expect(200)).body.paths;
  });
  afterAll(() => t.close());

  const ids = ['x', 'proj_doesnotexist', `proj_${'a'.repeat(300)}`, '%00', '%E9', "'; DROP TABLE projects; --", '0'];
  const nul = 'a\u0000b';
  const bodies: unknown[] = [
    {},
    [],
    { a: { b: [1, null] } },
    { name: 42, files: 'x', workspaceId: [], email: {}, password: null, page: -1 },
    'null',
    '"text"',
    {
      name: nul,
      slug: nul,
      email: `${nul}@x.io`,
      password: `${nul}passwordpassword`,
      project_slug: nul,
      scopes: [nul],
      role: nul,
      workspaceId: nul,
      custom_domain: nul,
      paymentMethodToken: nul,
      tier: nul,
      interval: nul,
      refreshToken: nul,
      ttl: nul,
      default_ttl: nul,
      files: [{ path: nul, content: 'x' }],
    },
  ];
  const queries = ['', '?page=0', '?limit=1e9', '?page=abc&limit=-5', '?search=%25%5F%5C%27', '?projectId=x&workspaceId=%00', '?search=a%00b&projectId=%00'];

  it('answers 4xx (or 2xx) for every route, credential and malformed input', async () => {
    const failures: string[] = [];
    for (const [path, methods] of Object.entries(paths)) {
      for (const method of Object.keys(methods)) {
        for (const id of ids) {
          const url = path.replace(/\{[^}]+\}/g, id);
          for (const headers of headerSets) {
            for (const [i, body] of bodies.entries()) {
              const query = queries[i % queries.length];
              const req = (t.http() as unknown as Record<string, (u: string) => import('supertest').Test>)[method](`${url}${query}`).set(headers);
              const res = typeof body === 'string' ? await req.set('Content-Type', 'application/json').send(body) : await req.send(body as object);
              if (res.status >= 500)
                failures.push(`${method.toUpperCase()} ${url}${query} ${JSON.stringify(body)} → ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
              else if (res.status >= 400) expect(res.body).toMatchObject({ statusCode: res.status, message: expect.any(String), code: expect.any(String) });
            }
          }
        }
      }
    }
    expect(failures).toEqual([]);
  }, 240_000);

  // PostgreSQL text cannot hold NUL: every field that reaches it is refused up front, by name.
  it('refuses a NUL character in any stored field with a 400 naming it', async () => {
    const N = 'a\u0000b';
    // The sweep above may have logged the first session out: start a fresh one.
    session = await registerUser(t);
    ({ token } = await createApiToken(t, session, { scopes: ['deploy'] }));
    const project = (await t.http().post('/projects').set(asUser(session)).send({ name: 'nul target' }).expect(201)).body.id;
    const calls: [string, string, object, string][] = [
      ['post', '/auth/register', { email: 'nul@example.com', password: 'password123', name: N }, 'name'],
      ['post', '/auth/login', { email: `${N}@x.io`, password: 'password123' }, 'email'],
      ['post', '/projects', { name: N }, 'name'],
      ['post', '/workspaces', { name: N }, 'name'],
      ['patch', `/workspaces/${session.workspaceId}`, { name: N }, 'name'],
      ['post', '/access-tokens', { name: N, scopes: ['read'] }, 'name'],
      ['patch', `/projects/${project}`, { name: N }, 'name'],
      ['patch', `/projects/${project}`, { password: `${N}long enough` }, 'password'],
      ['get', `/projects/${project}/gate/leads?search=${encodeURIComponent(N)}`, {}, 'search'],
      ['get', `/projects/${encodeURIComponent(N)}`, {}, 'projectId'],
    ];
    for (const [method, url, body, field] of calls) {
      const res = await (t.http() as unknown as Record<string, (u: string) => import('supertest').Test>)[method](url).set(asUser(session)).send(body);
      expect([url, res.status, res.body.message]).toEqual([url, 400, `${field}: must not contain a NUL character`]);
    }
    // A deployed file's bytes may hold NUL: they go to the object store, not to a text column.
    await t
      .http()
      .post('/v1/deployments')
      .set(bearer(token))
      .send({ project_slug: 'nul-bytes', files: [{ path: 'a.txt', content: N }] })
      .expect(201);
  });
});
