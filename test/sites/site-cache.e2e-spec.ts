import { createHash } from 'node:crypto';

import { blobKey } from '../../src/blobs/blob-keys';
import { DeploymentsRepository } from '../../src/deployments/deployments.repository';
import { ProjectsRepository } from '../../src/projects/projects.repository';
import { SiteCache } from '../../src/sites/site-cache.service';
import { SiteRouter } from '../../src/sites/site-router.service';
import { StorageProvider } from '../../src/storage/storage.provider';
import { startTestApp, type TestApp } from '../helpers/app';
import { eventually } from '../helpers/eventually';
import { createApiToken, registerUser } from '../helpers/identity';
import { sample } from '../helpers/prometheus';
import { deploySite, site } from '../helpers/sites';

const SITES = 12;
const page = (n: number, name: string) => `<h1>site ${n}: ${name}</h1>`;

/**
 * The site router's memory (docs/scaling.md): one byte budget, SITE_CACHE_MB, for site
 * states with their manifests and unknown hosts; a budget too small for every site
 * evicts and reloads but never answers wrong; cold loads of one deployment share one read.
 */
describe('Site cache budget (e2e)', () => {
  let t: TestApp;
  let token: string;
  // 20 KB: room for a handful of these sites, not for twelve.
  const budgetMb = 0.02;

  beforeAll(async () => {
    t = await startTestApp({ env: { SITE_CACHE_MB: String(budgetMb) } });
    const session = await registerUser(t);
    token = (await createApiToken(t, session, { scopes: ['deploy', 'read'] })).token;
    for (let n = 0; n < SITES; n++) {
      await deploySite(t, token, `budget-${n}`, [
        { path: 'index.html', content: page(n, 'home') },
        { path: 'about/index.html', content: page(n, 'about') },
        ...Array.from({ length: 20 }, (_, i) => ({ path: `assets/chunk-${i}.js`, content: `/* site ${n} chunk ${i} */` })),
      ]);
    }
  });
  afterAll(() => t.close());

  const scrape = async () => (await t.http().get('/metrics').expect(200)).text;

  it('routes a Host longer than any name but does not keep it in the route memo (16 KB Host values cannot fill memory)', async () => {
    const memo = (t.app.get(SiteRouter) as unknown as { routes: Map<string, unknown> }).routes;
    const long = `${'a'.repeat(4000)}.localhost`;
    const res = await t.http().get('/').set('Host', long);
    expect(res.status).toBeLessThan(500);
    expect(memo.has(long)).toBe(false);
    // A real name is kept, as before.
    await t.http().get('/').set('Host', 'kept-name.localhost');
    expect(memo.has('kept-name.localhost')).toBe(true);
  });

  it('serves every site correctly, round after round, with a budget too small to keep them all', async () => {
    // A call-through spy: the real query runs, the spy only counts it.
    const rows = jest.spyOn(t.app.get(ProjectsRepository), 'sitesBySlugs');
    for (let round = 0; round < 3; round++) {
      for (let n = 0; n < SITES; n++) {
        expect((await site(t, `budget-${n}`).get('/').expect(200)).text).toBe(page(n, 'home'));
        expect((await site(t, `budget-${n}`).get('/about/').expect(200)).text).toBe(page(n, 'about'));
        expect((await site(t, `budget-${n}`).get('/assets/chunk-7.js').expect(200)).text).toBe(`/* site ${n} chunk 7 */`);
        await site(t, `budget-${n}`).get('/assets/missing.js').expect(404);
        await site(t, `no-such-site-${round}-${n}`).get('/').expect(404);
      }
    }
    const after = await scrape();
    const budget = sample(after, 'statichost_site_cache_budget_bytes');
    expect(budget).toBe(Math.floor(budgetMb * 1024 * 1024));
    const held = sample(after, 'statichost_site_cache_bytes', { part: 'sites' }) + sample(after, 'statichost_site_cache_bytes', { part: 'missing' });
    expect(held).toBeGreaterThan(0);
    expect(held).toBeLessThanOrEqual(budget);
    expect(sample(after, 'statichost_site_cache_bytes', { part: 'variants' })).toBeLessThanOrEqual(budget / 16);
    // Evicted sites came back from PostgreSQL: more reads of their rows than sites.
    const reads = rows.mock.calls.flatMap(([slugs]) => slugs).filter((slug) => slug.startsWith('budget-')).length;
    rows.mockRestore();
    expect(reads).toBeGreaterThan(SITES);
  });

  it('keeps every site when the budget holds them: a second round reads nothing', async () => {
    const roomy = await startTestApp({ sibling: t, env: { SITE_CACHE_MB: '64' } });
    try {
      for (let n = 0; n < SITES; n++) await site(roomy, `budget-${n}`).get('/').expect(200);
      const before = sample((await roomy.http().get('/metrics').expect(200)).text, 'statichost_site_manifest_loads_total');
      for (let n = 0; n < SITES; n++) expect((await site(roomy, `budget-${n}`).get('/about/').expect(200)).text).toBe(page(n, 'about'));
      expect(sample((await roomy.http().get('/metrics').expect(200)).text, 'statichost_site_manifest_loads_total')).toBe(before);
    } finally {
      await roomy.close();
    }
  });

  it('counts the answers a conditional rule memoises per Accept-Language against the budget', async () => {
    await deploySite(t, token, 'by-language', [
      { path: 'index.html', content: '<h1>home</h1>' },
      { path: 'fr/index.html', content: '<h1>accueil</h1>' },
      { path: '_redirects', content: '/ /fr/ 302! Language=fr\n' },
    ]);
    const roomy = await startTestApp({ sibling: t, env: { SITE_CACHE_MB: '64' } });
    try {
      const held = async () => sample((await roomy.http().get('/metrics').expect(200)).text, 'statichost_site_cache_bytes', { part: 'sites' });
      await site(roomy, 'by-language').get('/').expect(200);
      const before = await held();
      // Each Accept-Language is an answer of its own in the router's memo: what a client varies, the budget must see.
      for (let i = 0; i < 40; i++) await site(roomy, 'by-language').get('/').set('Accept-Language', `de-a${i}`).expect(200);
      expect((await site(roomy, 'by-language').get('/').set('Accept-Language', 'fr').expect(302)).headers.location).toBe('/fr/');
      expect(await held()).toBeGreaterThanOrEqual(before + 40 * 1000);
    } finally {
      await roomy.close();
    }
  });

  it('never keeps as fresh a load that read the database while its change listener was down', async () => {
    await deploySite(t, token, 'relisten', [{ path: 'index.html', content: 'one' }]);
    const other = await startTestApp({ sibling: t, env: { SITE_CACHE_MB: '64' } });
    // The listener's own state, as the cache keeps it: which connection, and whether it runs.
    const cache = other.app.get(SiteCache) as unknown as { listener?: { processID: number }; listening: boolean; listen: () => Promise<void> };
    const listen = cache.listen.bind(cache);
    let reconnect!: () => void;
    const mayReconnect = new Promise<void>((resolve) => (reconnect = resolve));
    const projects = other.app.get(ProjectsRepository);
    const readRows = projects.sitesBySlugs.bind(projects);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let read = false;
    try {
      // The reconnect waits for the test, so the deploy below happens while nothing listens.
      jest.spyOn(cache, 'listen').mockImplementation(() => mayReconnect.then(listen));
      await t.dataSource.query('SELECT pg_terminate_backend($1)', [cache.listener!.processID]);
      await eventually(async () => expect(cache.listening).toBe(false));
      // The real read, then held: it sees the site before the deploy, and answers after the reconnect.
      jest.spyOn(projects, 'sitesBySlugs').mockImplementation(async (slugs) => {
        const rows = await readRows(slugs);
        read = true;
        await released;
        return rows;
      });
      const during = site(other, 'relisten').get('/');
      const answered = during.then((res) => res.text);
      await eventually(async () => expect(read).toBe(true));
      await deploySite(t, token, 'relisten', [{ path: 'index.html', content: 'two' }]);
      reconnect();
      await eventually(async () => expect(cache.listening).toBe(true));
      release();
      await answered;
      jest.restoreAllMocks();
      // The notice of the deploy was lost with the listener: a state read before it must not be served now.
      expect((await site(other, 'relisten').get('/').expect(200)).text).toBe('two');
    } finally {
      reconnect();
      release();
      jest.restoreAllMocks();
      await other.close();
    }
  });

  it('shares one load among concurrent cold requests: one row read per host, one manifest read for the site and its custom domain', async () => {
    const deployed = await deploySite(t, token, 'stampede', [{ path: 'index.html', content: '<h1>stampede</h1>' }]);
    // Verified as src/domains would leave it (its DNS check is another suite's subject).
    await t.dataSource.query(
      `UPDATE projects SET custom_domain = 'www.stampede.test', domain_status = 'verified', domain_token = 'stampede-token' WHERE slug = 'stampede'`,
    );
    const cold = await startTestApp({ sibling: t, env: { SITE_CACHE_MB: '64', API_HOSTS: `localhost,127.0.0.1` } });
    // Call-through spies: the real queries run, the spies only count them.
    const bySlug = jest.spyOn(cold.app.get(ProjectsRepository), 'sitesBySlugs');
    const byDomain = jest.spyOn(cold.app.get(ProjectsRepository), 'siteByVerifiedDomain');
    const repository = cold.app.get(DeploymentsRepository);
    const read = repository.manifestRows.bind(repository);
    // The real read, held 300 ms: both hosts' loads reach it while it is in flight, however the machine schedules them.
    const manifests = jest
      .spyOn(repository, 'manifestRows')
      .mockImplementation((id) => new Promise((resolve) => setTimeout(resolve, 300)).then(() => read(id)));
    try {
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 ? cold.http().get('/').set('Host', 'www.stampede.test') : site(cold, 'stampede').get('/'))),
      );
      for (const res of answers) {
        expect(res.status).toBe(200);
        expect(res.text).toBe('<h1>stampede</h1>');
      }
      expect(bySlug.mock.calls).toEqual([[['stampede']]]);
      expect(byDomain.mock.calls).toEqual([['www.stampede.test']]);
      // Two hosts, one deployment: one read of its files.
      expect(manifests.mock.calls).toEqual([[deployed.id]]);
    } finally {
      jest.restoreAllMocks();
      await cold.close();
    }
  });

  it('reads a burst of cold hosts a few to a statement: each site once, its files with the others, a broken one failing alone', async () => {
    // A site whose `_redirects` object was lost from storage cannot be loaded: it fails, its batch must not.
    const rules = '/burst-old /burst-new 301\n';
    await deploySite(t, token, 'burst-broken', [
      { path: 'index.html', content: 'broken' },
      { path: '_redirects', content: rules },
    ]);
    await t.app.get(StorageProvider).delete(blobKey(createHash('sha256').update(rules).digest('hex')));
    // A pool of 3 leaves cold loads one connection: the hosts asked while the first batch is read wait for the next.
    const cold = await startTestApp({ sibling: t, env: { SITE_CACHE_MB: '64', DATABASE_POOL_SIZE: '3' } });
    const projects = cold.app.get(ProjectsRepository);
    const deployments = cold.app.get(DeploymentsRepository);
    const readRows = projects.sitesBySlugs.bind(projects);
    // The real read, held 200 ms: the other requests arrive while the first is in flight, however the machine schedules them.
    const rows = jest
      .spyOn(projects, 'sitesBySlugs')
      .mockImplementation((slugs) => new Promise((resolve) => setTimeout(resolve, 200)).then(() => readRows(slugs)));
    const batchedFiles = jest.spyOn(deployments, 'manifestRowsOf');
    const singleFiles = jest.spyOn(deployments, 'manifestRows');
    try {
      const hosts = [...Array.from({ length: SITES }, (_, n) => `budget-${n}`), 'no-such-site-burst', 'burst-broken'];
      const answers = await Promise.all(hosts.map((host) => site(cold, host).get('/about/')));
      answers.forEach((res, n) => {
        if (n < SITES) expect([res.status, res.text]).toEqual([200, page(n, 'about')]);
      });
      expect(answers[SITES].status).toBe(404);
      expect(answers[SITES + 1].status).toBe(500);
      const asked = rows.mock.calls.flatMap(([slugs]) => slugs);
      expect([...asked].sort()).toEqual([...hosts].sort());
      // The first host's batch, then (nearly always) one for the rest: at most a few statements for 14 hosts.
      expect(rows.mock.calls.length).toBeLessThanOrEqual(4);
      // Every deployment's files read once, most of them with other deployments'.
      const filesRead = [...batchedFiles.mock.calls.flatMap(([ids]) => ids), ...singleFiles.mock.calls.map(([id]) => id)];
      expect(filesRead).toHaveLength(SITES + 1);
      expect(new Set(filesRead).size).toBe(SITES + 1);
      expect(batchedFiles).toHaveBeenCalled();
    } finally {
      jest.restoreAllMocks();
      await cold.close();
    }
  });
});
