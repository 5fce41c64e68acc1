import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { startTestApp, type TestApp } from '../helpers/app';
import { startDnsServer, type TestDnsServer } from '../helpers/dns';
import { asUser, bearer, createApiToken, registerUser } from '../helpers/identity';
import { countryRecord, writeMmdb } from '../helpers/mmdb';
import { type DeployFile, deploySite, site, siteHost } from '../helpers/sites';

type Session = Awaited<ReturnType<typeof registerUser>>;

const SITES_DOMAIN = 'sites.example.test';
/** Addresses of the test GeoIP database (documentation ranges, RFC 5737 / 3849). */
const FRANCE = '203.0.113.7';
const BELGIUM = '203.0.114.9';
const UNITED_STATES = '198.51.100.7';
const NOWHERE = '192.0.2.1';
const GERMANY_V6 = '2001:db8:de::1';

/** Tokens of a Vary header, lower-case. */
const varyOf = (value: string | undefined) => (value ?? '').split(',').map((t) => t.trim().toLowerCase());
/** The path (and query) of a Location, whatever its form. */
const pathOf = (location: string) => new URL(location, 'http://x').pathname;

/**
 * Issue 34: a Netlify or Cloudflare Pages site deploys unchanged. What the site router
 * does with the rules' new features, over real HTTP against real deploys: `Language=`
 * (Accept-Language with q-values, answers marked `Vary: Accept-Language`), `Country=`
 * (a real MaxMind DB file, the client address from X-Forwarded-For under TRUST_PROXY;
 * without a database the rule never matches), query-parameter matching, repeated
 * sources (first match wins), the `/admin/* 200` shorthand, domain-level sources on the
 * site host and on a verified custom domain, `_headers` blocks for a host (Cloudflare's),
 * and `_headers` path matching as Netlify does it. The rules themselves are unit-tested in src/shared/site-rules.
 *
 * `t` has a GeoIP database and trusts one proxy hop (X-Forwarded-For's last entry is
 * the client); `plain` is a second instance on the same database without GEOIP_DATABASE.
 */
