import { startTestApp, type TestApp } from '../helpers/app';
import { asUser, createApiToken, registerUser, type UserSession } from '../helpers/identity';

type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';
type Agent = Record<Method, (url: string) => import('supertest').Test>;

/**
 * Inputs that probing found answered with a 500: each must be a 400 whose message
 * names the field at fault.
 */
describe('Malformed input is a 400 naming the field (e2e)', () => {
  let t: TestApp;
  let owner: UserSession;
  let projectId: string;
  let formId: string;
  let webhookId: string;

  beforeAll(async () => {
    // Private addresses allowed: the webhook below points at loopback (nothing is sent to it).
    t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' } });
    owner = await registerUser(t);
    projectId = (await t.http().post('/projects').set(asUser(owner)).send({ name: 'faults' }).expect(201)).body.id;
    // A deployment that declares a form, so the routes under a form have a real one.
    await t
      .http()
      .post(`/projects/${projectId}/deployments`)
      .set(asUser(owner))
      .send({ files: [{ path: 'index.html', content: '<form data-statichost-form="contact"><input name="email"></form>' }] })
      .expect(201);
    formId = (await t.http().get(`/projects/${projectId}/forms`).set(asUser(owner)).expect(200)).body.data[0].id;
    webhookId = (
      await t
        .http()
        .post('/webhooks')
        .set(asUser(owner))
        .send({ url: 'http://127.0.0.1:9/hook', events: ['*'] })
        .expect(201)
    ).body.id;
  });
  afterAll(() => t.close());

  const agent = () => t.http() as unknown as Agent;

  describe('page numbers past what a query can skip', () => {
    /** Every GET route of the OpenAPI document that takes `page`, with real ids filled in. */
    async function listRoutes(): Promise<string[]> {
      const paths = (await t.http().get('/docs/openapi.json').expect(200)).body.paths as Record<
        string,
        Record<string, { parameters?: { name: string; in: string; required?: boolean }[] }>
      >;
      const routes: string[] = [];
      for (const [path, methods] of Object.entries(paths)) {
        const params = methods.get?.parameters ?? [];
        if (!params.some((p) => p.in === 'query' && p.name === 'page')) continue;
        // A required workspaceId query (billing) gets the caller's own workspace.
        const query = params.some((p) => p.in === 'query' && p.name === 'workspaceId' && p.required) ? `?workspaceId=${owner.workspaceId}&` : '?';
        routes.push(
          path.replace('{projectId}', projectId).replace('{workspaceId}', owner.workspaceId).replace('{formId}', formId).replace('{webhookId}', webhookId) +
            query,
        );
      }
      return routes;
    }

    it('finds every list route in the OpenAPI document', async () => {
      const routes = await listRoutes();
      // Adding a list route? It joins the sweep below by itself; this only guards the discovery.
      expect(routes.length).toBeGreaterThanOrEqual(9);
      for (const r of routes) expect(r).not.toMatch(/\{/);
    });

    it.each(['1e308', '99999999999999999999', '9007199254740993', '2147483648', '1.5', 'Infinity'])('page=%s → 400 naming page on every list', async (page) => {
      const results: string[] = [];
      for (const route of await listRoutes()) {
        const res = await t.http().get(`${route}page=${page}`).set(asUser(owner));
        results.push(`${route} ${res.status} ${res.status === 400 ? /\bpage\b/.test(res.body.message) : res.body.message}`);
      }
      expect(results).toEqual((await listRoutes()).map((r) => `${r} 400 true`));
    });

    it('still serves the largest page allowed (empty)', async () => {
      for (const route of await listRoutes()) {
        const res = await t.http().get(`${route}page=2147483647&limit=100`).set(asUser(owner));
        expect([route, res.status, res.body.data]).toEqual([route, 200, []]);
      }
    });
  });

  describe('a NUL character as :workspaceId, which the guard reads before any pipe', () => {
    const routes: [Method, string, object][] = [
      ['get', '/workspaces/%00', {}],
      ['patch', '/workspaces/%00', { name: 'x' }],
      ['get', '/workspaces/%00/members', {}],
      ['post', '/workspaces/%00/members', { email: 'a@example.com', role: 'viewer' }],
      ['patch', '/workspaces/%00/members/mem_x', { role: 'viewer' }],
      ['delete', '/workspaces/%00/members/mem_x', {}],
      ['get', '/workspaces/a%00b', {}],
    ];
    it.each(routes)('%s %s → 400 workspaceId', async (method, url, body) => {
      // With the JWT alone (no X-Workspace-Id): the path is where the workspace comes from.
      const res = await agent()[method](url).set('Authorization', `Bearer ${owner.accessToken}`).send(body);
      expect([res.status, res.body.message]).toEqual([400, 'workspaceId: must not contain a NUL character']);
    });

    it('answers an API token the same', async () => {
      const { token } = await createApiToken(t, owner, { scopes: ['admin', 'read'] });
      const res = await t.http().get('/workspaces/%00/members').set('Authorization', `Bearer ${token}`);
      expect([res.status, res.body.message]).toEqual([400, 'workspaceId: must not contain a NUL character']);
    });
  });

  describe('null for a field PATCH /projects/:id cannot clear', () => {
    it.each(['name', 'password', 'gate_type', 'default_ttl'])('{"%s": null} → 400 naming it', async (field) => {
      const res = await t
        .http()
        .patch(`/projects/${projectId}`)
        .set(asUser(owner))
        .send({ [field]: null });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(new RegExp(`^${field}: `));
    });

    it('still detaches a custom domain with null', async () => {
      await t.http().patch(`/projects/${projectId}`).set(asUser(owner)).send({ custom_domain: null }).expect(200);
    });
  });

  describe('an email holding a lone surrogate (not encodable as UTF-8)', () => {
    const emails = ['\ud800@x.io', 'a\udc00b@x.io', 'ann@x\ud800.io'];
    it.each(emails)('register %j → 400 email', async (email) => {
      const res = await t.http().post('/auth/register').send({ email, password: 'password123', name: 'Ann' });
      expect([res.status, res.body.message]).toEqual([400, expect.stringMatching(/^email: /)]);
    });

    it.each(emails)('login %j → 401 (never a 500)', async (email) => {
      const res = await t.http().post('/auth/login').send({ email, password: 'password123' });
      expect([400, 401]).toContain(res.status);
    });

    it.each(emails)('invite %j → 400 email', async (email) => {
      const res = await t.http().post(`/workspaces/${owner.workspaceId}/members`).set(asUser(owner)).send({ email, role: 'viewer' });
      expect([res.status, res.body.message]).toEqual([400, expect.stringMatching(/^email: /)]);
    });
  });
});
