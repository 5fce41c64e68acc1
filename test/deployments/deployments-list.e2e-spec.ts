import { startTestApp, type TestApp } from '../helpers/app';
import { asUser, bearer, createApiToken, registerUser } from '../helpers/identity';
import type { ListPage } from '../helpers/list-page';
import { deploySite } from '../helpers/sites';

type Session = Awaited<ReturnType<typeof registerUser>>;
interface Listed {
  id: string;
  projectId: string;
  version: number;
  status: string;
  createdBy: string;
}
type Page = ListPage<Listed>;

/**
 * GET /projects/:projectId/deployments?status=&search= — a deployment history narrowed on
 * the server: by status as the list shows it, by version (`12`, `v12`), by deployment id
 * or its start, by who deployed; the total and pages count only what matches.
 */
describe('GET /projects/:id/deployments: status and search (e2e)', () => {
  let t: TestApp;
  let alice: Session;
  let bob: Session;
  let projectId: string;
  let otherProjectId: string;
  let bobProjectId: string;
  /** Alice's "handbook" deployments by version, v1 … v12. */
  const byVersion: Record<number, { id: string }> = {};
  let ciTokenId: string;

  const list = async (query: string, session: Session = alice, id = projectId): Promise<Page> =>
    (await t.http().get(`/projects/${id}/deployments?${query}`).set(asUser(session)).expect(200)).body;
  const versions = (page: Page) => page.data.map((d) => d.version);

  beforeAll(async () => {
    t = await startTestApp();
    alice = await registerUser(t);
    bob = await registerUser(t);
    const deployer = await createApiToken(t, alice, { scopes: ['deploy'], name: 'laptop' });
    const ci = await createApiToken(t, alice, { scopes: ['deploy'], name: 'ci' });
    ciTokenId = ci.id;
    // Twelve versions of "handbook": v1–v9 from the laptop, v10–v12 from CI; v12 is live.
    for (let v = 1; v <= 12; v++) {
      const body = await deploySite(t, v <= 9 ? deployer.token : ci.token, 'handbook', [{ path: 'index.html', content: `handbook ${v}` }]);
      byVersion[body.version] = { id: body.id };
    }
    projectId = (await t.dataSource.query(`SELECT project_id FROM deployments WHERE id = $1`, [byVersion[1].id]))[0].project_id;
    // v1 and v2 marked expired by the sweeper; v3 past its time but not yet swept: expired all the same.
    await t.dataSource.query(`UPDATE deployments SET status = 'expired' WHERE id = ANY($1)`, [[byVersion[1].id, byVersion[2].id]]);
    await t.dataSource.query(`UPDATE deployments SET expires_at = now() - interval '1 minute' WHERE id = $1`, [byVersion[3].id]);

    // Another project of Alice's and one of Bob's, each with deployments that match every search below by version.
    for (let v = 1; v <= 12; v++) await deploySite(t, deployer.token, 'journal', [{ path: 'index.html', content: `journal ${v}` }]);
    otherProjectId = await projectIdOf(alice, 'journal');
    const bobToken = (await createApiToken(t, bob, { scopes: ['deploy'] })).token;
    for (let v = 1; v <= 12; v++) await deploySite(t, bobToken, `bob-docs-${bob.workspaceId.slice(-6)}`, [{ path: 'index.html', content: `bob ${v}` }]);
    bobProjectId = (await t.http().get('/projects').set(asUser(bob)).expect(200)).body.data[0].id;
  });
  afterAll(() => t.close());

  async function projectIdOf(session: Session, slug: string): Promise<string> {
    const projects: { id: string; slug: string }[] = (await t.http().get('/projects?limit=100').set(asUser(session)).expect(200)).body.data;
    return projects.find((p) => p.slug === slug)!.id;
  }

  it('lists newest first with the whole total when nothing narrows it', async () => {
    const page = await list('limit=5');
    expect(versions(page)).toEqual([12, 11, 10, 9, 8]);
    expect(page.meta).toEqual({ total: 12, page: 1, limit: 5, totalPages: 3 });
  });

  describe('status', () => {
    it('live: the one live deployment', async () => {
      const page = await list('status=live');
      expect(versions(page)).toEqual([12]);
      expect(page.data[0].status).toBe('live');
    });

    it('archived: the replaced ones, not those past their time', async () => {
      const page = await list('status=archived');
      expect(versions(page)).toEqual([11, 10, 9, 8, 7, 6, 5, 4]);
      expect(page.data.every((d) => d.status === 'archived')).toBe(true);
    });

    it('expired: those the sweeper marked and those past their time it has not reached yet', async () => {
      const page = await list('status=expired');
      expect(versions(page)).toEqual([3, 2, 1]);
      expect(page.data.every((d) => d.status === 'expired')).toBe(true);
    });

    it('counts only what matches in the total and the pages', async () => {
      const first = await list('status=archived&limit=3');
      expect(versions(first)).toEqual([11, 10, 9]);
      expect(first.meta).toEqual({ total: 8, page: 1, limit: 3, totalPages: 3 });
      const last = await list('status=archived&limit=3&page=3');
      expect(versions(last)).toEqual([5, 4]);
      expect(last.meta).toEqual({ total: 8, page: 3, limit: 3, totalPages: 3 });
      expect(await list('status=archived&limit=3&page=4')).toEqual({ data: [], meta: { total: 8, page: 4, limit: 3, totalPages: 3 } });
    });
  });

  describe('search', () => {
    it('finds a version by its number', async () => {
      expect(versions(await list('search=12'))).toEqual([12]);
      expect(versions(await list('search=1'))).toEqual([1]);
    });

    it('finds a version written as the list shows it, v12, in either case and trimmed', async () => {
      expect(versions(await list('search=v12'))).toEqual([12]);
      expect(versions(await list('search=V7'))).toEqual([7]);
      expect(versions(await list(`search=${encodeURIComponent('  v5 ')}`))).toEqual([5]);
    });

    it('finds a deployment by its whole id', async () => {
      expect(versions(await list(`search=${byVersion[6].id}`))).toEqual([6]);
    });

    it('finds deployments by the start of their id, with or without dep_, in any case', async () => {
      const id = byVersion[8].id;
      const body = id.slice('dep_'.length);
      for (const text of [id.slice(0, 12), body.slice(0, 8), body.slice(0, 8).toUpperCase()]) {
        const page = await list(`search=${text}`);
        expect(page.data.map((d) => d.id)).toContain(id);
        expect(page.data.every((d) => d.id.startsWith(`dep_${body.slice(0, 8)}`))).toBe(true);
      }
    });

    it('finds what one token or user deployed by its id', async () => {
      const page = await list(`search=${ciTokenId}`);
      expect(versions(page)).toEqual([12, 11, 10]);
      expect(page.data.every((d) => d.createdBy === ciTokenId)).toBe(true);
    });

    it('combines with status', async () => {
      expect(versions(await list(`search=${ciTokenId}&status=archived`))).toEqual([11, 10]);
      expect(versions(await list('search=v2&status=expired'))).toEqual([2]);
      expect(await list('search=v2&status=live')).toEqual({ data: [], meta: { total: 0, page: 1, limit: 20, totalPages: 0 } });
    });

    it.each([
      ['a version that does not exist', 'v13'],
      ['version 0', 'v0'],
      ['a version beyond any integer column', '99999999999'],
      ['text no id holds', 'dep_not-an-id'],
      ['LIKE wildcards, literally', encodeURIComponent('%')],
      ['an underscore, literally', 'dep__'],
    ])('answers an empty page with a zero total for %s', async (_what, text) => {
      expect(await list(`search=${text}`)).toEqual({ data: [], meta: { total: 0, page: 1, limit: 20, totalPages: 0 } });
    });
  });

  describe('isolation', () => {
    it('never shows another project’s or another workspace’s deployments, whatever the filter', async () => {
      const others = new Set<string>();
      for (const id of [otherProjectId, bobProjectId]) {
        const session = id === bobProjectId ? bob : alice;
        for (const d of (await list('limit=100', session, id)).data) others.add(d.id);
      }
      expect(others.size).toBe(24);
      for (const query of ['', 'search=v5', 'search=5', 'status=archived', 'status=live', 'search=dep_', `search=${ciTokenId}`]) {
        const page = await list(`${query}&limit=100`);
        expect(page.data.length).toBeGreaterThan(0);
        expect(page.data.filter((d) => others.has(d.id))).toEqual([]);
        expect(page.data.every((d) => d.projectId === projectId)).toBe(true);
      }
    });

    it('answers 404 for another workspace’s project, with or without a filter', async () => {
      await t.http().get(`/projects/${bobProjectId}/deployments?search=v1`).set(asUser(alice)).expect(404);
      await t.http().get(`/projects/${bobProjectId}/deployments?status=live`).set(asUser(alice)).expect(404);
    });

    it('gives a project-bound token the same answers, and nothing of another project', async () => {
      const bound = (await createApiToken(t, alice, { scopes: ['read'], projectId })).token;
      const get = async (query: string, id = projectId) =>
        (await t.http().get(`/projects/${id}/deployments?${query}`).set(bearer(bound)).expect(200)).body as Page;
      for (const query of ['status=expired', 'search=v12', `search=${byVersion[6].id}`, 'status=archived&limit=3&page=2']) {
        expect(await get(query)).toEqual(await list(query));
      }
      await t.http().get(`/projects/${otherProjectId}/deployments?search=v1`).set(bearer(bound)).expect(404);
    });
  });

  describe('bad parameters', () => {
    it.each([
      ['status=', 'status'],
      ['status=LIVE', 'status'],
      ['status=deleted', 'status'],
      ['status=live&status=archived', 'status'],
      ['search=', 'search'],
      [`search=${encodeURIComponent('   ')}`, 'search'],
      [`search=${'1'.repeat(101)}`, 'search'],
      ['search=v1&search=v2', 'search'],
      ['page=0', 'page'],
      ['limit=101', 'limit'],
    ])('%s → 400 naming %s', async (query, parameter) => {
      const res = await t.http().get(`/projects/${projectId}/deployments?${query}`).set(asUser(alice)).expect(400);
      expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
      expect(JSON.stringify(res.body.message)).toContain(parameter);
    });

    it('takes a search of exactly 100 characters', async () => {
      expect(await list(`search=${'x'.repeat(100)}`)).toMatchObject({ data: [], meta: { total: 0 } });
    });
  });
});