describe('Netlify rules on a deployed site: conditions, query matching, shorthand, domain sources, _headers matching (e2e)', () => {
  let dns: TestDnsServer;
  let geoDir: string;
  let t: TestApp;
  let plain: TestApp;
  let alice: Session;
  let token: string;

  beforeAll(async () => {
    dns = await startDnsServer();
    geoDir = await mkdtemp(join(tmpdir(), 'statichost-geoip-e2e-'));
    const database = join(geoDir, 'country.mmdb');
    await writeFile(
      database,
      writeMmdb([
        { network: '203.0.113.0/24', data: countryRecord('FR') },
        { network: '203.0.114.0/24', data: countryRecord('BE') },
        { network: '198.51.100.0/24', data: countryRecord('US') },
        { network: '2001:db8:de::/48', data: countryRecord('DE') },
      ]),
    );
    const env = { SITES_DOMAIN, API_HOSTS: '127.0.0.1', DNS_SERVERS: dns.server, DNS_TIMEOUT_MS: '2000', TRUST_PROXY: 'true' };
    t = await startTestApp({ env: { ...env, GEOIP_DATABASE: database } });
    plain = await startTestApp({ sibling: t, env });
    alice = await registerUser(t);
    token = (await createApiToken(t, alice, { scopes: ['deploy', 'read'] })).token;
  });
  afterAll(async () => {
    await plain?.close();
    await t?.close();
    await dns?.close();
    if (geoDir) await rm(geoDir, { recursive: true, force: true });
  });

  const slugOf = (name: string) => `${name}-${randomBytes(3).toString('hex')}`;
  /** Deploys `files` plus the given rule files to a new project; returns its slug. */
  async function deploy(name: string, files: DeployFile[], rules: { redirects?: string; headers?: string } = {}): Promise<string> {
    const slug = slugOf(name);
    const all = [...files];
    if (rules.redirects !== undefined) all.push({ path: '_redirects', content: rules.redirects });
    if (rules.headers !== undefined) all.push({ path: '_headers', content: rules.headers });
    await deploySite(t, token, slug, all);
    return slug;
  }
  const page = (path: string, content = path): DeployFile => ({ path, content });

  describe('Language=', () => {
    let slug: string;
    beforeAll(async () => {
      slug = await deploy(
        'lang',
        [page('index.html', 'home'), page('about.html', 'about'), page('fr/index.html', 'accueil'), page('en/index.html', 'welcome')],
        {
          // Forced: index.html answers / (an unforced rule applies only where no file does).
          redirects: '/ /fr/ 302! Language=fr\n/ /en/ 302! Language=en,en-gb\n',
        },
      );
    });
    const home = (acceptLanguage?: string) => {
      const req = site(t, slug).get('/').redirects(0);
      return acceptLanguage === undefined ? req : req.set('Accept-Language', acceptLanguage);
    };

    it('redirects by the visitor’s languages, q-values applied, and says the answer varies by Accept-Language', async () => {
      const fr = await home('fr').expect(302);
      expect(fr.headers.location).toBe('/fr/');
      expect(varyOf(fr.headers.vary)).toContain('accept-language');
      expect((await home('fr-CH, de;q=0.5').expect(302)).headers.location).toBe('/fr/');
      expect((await home('en-GB').expect(302)).headers.location).toBe('/en/');
      // q=0 means "not French": only English is left.
      expect((await home('fr;q=0, en;q=0.3').expect(302)).headers.location).toBe('/en/');
    });

    it('serves the page to visitors no rule names, still marked Vary: Accept-Language, and keeps each answer apart', async () => {
      for (const [header, expected] of [
        ['de', 200],
        ['fr', 302],
        [undefined, 200],
        ['en', 302],
        ['de', 200],
        ['fr', 302],
      ] as const) {
        const res = await home(header).expect(expected);
        expect(varyOf(res.headers.vary)).toContain('accept-language');
        if (expected === 200) expect(res.text).toBe('home');
      }
    });

    it('leaves paths no conditional rule matches as they were: no Vary: Accept-Language', async () => {
      const res = await site(t, slug).get('/about').set('Accept-Language', 'fr').expect(200);
      expect(res.text).toBe('about');
      expect(varyOf(res.headers.vary)).not.toContain('accept-language');
      expect(res.headers['cache-control']).toBe('public, max-age=0, must-revalidate');
    });
  });

  describe('Country=', () => {
    let slug: string;
    beforeAll(async () => {
      slug = await deploy(
        'geo',
        [
          page('index.html', 'home'),
          page('fr/index.html', 'bonjour'),
          page('us/index.html', 'howdy'),
          page('prices.html', 'USD'),
          page('prices-eu.html', 'EUR'),
        ],
        {
          redirects: '/ /fr/ 302! Country=fr,be\n/ /us/ 302! Country=US\n/prices /prices-eu.html 200! Country=FR,BE,DE\n',
          headers: '/prices\n  Cache-Control: public, max-age=3600\n  CDN-Cache-Control: max-age=86400\n  X-Prices: yes\n',
        },
      );
    });
    const from = (app: TestApp, address: string, path = '/') => site(app, slug).get(path).set('X-Forwarded-For', address).redirects(0);

    it('redirects by the country of the client address (X-Forwarded-For under TRUST_PROXY), case-insensitive codes', async () => {
      expect((await from(t, FRANCE).expect(302)).headers.location).toBe('/fr/');
      expect((await from(t, BELGIUM).expect(302)).headers.location).toBe('/fr/');
      expect((await from(t, UNITED_STATES).expect(302)).headers.location).toBe('/us/');
      expect((await from(t, NOWHERE).expect(200)).text).toBe('home');
      // The same path again, in another order: each country keeps its own answer.
      expect((await from(t, FRANCE).expect(302)).headers.location).toBe('/fr/');
    });

    it('never lets a shared cache keep a country answer, whatever _headers says', async () => {
      for (const address of [FRANCE, UNITED_STATES, NOWHERE]) {
        expect((await from(t, address)).headers['cache-control']).toBe('private, max-age=0, must-revalidate');
      }
      const eu = await from(t, GERMANY_V6, '/prices').expect(200);
      expect(eu.text).toBe('EUR');
      expect(eu.headers['cache-control']).toBe('private, max-age=0, must-revalidate');
      expect(eu.headers['cdn-cache-control']).toBeUndefined();
      expect(eu.headers['x-prices']).toBe('yes');
      const us = await from(t, UNITED_STATES, '/prices').expect(200);
      expect(us.text).toBe('USD');
      expect(us.headers['cache-control']).toBe('private, max-age=0, must-revalidate');
    });

    it('takes the client from the last X-Forwarded-For hop, never the first entry a client wrote', async () => {
      expect((await from(t, `${FRANCE}, ${UNITED_STATES}`).expect(302)).headers.location).toBe('/us/');
    });

    it('deploys without a warning where the instance has a GeoIP database (the rule can match)', async () => {
      const projects = await t.http().get('/projects').query({ limit: 100 }).set(bearer(token)).expect(200);
      const project = (projects.body.data as { id: string; slug: string }[]).find((p) => p.slug === slug)!;
      const deployments = await t.http().get(`/projects/${project.id}/deployments`).set(bearer(token)).expect(200);
      expect(deployments.body.data.map((d: { warnings: unknown[] }) => d.warnings)).toEqual([[]]);
    });

    it('without a GeoIP database: the rule never matches, and the answer stays cacheable', async () => {
      const res = await from(plain, FRANCE).expect(200);
      expect(res.text).toBe('home');
      expect(res.headers['cache-control']).toBe('public, max-age=0, must-revalidate');
      const prices = await from(plain, FRANCE, '/prices').expect(200);
      expect(prices.text).toBe('USD');
      expect(prices.headers['cache-control']).toBe('public, max-age=3600');
    });
  });

  describe('query-parameter matching', () => {
    let slug: string;
    beforeAll(async () => {
      // No donate.html: an unforced rule applies only where no file answers (the SPA fallback serves /donate).
      slug = await deploy('query', [page('index.html', 'give')], {
        redirects: '/donate source=:source /donate/:source 302\n/store id=:id /blog/:id 301\n',
      });
    });
    const get = (path: string) => site(t, slug).get(path).redirects(0);

    it('matches when every named parameter is present, captures usable in the destination, extra parameters allowed', async () => {
      expect(pathOf((await get('/donate?source=email').expect(302)).headers.location)).toBe('/donate/email');
      expect(pathOf((await get('/donate?utm_medium=x&source=web').expect(302)).headers.location)).toBe('/donate/web');
      expect(pathOf((await get('/store?id=my-post').expect(301)).headers.location)).toBe('/blog/my-post');
    });

    it('does not match without the parameter, before or after a request that had it (answers are not kept per path)', async () => {
      expect((await get('/donate').expect(200)).text).toBe('give');
      expect(pathOf((await get('/donate?source=sms').expect(302)).headers.location)).toBe('/donate/sms');
      expect((await get('/donate?other=1').expect(200)).text).toBe('give');
      expect((await get('/donate').expect(200)).text).toBe('give');
      expect(pathOf((await get('/donate?source=email').expect(302)).headers.location)).toBe('/donate/email');
    });
  });

  describe('repeated sources and the shorthand', () => {
    it('takes the first rule for a source that matches: a conditional one, then the plain one after it', async () => {
      const slug = await deploy('repeat', [page('index.html', 'home')], {
        redirects: '/promo /promo-de 302 Language=de\n/promo /promo-all 302\n/promo /never 302\n',
      });
      const promo = (lang: string) => site(t, slug).get('/promo').set('Accept-Language', lang).redirects(0).expect(302);
      expect((await promo('de')).headers.location).toBe('/promo-de');
      expect((await promo('fr')).headers.location).toBe('/promo-all');
      expect((await promo('de-AT')).headers.location).toBe('/promo-de');
    });

    it('deploys a source repeated with the same conditions (a warning, not a refusal); the first one answers', async () => {
      const slug = await deploy('shadow', [page('index.html', 'home')], { redirects: '/old /new 301\n/old /newer 301\n' });
      expect((await site(t, slug).get('/old').redirects(0).expect(301)).headers.location).toBe('/new');
    });

    it('reads "/admin/* 200" as "/admin/* /admin/:splat 200": the section keeps its own files and 404s, out of the SPA fallback after it', async () => {
      const slug = await deploy(
        'shorthand',
        [page('index.html', 'app shell'), page('404.html', 'not here'), page('admin/index.html', 'admin'), page('admin/users.html', 'users')],
        {
          redirects: '/admin/* 200\n/* /index.html 200\n',
        },
      );
      expect((await site(t, slug).get('/admin/').expect(200)).text).toBe('admin');
      expect((await site(t, slug).get('/admin/users').expect(200)).text).toBe('users');
      expect((await site(t, slug).get('/admin/missing').expect(404)).text).toBe('not here');
      expect((await site(t, slug).get('/settings/profile').expect(200)).text).toBe('app shell');
    });
  });

  describe('domain-level sources', () => {
    it('applies a rule whose source is the site’s own host (any port, any letter case), and not one for another host', async () => {
      const slug = slugOf('domsrc');
      const host = `${slug}.${SITES_DOMAIN}`;
      await deploySite(t, token, slug, [
        page('index.html', 'home'),
        page('kept.html', 'kept'),
        {
          path: '_redirects',
          content: `https://elsewhere.example.test/* https://nowhere.example.test/:splat 301!\nhttps://${host}/old/* https://new.example.test/:splat 301!\n`,
        },
      ]);
      const moved = await site(t, slug).get('/old/a/b?x=1').redirects(0).expect(301);
      expect(moved.headers.location).toBe('https://new.example.test/a/b?x=1');
      const upper = await t.http().get('/old/c').set('Host', siteHost(t, slug).toUpperCase()).redirects(0).expect(301);
      expect(upper.headers.location).toBe('https://new.example.test/c');
      expect((await site(t, slug).get('/kept').expect(200)).text).toBe('kept');
      expect((await site(t, slug).get('/').expect(200)).text).toBe('home');
    });

    it('sends a verified custom domain to the site host (an old domain moved), while the site host itself serves', async () => {
      const project = (
        await t
          .http()
          .post('/projects')
          .set(asUser(alice))
          .send({ name: `moved ${randomBytes(3).toString('hex')}`, type: 'static_site' })
          .expect(201)
      ).body as { id: string; slug: string };
      const domain = `www.old${randomBytes(4).toString('hex')}.example.test`;
      const attached = await t.http().patch(`/projects/${project.id}`).set(asUser(alice)).send({ custom_domain: domain }).expect(200);
      for (const record of attached.body.domainRecords as { type: string; name: string; value: string }[]) {
        if (record.type === 'TXT') dns.setTxt(record.name, record.value);
        else dns.setCname(record.name, record.value);
      }
      expect((await t.http().post(`/projects/${project.id}/verify-domain`).set(asUser(alice)).expect(200)).body.verified).toBe(true);
      const target = `https://${project.slug}.${SITES_DOMAIN}`;
      await deploySite(t, token, project.slug, [
        page('index.html', 'home'),
        page('docs.html', 'docs'),
        { path: '_redirects', content: `http://${domain}/* ${target}/:splat 301!\n` },
      ]);

      const moved = await t.http().get('/docs').set('Host', domain).redirects(0).expect(301);
      expect(moved.headers.location).toBe(`${target}/docs`);
      expect((await site(t, project.slug).get('/docs').expect(200)).text).toBe('docs');
    });
  });

  describe('_headers blocks for a host (Cloudflare)', () => {
    let slug: string;
    let domain: string;
    let version: number;
    beforeAll(async () => {
      const project = (
        await t
          .http()
          .post('/projects')
          .set(asUser(alice))
          .send({ name: `hosts ${randomBytes(3).toString('hex')}`, type: 'static_site' })
          .expect(201)
      ).body as { id: string; slug: string };
      slug = project.slug;
      domain = `www.hdr${randomBytes(4).toString('hex')}.example.test`;
      const attached = await t.http().patch(`/projects/${project.id}`).set(asUser(alice)).send({ custom_domain: domain }).expect(200);
      for (const record of attached.body.domainRecords as { type: string; name: string; value: string }[]) {
        if (record.type === 'TXT') dns.setTxt(record.name, record.value);
        else dns.setCname(record.name, record.value);
      }
      expect((await t.http().post(`/projects/${project.id}/verify-domain`).set(asUser(alice)).expect(200)).body.verified).toBe(true);
      const deployed = await deploySite(t, token, slug, [
        page('index.html', 'home'),
        page('page.html', 'page'),
        page('docs/guide.html', 'guide'),
        {
          path: '_headers',
          content: [
            '/*\n  X-All: 1',
            `https://${slug}.${SITES_DOMAIN}/*\n  X-Site-Host: yes`,
            // Upper case and http://: neither the letter case nor the scheme is compared.
            `http://${domain.toUpperCase()}/docs/*\n  X-Custom: :splat\n  ! X-All`,
            `https://:label.${SITES_DOMAIN}/page\n  X-Label: :label`,
            'https://elsewhere.example.test/*\n  X-Elsewhere: 1',
          ].join('\n'),
        },
      ]);
      version = deployed.version;
    });
    const on = (host: string, path: string) => t.http().get(path).set('Host', host);

    it('applies a block to requests for its host only: the site host, then a verified custom domain, and again (answers kept per host)', async () => {
      // The router keeps answers per site state, loaded per host: were one state ever shared by
      // two hosts, the second round would get the first host's headers.
      for (let round = 0; round < 2; round++) {
        const own = await site(t, slug).get('/docs/guide').expect(200);
        expect(own.text).toBe('guide');
        expect([own.headers['x-all'], own.headers['x-site-host'], own.headers['x-custom'], own.headers['x-elsewhere']]).toEqual([
          '1',
          'yes',
          undefined,
          undefined,
        ]);
        const custom = await on(`${domain}:${t.port}`, '/docs/guide').expect(200);
        expect(custom.text).toBe('guide');
        expect([custom.headers['x-all'], custom.headers['x-site-host'], custom.headers['x-custom']]).toEqual([undefined, undefined, 'guide']);
      }
      // Any letter case and port of the request's Host.
      const upper = await on(siteHost(t, slug).toUpperCase(), '/page').expect(200);
      expect([upper.headers['x-site-host'], upper.headers['x-label']]).toEqual(['yes', slug]);
    });

    it("fills a host placeholder with the request's label: the site's, or a preview address's", async () => {
      expect((await site(t, slug).get('/page').expect(200)).headers['x-label']).toBe(slug);
      const preview = await on(`${slug}--${version}.${SITES_DOMAIN}:${t.port}`, '/page').expect(200);
      expect(preview.text).toBe('page');
      expect([preview.headers['x-label'], preview.headers['x-site-host'], preview.headers['x-all']]).toEqual([`${slug}--${version}`, undefined, '1']);
      expect((await on(`${domain}:${t.port}`, '/page').expect(200)).headers['x-label']).toBeUndefined();
    });

    it('refuses a block whose host is malformed, naming the line', async () => {
      const refused = await t
        .http()
        .post('/v1/deployments')
        .set(bearer(token))
        .send({
          project_slug: slugOf('hdrbad'),
          files: [page('index.html', 'home'), { path: '_headers', content: '/*\n  X-All: 1\nhttps://example.test:8443/*\n  X-Port: 1\n' }],
        })
        .expect(400);
      expect(refused.body.code).toBe('invalid_headers');
      expect(refused.body.message).toContain('_headers line 3: path "https://example.test:8443/*": the host has a port');
      expect(refused.body.errors).toEqual([{ line: 3, message: expect.stringContaining('has a port') }]);
    });
  });

  describe('_headers path matching (Netlify)', () => {
    let slug: string;
    beforeAll(async () => {
      slug = await deploy(
        'hdrmatch',
        [page('index.html', 'home'), page('pricing.html', 'pricing'), page('about/index.html', 'about'), page('blog/hello.html', 'hello')],
        {
          headers: '/Pricing\n  X-Rule: pricing\n/about\n  X-Rule: about\n/blog/:post\n  X-Post: :post\n',
        },
      );
    });

    it('matches a path in any letter case', async () => {
      expect((await site(t, slug).get('/pricing').expect(200)).headers['x-rule']).toBe('pricing');
    });

    it('matches with or without a trailing "/"', async () => {
      const res = await site(t, slug).get('/about/').expect(200);
      expect(res.text).toBe('about');
      expect(res.headers['x-rule']).toBe('about');
    });

    it('fills :placeholder values in header values', async () => {
      expect((await site(t, slug).get('/blog/hello').expect(200)).headers['x-post']).toBe('hello');
    });
  });
});
