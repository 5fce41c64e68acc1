import { SiteCache } from '../../src/sites/site-cache.service';
import { SiteWarmStart } from '../../src/sites/warm-start/site-warm-start.service';
import { startTestApp, type TestApp } from '../helpers/app';
import { createApiToken, registerUser } from '../helpers/identity';
import { deploySite, site } from '../helpers/sites';

const LIMIT = 3;
const listed = async (t: TestApp): Promise<string[]> =>
  ((await t.dataSource.query('SELECT host_key FROM site_warm_list ORDER BY served_at DESC')) as { host_key: string }[]).map((r) => r.host_key);

/**
 * The warm start (issue 35, docs/scaling.md): each instance keeps the hosts it served most
 * recently in PostgreSQL, and a starting instance loads them before their visitors ask.
 */
describe('Warm start (e2e)', () => {
  let a: TestApp;
  const others: TestApp[] = [];
  /** Another instance on a's database and files, started now (its warm start runs at once). */
  const instance = async (env: Record<string, string> = {}) => {
    const t = await startTestApp({ sibling: a, env: { SITE_WARM_START_HOSTS: String(LIMIT), ...env } });
    others.push(t);
    return t;
  };

  beforeAll(async () => {
    a = await startTestApp({ env: { SITE_WARM_START_HOSTS: String(LIMIT) } });
    const session = await registerUser(a);
    const token = (await createApiToken(a, session, { scopes: ['deploy'] })).token;
    for (const slug of ['warm-a', 'warm-b', 'warm-c', 'warm-d']) await deploySite(a, token, slug, [{ path: 'index.html', content: `<h1>${slug}</h1>` }]);
  });
  afterAll(async () => {
    for (const t of others.reverse()) await t.close();
    await a.close();
  });

  it('a starting instance loads the sites served most recently before their first request', async () => {
    // Served oldest first: warm-d, then an unknown host, then c, a, b (b most recent).
    for (const slug of ['warm-d', 'nobody-here', 'warm-c', 'warm-a', 'warm-b']) await site(a, slug).get('/');
    expect(await a.app.get(SiteWarmStart).runOnce()).toEqual({ hosts: LIMIT });
    // Most recent first; the unknown host (a cached miss) is never listed, nor warm-d past the limit.
    expect(await listed(a)).toEqual(['s:warm-b', 's:warm-a', 's:warm-c']);
    // Nothing served since: the same list is not written again.
    expect(await a.app.get(SiteWarmStart).runOnce()).toEqual({ hosts: 0 });

    const b = await instance();
    const report = await b.app.get(SiteWarmStart).warmed;
    expect(report).toMatchObject({ listed: 3, sites: 3, failed: 0 });
    const cache = b.app.get(SiteCache);
    expect(['warm-a', 'warm-b', 'warm-c', 'warm-d'].map((slug) => cache.isCached('s', slug))).toEqual([true, true, true, false]);
    // Loaded through the usual path: answered as any cached site is.
    expect((await site(b, 'warm-a').get('/').expect(200)).text).toBe('<h1>warm-a</h1>');
  });

  it('a listed host that is no longer a site, or is no host at all, loads as nothing', async () => {
    await a.dataSource.query(`DELETE FROM site_warm_list`);
    await a.dataSource.query(
      `INSERT INTO site_warm_list (host_key, served_at) VALUES ('s:deleted-since', now()), ('p:warm-a--1', now()), ('s:warm-d', now() - interval '1 second')`,
    );
    const b = await instance();
    expect(await b.app.get(SiteWarmStart).warmed).toMatchObject({ listed: 3, sites: 1, failed: 0 });
    const cache = b.app.get(SiteCache);
    expect(cache.isCached('s', 'warm-d')).toBe(true);
    // Cached as "no site here", as a request for it would have.
    await site(b, 'deleted-since').get('/').expect(404);
  });

  it('an instance that stops writes what it served last, and the list keeps the limit across instances', async () => {
    const b = await instance();
    await b.app.get(SiteWarmStart).warmed;
    await a.dataSource.query(`DELETE FROM site_warm_list`);
    await site(b, 'warm-c').get('/').expect(200);
    await site(a, 'warm-d').get('/').expect(200);
    await a.app.get(SiteWarmStart).runOnce();
    others.splice(others.indexOf(b), 1);
    await b.close();
    const after = await listed(a);
    expect(after[0]).toBe('s:warm-c');
    expect(after).toHaveLength(LIMIT);
  });

  it('SITE_WARM_START_HOSTS=0 neither writes a list nor loads one', async () => {
    await a.dataSource.query(`DELETE FROM site_warm_list`);
    await a.dataSource.query(`INSERT INTO site_warm_list (host_key, served_at) VALUES ('s:warm-a', now())`);
    const off = await instance({ SITE_WARM_START_HOSTS: '0' });
    expect(await off.app.get(SiteWarmStart).warmed).toEqual({ listed: 0, sites: 0, failed: 0, ms: 0 });
    expect(off.app.get(SiteCache).isCached('s', 'warm-a')).toBe(false);
    await site(off, 'warm-b').get('/').expect(200);
    expect(await off.app.get(SiteWarmStart).runOnce()).toEqual({ hosts: 0 });
    expect(await listed(a)).toEqual(['s:warm-a']);
  });
});
