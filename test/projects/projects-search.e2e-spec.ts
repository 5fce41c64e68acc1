import { startTestApp, type TestApp } from '../helpers/app';
import { asUser, bearer, createApiToken, registerUser } from '../helpers/identity';
import type { ListPage } from '../helpers/list-page';
import { deploySite } from '../helpers/sites';

type Session = Awaited<ReturnType<typeof registerUser>>;
interface Listed {
  id: string;
  name: string;
  slug: string;
  custom_domain: string | null;
  liveVersion: number | null;
  liveCreatedAt: string | null;
}
type Page = ListPage<Listed>;

/**
 * GET /projects?search=&sort=&status= — the project list narrowed and ordered on the
 * server, its total and pages counting only what matches.
 */
describe('GET /projects: search, sort and status (e2e)', () => {
  let t: TestApp;
  let alice: Session;
  let bob: Session;
  /** Alice's projects by name. */
  const ids: Record<string, string> = {};

  const list = async (query: string, session: Session = alice): Promise<Page> =>
    (await t.http().get(`/projects?${query}`).set(asUser(session)).expect(200)).body;
  const names = (page: Page) => page.data.map((p) => p.name);

  beforeAll(async () => {
    t = await startTestApp();
    alice = await registerUser(t);
    bob = await registerUser(t);
    const create = async (session: Session, body: object) => (await t.http().post('/projects').set(asUser(session)).send(body).expect(201)).body;
    for (const [name, slug] of [
      ['Alpha Docs', 'alpha-docs'],
      ['beta shop', 'beta-shop'],
      ['Sale 50% off', 'sale-fifty'],
      ['Sale 500 off', 'sale-five-hundred'],
      ['snake_case', 'snake-case'],
      ['snakeXcase', 'snakexcase'],
      ['Zulu', 'zulu-landing'],
    ]) {
      ids[name] = (await create(alice, { name, slug })).id;
    }
    await t.http().patch(`/projects/${ids['beta shop']}`).set(asUser(alice)).send({ custom_domain: 'www.shop-example.test' }).expect(200);
    // Bob's project matches every search below; it must never show in Alice's lists.
    await create(bob, { name: 'Alpha Docs of Bob', slug: 'bob-alpha-docs' });

    // Deployed in this order: Zulu first (the oldest live deployment), then Alpha, then Sale 50%.
    const deployToken = (await createApiToken(t, alice, { scopes: ['deploy'] })).token;
    for (const slug of ['zulu-landing', 'alpha-docs', 'sale-fifty']) {
      await deploySite(t, deployToken, slug, [{ path: 'index.html', content: slug }]);
    }
    // Alpha's second deploy makes v2 live: the list shows the live version's age.
    await deploySite(t, deployToken, 'alpha-docs', [{ path: 'index.html', content: 'alpha 2' }]);
    // Sale 50%'s live deployment expires: nothing is served any more.
    await t.dataSource.query(`UPDATE deployments SET expires_at = now() - interval '1 minute' WHERE project_id = $1`, [ids['Sale 50% off']]);
  });
  afterAll(() => t.close());

  describe('search', () => {
    it('matches a part of the name, case-insensitively', async () => {
      const page = await list('search=ALPHA');
      expect(names(page)).toEqual(['Alpha Docs']);
      expect(page.meta).toEqual({ total: 1, page: 1, limit: 20, totalPages: 1 });
    });

    it('matches a part of the slug', async () => {
      expect(names(await list('search=landing'))).toEqual(['Zulu']);
    });

    it('matches a part of the custom domain', async () => {
      expect(names(await list('search=shop-example'))).toEqual(['beta shop']);
    });

    it('trims the text', async () => {
      expect(names(await list(`search=${encodeURIComponent('  zulu ')}`))).toEqual(['Zulu']);
    });

    it('takes % and _ literally', async () => {
      expect(names(await list(`search=${encodeURIComponent('50%')}`))).toEqual(['Sale 50% off']);
      expect(names(await list('search=e_c'))).toEqual(['snake_case']);
      expect(names(await list(`search=${encodeURIComponent('\\')}`))).toEqual([]);
    });

    it('answers an empty page with a zero total when nothing matches', async () => {
      expect(await list('search=nothing-like-this')).toEqual({ data: [], meta: { total: 0, page: 1, limit: 20, totalPages: 0 } });
    });
  });

  describe('sort', () => {
    it('keeps newest project first when no sort is given', async () => {
      const page = await list('');
      expect(page.data[0].name).toBe('Zulu');
      expect(page.data[page.data.length - 1].name).toBe('Alpha Docs');
    });

    it('sorts by name both ways, whatever the case', async () => {
      const all = ['Alpha Docs', 'beta shop', 'Sale 50% off', 'Sale 500 off', 'snake_case', 'snakeXcase', 'Zulu'];
      expect(names(await list('sort=name'))).toEqual(all);
      expect(names(await list('sort=-name'))).toEqual([...all].reverse());
    });

    it('sorts by the live deployment’s time both ways, projects with nothing deployed last', async () => {
      const up = names(await list('sort=lastDeploy'));
      const down = names(await list('sort=-lastDeploy'));
      // Alpha's live deployment is its second, made after Sale 50%'s.
      expect(up.slice(0, 3)).toEqual(['Zulu', 'Sale 50% off', 'Alpha Docs']);
      expect(down.slice(0, 3)).toEqual(['Alpha Docs', 'Sale 50% off', 'Zulu']);
      for (const order of [up, down]) expect(order.slice(3).sort()).toEqual(['Sale 500 off', 'beta shop', 'snakeXcase', 'snake_case'].sort());
    });

    it('shows each row’s live version and when it was made', async () => {
      const [alpha] = (await list('search=alpha')).data;
      expect(alpha.liveVersion).toBe(2);
      expect(Date.now() - Date.parse(alpha.liveCreatedAt!)).toBeLessThan(60_000);
      const [zulu] = (await list('search=beta')).data;
      expect(zulu).toMatchObject({ liveVersion: null, liveCreatedAt: null });
    });

    it('pages through a sorted list without repeating or skipping a project', async () => {
      const seen: string[] = [];
      for (let page = 1; page <= 4; page++) seen.push(...names(await list(`sort=name&limit=2&page=${page}`)));
      expect(seen).toEqual(names(await list('sort=name')));
    });
  });

  describe('status', () => {
    it('live: only projects whose site is served', async () => {
      const page = await list('status=live&sort=name');
      expect(names(page)).toEqual(['Alpha Docs', 'Zulu']);
      expect(page.meta.total).toBe(2);
    });

    it('none: projects never deployed and those whose live deployment expired', async () => {
      const page = await list('status=none&sort=name');
      expect(names(page)).toEqual(['beta shop', 'Sale 50% off', 'Sale 500 off', 'snake_case', 'snakeXcase']);
    });

    it('combines with search, and the total and pages count only what matches', async () => {
      const first = await list('status=none&search=sale&sort=name&limit=1');
      expect(names(first)).toEqual(['Sale 50% off']);
      expect(first.meta).toEqual({ total: 2, page: 1, limit: 1, totalPages: 2 });
      const second = await list('status=none&search=sale&sort=name&limit=1&page=2');
      expect(names(second)).toEqual(['Sale 500 off']);
      expect(second.meta).toEqual({ total: 2, page: 2, limit: 1, totalPages: 2 });
    });
  });

  describe('isolation', () => {
    it('never shows another workspace’s projects, whatever the filter', async () => {
      for (const query of ['search=alpha', 'search=docs&sort=-name', 'status=none', 'sort=lastDeploy']) {
        expect(names(await list(query))).not.toContain('Alpha Docs of Bob');
      }
      expect(names(await list('search=alpha', bob))).toEqual(['Alpha Docs of Bob']);
    });

    it('gives a project-bound token its own project or nothing', async () => {
      const bound = (await createApiToken(t, alice, { scopes: ['read'], projectId: ids['Zulu'] })).token;
      const get = async (query: string) => (await t.http().get(`/projects?${query}`).set(bearer(bound)).expect(200)).body as Page;
      expect(names(await get('search=zulu'))).toEqual(['Zulu']);
      expect(await get('search=alpha')).toMatchObject({ data: [], meta: { total: 0 } });
      expect(names(await get('status=live&sort=name'))).toEqual(['Zulu']);
    });
  });

  describe('bad parameters', () => {
    it.each([
      ['search=', 'search'],
      [`search=${encodeURIComponent('   ')}`, 'search'],
      [`search=${'x'.repeat(101)}`, 'search'],
      ['search=a&search=b', 'search'],
      ['sort=date', 'sort'],
      ['sort=NAME', 'sort'],
      ['sort=name&sort=-name', 'sort'],
      ['status=expired', 'status'],
      ['status=', 'status'],
    ])('%s → 400 naming %s', async (query, parameter) => {
      const res = await t.http().get(`/projects?${query}`).set(asUser(alice)).expect(400);
      expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
      expect(JSON.stringify(res.body.message)).toContain(parameter);
    });

    it('takes a search of exactly 100 characters', async () => {
      expect(await list(`search=${'x'.repeat(100)}`)).toMatchObject({ data: [], meta: { total: 0 } });
    });
  });
});
