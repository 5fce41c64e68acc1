import { randomBytes } from 'node:crypto';

import { Client } from 'pg';

import { Clock } from '../../src/common/time';
import { ADVISORY_LOCKS } from '../../src/database/advisory-locks';
import { DomainRechecker } from '../../src/domains/domain-rechecker.service';
import { startTestApp, type TestApp } from '../helpers/app';
import { startDnsServer, startSilentDnsServer, type TestDnsServer } from '../helpers/dns';
import { eventually } from '../helpers/eventually';
import { asUser, bearer, createApiToken, registerUser } from '../helpers/identity';
import { changeUnderLock, someoneWaits } from '../helpers/row-lock';
import { deploySite, site } from '../helpers/sites';

type Session = Awaited<ReturnType<typeof registerUser>>;
interface DnsRecord {
  type: 'TXT' | 'CNAME';
  name: string;
  value: string;
}

const HOUR = 3600_000;
const SITES_DOMAIN = 'sites.example.test';
/** Many projects, deploys and `forever` TTLs: lift the free plan's limits, which are not under test here. */
const UNLIMITED = { PLANS_JSON: JSON.stringify({ free: { projects: null, deploymentsPerMonth: null, maxTtl: null } }) };

/** A name no other test uses. */
const uniqueDomain = (label = 'www') => `${label}.d${randomBytes(4).toString('hex')}.example.test`;

/**
 * Custom domains against a real DNS server on loopback (dns2), set per test.
 * `t` runs as in production (API_HOSTS set: unknown hosts get the 404 page);
 * `dev` is a second instance on the same database in the dev default (API_HOSTS
 * unset) whose DNS server never answers.
 */
describe('Custom domains (e2e)', () => {
  let dns: TestDnsServer;
  let silent: Awaited<ReturnType<typeof startSilentDnsServer>>;
  let t: TestApp;
  let dev: TestApp;
  let alice: Session;
  let bob: Session;
  let deployToken: string;

  beforeAll(async () => {
    dns = await startDnsServer();
    silent = await startSilentDnsServer();
    t = await startTestApp({ env: { ...UNLIMITED, DNS_SERVERS: dns.server, DNS_TIMEOUT_MS: '2000', SITES_DOMAIN, API_HOSTS: '127.0.0.1,api.example.test' } });
    dev = await startTestApp({ sibling: t, env: { ...UNLIMITED, DNS_SERVERS: silent.server, DNS_TIMEOUT_MS: '300', SITES_DOMAIN } });
    alice = await registerUser(t);
    bob = await registerUser(t);
    deployToken = (await createApiToken(t, alice, { scopes: ['deploy'] })).token;
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(async () => {
    await dev?.close();
    await t?.close();
    await silent?.close();
    await dns?.close();
  });

  // Sites live forever here: the re-check tests move the clock by days.
  const createProject = async (session: Session = alice, extra: object = {}) =>
    (
      await t
        .http()
        .post('/projects')
        .set(asUser(session))
        .send({ name: `p ${randomBytes(3).toString('hex')}`, type: 'static_site', default_ttl: 'forever', ...extra })
        .expect(201)
    ).body as { id: string; slug: string };
  const patchDomain = (projectId: string, custom_domain: unknown, session: Session = alice) =>
    t.http().patch(`/projects/${projectId}`).set(asUser(session)).send({ custom_domain });
  const verify = (app: TestApp, projectId: string, session: Session = alice) => app.http().post(`/projects/${projectId}/verify-domain`).set(asUser(session));
  const getProject = async (projectId: string) => (await t.http().get(`/projects/${projectId}`).set(asUser(alice)).expect(200)).body;
  const getProjectOf = async (session: Session, projectId: string) => (await t.http().get(`/projects/${projectId}`).set(asUser(session)).expect(200)).body;
  /** Creates what the project asks for in the test DNS server. */
  const publish = (records: DnsRecord[]) => {
    for (const r of records) {
      if (r.type === 'TXT') dns.setTxt(r.name, r.value);
      else dns.setCname(r.name, r.value);
    }
  };
  const onHost = (app: TestApp, host: string, path = '/') => app.http().get(path).set('Host', host);

  /** A deployed project with `domain` attached (pending); returns the PATCH answer too. */
  async function siteWithDomain(content: string, extra: object = {}) {
    const project = await createProject(alice, extra);
    await deploySite(t, deployToken, project.slug, [{ path: 'index.html', content }]);
    const domain = uniqueDomain();
    const attached = (await patchDomain(project.id, domain).expect(200)).body;
    return { ...project, domain, records: attached.domainRecords as DnsRecord[] };
  }

  async function verifiedSite(content: string, extra: object = {}) {
    const s = await siteWithDomain(content, extra);
    publish(s.records);
    expect((await verify(t, s.id).expect(200)).body.verified).toBe(true);
    return s;
  }

  describe('PATCH /projects/:id {custom_domain}', () => {
    it('normalises the name, starts it pending and answers the records to create', async () => {
      const project = await createProject();
      const label = `Shop-${randomBytes(3).toString('hex')}`;
      const res = await patchDomain(project.id, `WWW.${label}.Bücher.Example.`).expect(200);
      const domain = `www.${label.toLowerCase()}.xn--bcher-kva.example`;
      expect(res.body).toMatchObject({ custom_domain: domain, domainStatus: 'pending', domainVerifiedAt: null });
      expect(res.body.domainRecords).toEqual([
        { type: 'TXT', name: `_statichost-challenge.${domain}`, value: expect.stringMatching(/^[0-9a-f]{32}$/) },
        { type: 'CNAME', name: domain, value: `${project.slug}.${SITES_DOMAIN}` },
      ]);
      // The records stay on the project: the owner may come back for them.
      const got = await getProject(project.id);
      expect(got).toMatchObject({ custom_domain: domain, domainStatus: 'pending', domainRecords: res.body.domainRecords });
      const listed = (await t.http().get('/projects?limit=100').set(asUser(alice)).expect(200)).body.data.find((p: { id: string }) => p.id === project.id);
      expect(listed.domainRecords).toEqual(res.body.domainRecords);
    });

    it('decides from the row as it stands once another PATCH waiting ahead of it has committed', async () => {
      const s = await verifiedSite('raced');
      // Another request holds the project's row and detaches the domain; this PATCH waits for it.
      const detach = await changeUnderLock(t, 'projects', s.id, (c) =>
        c.query(`UPDATE projects SET custom_domain = NULL, domain_status = NULL, domain_verified_at = NULL, domain_token = NULL WHERE id = $1`, [s.id]),
      );
      const again = patchDomain(s.id, s.domain).then((r) => r);
      await someoneWaits(t);
      await detach.commit();
      // The domain was detached meanwhile: asking for it again attaches it anew (pending), not "no change, still verified".
      expect((await again).body).toMatchObject({ custom_domain: s.domain, domainStatus: 'pending', domainVerifiedAt: null });
    });

    it('shows null domain fields on a project without a domain', async () => {
      const project = await createProject();
      expect(await getProject(project.id)).toMatchObject({ custom_domain: null, domainStatus: null, domainVerifiedAt: null, domainRecords: null });
    });

    it.each([
      ['https://www.example.test', 'scheme'],
      ['www.example.test:8443', 'port'],
      ['www.example.test/shop', 'path'],
      ['192.0.2.10', 'IP address'],
      ['[2001:db8::1]', 'IP address'],
      ['intranet', 'at least two labels'],
      ['-bad.example.test', 'invalid label'],
      ['*.example.test', 'wildcard'],
      [`blog.${SITES_DOMAIN}`, 'sites domain'],
      [SITES_DOMAIN.toUpperCase(), 'sites domain'],
      ['api.example.test', "API's host name"],
      ['', 'must not be empty'],
    ])('refuses %j with 400 invalid_domain (%s)', async (value, why) => {
      const project = await createProject();
      const res = await patchDomain(project.id, value).expect(400);
      expect(res.body).toMatchObject({ statusCode: 400, code: 'invalid_domain' });
      expect(res.body.message).toMatch(/^custom_domain: /);
      expect(res.body.message).toContain(why);
      expect((await getProject(project.id)).custom_domain).toBeNull();
    });

    it('refuses a non-string with 400 naming the field', async () => {
      const project = await createProject();
      expect((await patchDomain(project.id, 42).expect(400)).body.message).toContain('custom_domain');
    });

    it('lets several projects wait on one name; the one the DNS names verifies it, and then the name is taken (409), in any spelling', async () => {
      const mine = await siteWithDomain('mine');
      // Attaching proves nothing, so it does not keep the name from anyone: Bob waits on it too.
      const theirs = await createProject(bob);
      const bobs = (await patchDomain(theirs.id, `${mine.domain.toUpperCase()}.`, bob).expect(200)).body;
      expect(bobs).toMatchObject({ custom_domain: mine.domain, domainStatus: 'pending' });
      // The domain's DNS publishes Alice's token: hers verifies, and from then on the name is hers.
      publish(mine.records);
      expect((await verify(t, mine.id).expect(200)).body.verified).toBe(true);
      for (const spelling of [mine.domain, `${mine.domain.toUpperCase()}.`]) {
        const another = await createProject();
        const res = await patchDomain(another.id, spelling).expect(409);
        expect(res.body).toMatchObject({ statusCode: 409, code: 'domain_taken' });
        expect(res.body.message).toContain(mine.domain);
      }
      // Bob's waiting claim cannot verify while Alice's holds, even were his token published too.
      publish((bobs.domainRecords as DnsRecord[]).filter((r) => r.type === 'TXT'));
      expect((await verify(t, theirs.id, bob).expect(409)).body.code).toBe('domain_taken');
      expect(await getProjectOf(bob, theirs.id)).toMatchObject({ domainStatus: 'pending' });
      expect((await onHost(t, mine.domain).expect(200)).text).toContain('mine');
      // Detaching frees the name at once.
      await patchDomain(mine.id, null).expect(200);
      expect((await verify(t, theirs.id, bob).expect(200)).body.verified).toBe(true);
    });

    it('hides another workspace’s project behind 404 and needs the admin scope', async () => {
      const theirs = await createProject(bob);
      await patchDomain(theirs.id, uniqueDomain()).expect(404);
      await verify(t, theirs.id).expect(404);
      const reader = await createApiToken(t, alice, { scopes: ['read'] });
      const mine = await createProject();
      await t.http().post(`/projects/${mine.id}/verify-domain`).set(bearer(reader.token)).expect(403);
    });
  });

  describe('POST /projects/:id/verify-domain', () => {
    it('answers 409 no_custom_domain when nothing is attached', async () => {
      const project = await createProject();
      const res = await verify(t, project.id).expect(409);
      expect(res.body).toMatchObject({ code: 'no_custom_domain' });
      expect(res.body.message).toContain('custom_domain');
    });

    it('refuses a body', async () => {
      const project = await createProject();
      expect((await verify(t, project.id).send({ domainStatus: 'verified' }).expect(400)).body.message).toContain('domainStatus');
    });

    it('reports missing records: 200, verified false, what was expected and found', async () => {
      const s = await siteWithDomain('missing');
      const res = await verify(t, s.id).expect(200);
      expect(res.body).toEqual({
        verified: false,
        custom_domain: s.domain,
        domainStatus: 'pending',
        domainVerifiedAt: null,
        domainCheckedAt: expect.any(String),
        records: [
          { type: 'TXT', name: `_statichost-challenge.${s.domain}`, expected: s.records[0].value, found: [], ok: false, error: null },
          { type: 'CNAME', name: s.domain, expected: `${s.slug}.${SITES_DOMAIN}`, found: [], ok: false, error: null },
        ],
      });
      // The app really asked our DNS server, for both names.
      expect(dns.questions).toEqual(
        expect.arrayContaining([
          { name: `_statichost-challenge.${s.domain}`, type: 'TXT' },
          { name: s.domain, type: 'CNAME' },
        ]),
      );
    });

    it('reports a wrong token and stays pending', async () => {
      const s = await siteWithDomain('wrong token');
      dns.setTxt(s.records[0].name, 'not-the-token', 'v=spf1 -all');
      dns.setCname(s.domain, `${s.slug}.${SITES_DOMAIN}`);
      const res = await verify(t, s.id).expect(200);
      expect(res.body).toMatchObject({ verified: false, domainStatus: 'pending', domainVerifiedAt: null });
      expect(res.body.records[0]).toMatchObject({ found: ['not-the-token', 'v=spf1 -all'], ok: false });
      expect(res.body.records[1]).toMatchObject({ found: [`${s.slug}.${SITES_DOMAIN}`], ok: true });
      expect((await getProject(s.id)).domainStatus).toBe('pending');
    });

    it('reports a domain whose DNS fails (SERVFAIL) as not verified, naming the error', async () => {
      const s = await siteWithDomain('servfail');
      dns.setServfail(s.records[0].name);
      const res = await verify(t, s.id).expect(200);
      expect(res.body.verified).toBe(false);
      expect(res.body.records[0]).toMatchObject({ found: [], ok: false, error: 'ESERVFAIL' });
    });

    it('verifies a pending domain once the TXT token is published', async () => {
      const s = await siteWithDomain('to verify');
      // The token decides on its own: no CNAME yet (an apex domain may use ALIAS or A records).
      dns.setTxt(s.records[0].name, 'google-site-verification=abc', s.records[0].value);
      const res = await verify(t, s.id).expect(200);
      expect(res.body).toMatchObject({ verified: true, custom_domain: s.domain, domainStatus: 'verified' });
      expect(res.body.domainVerifiedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(res.body.records[0]).toMatchObject({ ok: true, error: null });
      expect(res.body.records[1]).toMatchObject({ ok: false });
      const got = await getProject(s.id);
      expect(got).toMatchObject({ domainStatus: 'verified', domainVerifiedAt: res.body.domainVerifiedAt });

      // Sending the same name again, in another spelling, changes nothing.
      const again = await patchDomain(s.id, s.domain.toUpperCase()).expect(200);
      expect(again.body).toMatchObject({ domainStatus: 'verified', domainRecords: got.domainRecords });
      // A second verification keeps the first domainVerifiedAt.
      expect((await verify(t, s.id).expect(200)).body.domainVerifiedAt).toBe(res.body.domainVerifiedAt);
    });

    it('answers 503 dns_timeout when DNS never answers, and changes nothing', async () => {
      const s = await siteWithDomain('timeout');
      const asked = silent.questions.length;
      const res = await verify(dev, s.id).expect(503);
      expect(res.body).toMatchObject({ statusCode: 503, code: 'dns_timeout' });
      expect(res.body.message).toContain(`_statichost-challenge.${s.domain}`);
      expect(res.body.message).toContain('300 ms');
      expect(res.headers['retry-after']).toBe('30');
      expect(silent.questions.length).toBeGreaterThan(asked);
      expect(await getProject(s.id)).toMatchObject({ domainStatus: 'pending', domainVerifiedAt: null });
    });

    it('starts over when the name changes: pending, a new token, no longer served', async () => {
      const s = await verifiedSite('changing');
      await onHost(t, s.domain).expect(200);
      const other = uniqueDomain('shop');
      const res = await patchDomain(s.id, other).expect(200);
      expect(res.body).toMatchObject({ custom_domain: other, domainStatus: 'pending', domainVerifiedAt: null });
      expect(res.body.domainRecords[0].value).not.toBe(s.records[0].value);
      await onHost(t, s.domain).expect(404);
      await onHost(t, other).expect(404);
    });
  });

  describe('serving', () => {
    it('serves a verified domain like the project’s own host, and nothing before', async () => {
      const s = await siteWithDomain('<h1>custom home</h1>');
      const before = await onHost(t, s.domain).expect(404);
      expect(before.text).toContain('Site not found');
      publish(s.records);
      await verify(t, s.id).expect(200);
      for (const host of [s.domain, `${s.domain.toUpperCase()}:${t.port}`, `${s.domain}.`]) {
        const res = await onHost(t, host).expect(200);
        expect(res.text).toBe('<h1>custom home</h1>');
        expect(res.headers['x-content-type-options']).toBe('nosniff');
      }
      expect((await site(t, s.slug).get('/').expect(200)).text).toBe('<h1>custom home</h1>');
      // The domain is a site host: the API is not behind it (the site, without a 404.html, answers as an SPA).
      const api = await onHost(t, s.domain, '/health').expect(200);
      expect(api.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(api.text).toBe('<h1>custom home</h1>');
    });

    it('keeps the gate on the custom domain', async () => {
      const password = 'custom gate pass';
      const s = await verifiedSite('<h1>gated</h1>', { gate_type: 'password', password });
      const locked = await onHost(t, s.domain).expect(401);
      expect(locked.text).not.toContain('<h1>gated</h1>');
      expect(locked.headers['cache-control']).toBe('private, no-store');
      const login = await t.http().post('/.statichost/gate').set('Host', s.domain).type('form').send({ password, next: '/' }).expect(303);
      const cookie = (login.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
      const open = await onHost(t, s.domain).set('Cookie', cookie).expect(200);
      expect(open.text).toBe('<h1>gated</h1>');
    });

    it('stops answering at once when the domain is detached', async () => {
      const s = await verifiedSite('<h1>detach me</h1>');
      await onHost(t, s.domain).expect(200);
      const res = await patchDomain(s.id, null).expect(200);
      expect(res.body).toMatchObject({ custom_domain: null, domainStatus: null, domainVerifiedAt: null, domainRecords: null });
      await onHost(t, s.domain).expect(404);
      await eventually(async () => void (await onHost(dev, s.domain, '/health').expect(200)));
    });

    it('in the dev default (API_HOSTS unset) serves verified domains and leaves every other host to the API', async () => {
      const s = await siteWithDomain('<h1>dev</h1>');
      // Pending: still the API's (attaching a name nobody verified cannot take a host from the API).
      const pending = await onHost(dev, s.domain, '/health').expect(200);
      expect(pending.body.status).toBe('ok');
      await onHost(dev, 'some-service:3000', '/health').expect(200);
      await onHost(dev, `localhost:${dev.port}`, '/health').expect(200);
      publish(s.records);
      await verify(t, s.id).expect(200);
      // `dev` hears of the change over NOTIFY.
      await eventually(async () => expect((await onHost(dev, s.domain).expect(200)).text).toBe('<h1>dev</h1>'));
      expect((await onHost(dev, s.domain, '/health').expect(200)).text).toBe('<h1>dev</h1>');
    });
  });

  describe('the cost for other hosts', () => {
    it('asks the database about a host once, however many requests arrive together', async () => {
      const host = uniqueDomain('burst');
      const query = jest.spyOn(dev.dataSource, 'query');
      const lookups = () =>
        query.mock.calls.filter(([sql, params]) => String(sql).includes('custom_domain') && (params as unknown[] | undefined)?.[0] === host).length;
      const burst = () => Promise.all(Array.from({ length: 20 }, () => onHost(dev, host, '/health').expect(200)));
      await burst();
      expect(lookups()).toBe(1);
      await burst();
      expect(lookups()).toBe(1);
      // Names that can never be attached are not looked up at all.
      await onHost(dev, 'app:3000', '/health').expect(200);
      await onHost(dev, `127.0.0.1:${dev.port}`, '/health').expect(200);
      expect(query.mock.calls.filter(([sql]) => String(sql).includes('custom_domain')).length).toBe(1);
    });
  });

  describe('re-check in the background', () => {
    const rechecker = (app: TestApp) => app.app.get(DomainRechecker);
    const moveClock = (app: TestApp) => {
      const spy = jest.spyOn(app.app.get(Clock), 'now');
      return (at: number) => spy.mockReturnValue(new Date(at));
    };
    const status = async (projectId: string) => (await getProject(projectId)).domainStatus;

    it('keeps a domain whose token stays published', async () => {
      const setNow = moveClock(t);
      const t0 = Date.now();
      setNow(t0);
      const s = await verifiedSite('<h1>steady</h1>');
      setNow(t0 + 25 * HOUR);
      const report = await rechecker(t).runOnce();
      expect(report).toMatchObject({ ran: true });
      expect(report.passed).toBeGreaterThanOrEqual(1);
      const [row] = await t.dataSource.query('SELECT domain_status, domain_checked_at, domain_failing_since FROM projects WHERE id = $1', [s.id]);
      expect(row).toEqual({ domain_status: 'verified', domain_checked_at: new Date(t0 + 25 * HOUR), domain_failing_since: null });
    });

    it('fails a domain after 72 hours of failed checks, and it stops serving', async () => {
      const setNow = moveClock(t);
      const t0 = Date.now() + 1000 * HOUR; // after every other test's checks, so only what this test sets is due
      setNow(t0);
      const s = await verifiedSite('<h1>dangling</h1>');
      dns.clear(s.records[0].name); // the owner let the records go

      setNow(t0 + 1 * HOUR);
      await rechecker(t).runOnce();
      expect(await getProject(s.id)).toMatchObject({ domainStatus: 'verified' }); // not due yet: checked an hour ago

      setNow(t0 + 24 * HOUR);
      expect(await rechecker(t).runOnce()).toMatchObject({ ran: true, failing: 1 });
      expect(await status(s.id)).toBe('verified');
      await onHost(t, s.domain).expect(200); // still served inside the window

      setNow(t0 + 48 * HOUR);
      await rechecker(t).runOnce();
      setNow(t0 + 95 * HOUR);
      expect(await rechecker(t).runOnce()).toMatchObject({ failing: 1, failed: 0 });
      expect(await status(s.id)).toBe('verified');

      // Failing since 24 h: the next due check (a day after 95 h) is past 24 + 72 h.
      setNow(t0 + 120 * HOUR);
      expect(await rechecker(t).runOnce()).toMatchObject({ ran: true, failed: 1 });
      expect(await status(s.id)).toBe('failed');
      await onHost(t, s.domain).expect(404);
      await eventually(async () => void (await onHost(dev, s.domain, '/health').expect(200)));

      // Failed domains are not re-checked; the owner verifies again once the record is back.
      publish(s.records);
      setNow(t0 + 200 * HOUR);
      await rechecker(t).runOnce();
      const [row] = await t.dataSource.query('SELECT domain_status, domain_checked_at FROM projects WHERE id = $1', [s.id]);
      expect(row).toEqual({ domain_status: 'failed', domain_checked_at: new Date(t0 + 120 * HOUR) });
      const back = await verify(t, s.id).expect(200);
      expect(back.body).toMatchObject({ verified: true, domainStatus: 'verified', domainVerifiedAt: new Date(t0 + 200 * HOUR).toISOString() });
      expect((await onHost(t, s.domain).expect(200)).text).toBe('<h1>dangling</h1>');
    });

    it('forgives failures once a check passes again', async () => {
      const setNow = moveClock(t);
      const t0 = Date.now() + 2000 * HOUR;
      setNow(t0);
      const s = await verifiedSite('<h1>flaky</h1>');
      dns.clear(s.records[0].name);
      setNow(t0 + 24 * HOUR);
      expect(await rechecker(t).runOnce()).toMatchObject({ failing: 1 });
      publish(s.records);
      setNow(t0 + 48 * HOUR);
      await rechecker(t).runOnce();
      expect((await t.dataSource.query('SELECT domain_failing_since FROM projects WHERE id = $1', [s.id]))[0].domain_failing_since).toBeNull();
      dns.clear(s.records[0].name);
      setNow(t0 + 72 * HOUR);
      await rechecker(t).runOnce();
      setNow(t0 + 110 * HOUR);
      await rechecker(t).runOnce();
      // Failing since 72 h, not since 24 h: 38 hours is inside the window.
      const [row] = await t.dataSource.query('SELECT domain_status, domain_failing_since FROM projects WHERE id = $1', [s.id]);
      expect(row).toEqual({ domain_status: 'verified', domain_failing_since: new Date(t0 + 72 * HOUR) });
    });

    it('counts nothing when our DNS does not answer', async () => {
      const setNow = moveClock(dev);
      const t0 = Date.now() + 3000 * HOUR;
      jest.spyOn(t.app.get(Clock), 'now').mockReturnValue(new Date(t0));
      const s = await verifiedSite('<h1>resolver down</h1>');
      dns.clear(s.records[0].name);
      setNow(t0 + 25 * HOUR);
      const report = await rechecker(dev).runOnce(); // its DNS server never answers
      expect(report).toMatchObject({ ran: true, failing: 0, failed: 0 });
      expect(report.inconclusive).toBeGreaterThanOrEqual(1);
      const [row] = await t.dataSource.query('SELECT domain_status, domain_checked_at, domain_failing_since FROM projects WHERE id = $1', [s.id]);
      expect(row).toEqual({ domain_status: 'verified', domain_checked_at: new Date(t0 + 25 * HOUR), domain_failing_since: null });
    });

    it('lets one instance at a time run it', async () => {
      const holder = new Client({ connectionString: t.databaseUrl });
      await holder.connect();
      try {
        await holder.query('SELECT pg_advisory_lock($1)', [ADVISORY_LOCKS.domainRecheck]);
        expect(await rechecker(t).runOnce()).toEqual({ ran: false, checked: 0, passed: 0, failing: 0, failed: 0, inconclusive: 0 });
        await holder.query('SELECT pg_advisory_unlock($1)', [ADVISORY_LOCKS.domainRecheck]);
        expect((await rechecker(t).runOnce()).ran).toBe(true);
      } finally {
        await holder.end();
      }
    });
  });

  describe('GET /internal/tls/allowed (the ask of the TLS proxy)', () => {
    const INTERNAL_TOKEN = 'internal-token-'.padEnd(40, 'x');
    let withToken: TestApp;
    beforeAll(async () => {
      withToken = await startTestApp({ sibling: t, env: { ...UNLIMITED, SITES_DOMAIN, API_HOSTS: 'api.example.test', INTERNAL_TOKEN } });
    });
    afterAll(async () => withToken?.close());
    const ask = (app: TestApp, domain: string) => app.http().get('/internal/tls/allowed').query({ domain });

    it("allows the API host, an existing project's site host and a verified custom domain", async () => {
      await ask(t, 'api.example.test').expect(200, { domain: 'api.example.test', allowed: true });
      const project = await createProject();
      await ask(t, `${project.slug}.${SITES_DOMAIN}`).expect(200);
      const s = await verifiedSite('<h1>tls</h1>');
      await ask(t, s.domain).expect(200);
    });

    it('allows the preview host of an existing deployment, and no other version of it', async () => {
      const project = await createProject();
      await deploySite(t, deployToken, project.slug, [{ path: 'index.html', content: '<h1>v1</h1>' }]);
      const [d] = (await t.http().get(`/projects/${project.id}/deployments`).set(asUser(alice)).expect(200)).body.data;
      const previewHost = new URL(d.previewUrl).hostname;
      expect(previewHost).toBe(`${project.slug}--1.${SITES_DOMAIN}`);
      await ask(t, previewHost).expect(200, { domain: previewHost, allowed: true });
      await ask(t, `${project.slug}--2.${SITES_DOMAIN}`).expect(404);
      await ask(t, `no-such-project-${randomBytes(3).toString('hex')}--1.${SITES_DOMAIN}`).expect(404);
    });

    it('refuses every other name: unknown slugs, pending domains, strangers, other forms', async () => {
      const pending = await siteWithDomain('<h1>pending</h1>');
      const res = await ask(t, pending.domain).expect(404);
      expect(res.body).toMatchObject({ code: 'certificate_not_allowed' });
      await ask(t, `no-such-project-${randomBytes(3).toString('hex')}.${SITES_DOMAIN}`).expect(404);
      await ask(t, `a.b.${SITES_DOMAIN}`).expect(404);
      await ask(t, SITES_DOMAIN).expect(404);
      await ask(t, uniqueDomain()).expect(404);
      // Loopback names reach the API, but no certificate is issued for them unless they are in API_HOSTS.
      await ask(withToken, 'localhost').expect(404);
      await ask(withToken, '127.0.0.1').expect(404);
      await ask(withToken, '10.0.0.1').expect(404);
      await ask(t, `API.example.test:443`).expect(404); // a name with a port is not a name Caddy asks about
      await t.http().get('/internal/tls/allowed').expect(400);
    });

    it('stops allowing a domain that was verified and then failed its re-checks', async () => {
      const spy = jest.spyOn(t.app.get(Clock), 'now');
      const t0 = Date.now() + 5000 * HOUR; // after every other test's checks
      spy.mockReturnValue(new Date(t0));
      const s = await verifiedSite('<h1>failing</h1>');
      await ask(t, s.domain).expect(200);
      dns.clear(s.records[0].name);
      for (const hours of [24, 48, 72, 96, 120]) {
        spy.mockReturnValue(new Date(t0 + hours * HOUR));
        await t.app.get(DomainRechecker).runOnce();
      }
      expect((await getProject(s.id)).domainStatus).toBe('failed');
      await ask(t, s.domain).expect(404);
    });

    it('answers repeated asks for a refused name from memory: one database lookup', async () => {
      const host = uniqueDomain('again');
      const query = jest.spyOn(withToken.dataSource, 'query');
      for (let i = 0; i < 200; i++) await ask(withToken, host).expect(404);
      expect(query.mock.calls.filter(([, params]) => (params as unknown[] | undefined)?.includes(host)).length).toBe(1);
    });

    it('allows a name at once when its domain is verified after a refusal, on this instance and on another', async () => {
      const s = await siteWithDomain('<h1>refused first</h1>');
      await ask(t, s.domain).expect(404);
      await ask(withToken, s.domain).expect(404);
      publish(s.records);
      await verify(t, s.id).expect(200);
      await ask(t, s.domain).expect(200);
      // The other instance hears of it over NOTIFY and forgets its refusal.
      await eventually(async () => void (await ask(withToken, s.domain).expect(200)));
    });

    it('rate-limits the lookups a scan of made-up names causes: past the limit 429 (a refusal to Caddy), without a query', async () => {
      // Made before the instance starts, so no notice of its making can reach it during the test.
      const site = await createProject();
      await deploySite(t, deployToken, site.slug, [{ path: 'index.html', content: '<h1>known</h1>' }]);
      const known = `${site.slug}.${SITES_DOMAIN}`;
      const limited = await startTestApp({ sibling: t, env: { ...UNLIMITED, SITES_DOMAIN, API_HOSTS: 'api.example.test', TLS_ASK_LOOKUPS_PER_MINUTE: '5' } });
      try {
        const names = Array.from({ length: 200 }, (_, i) => (i % 2 ? uniqueDomain() : `made-up-${randomBytes(4).toString('hex')}.${SITES_DOMAIN}`));
        const query = jest.spyOn(limited.dataSource, 'query');
        const statuses: number[] = [];
        // Twenty at a time, as handshakes arrive.
        for (let i = 0; i < names.length; i += 20) {
          for (const res of await Promise.all(names.slice(i, i + 20).map((name) => ask(limited, name)))) {
            statuses.push(res.status);
            if (res.status === 429) {
              expect(res.body).toMatchObject({ statusCode: 429, code: 'rate_limited' });
              expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
            }
          }
        }
        expect(statuses.filter((s) => s === 404)).toHaveLength(5);
        expect(statuses.filter((s) => s === 429)).toHaveLength(195);
        // A slug's lookup carries the slug, a custom domain's the whole name.
        const named = (p: unknown) => typeof p === 'string' && names.some((n) => n === p || n.startsWith(`${p}.`));
        const lookups = query.mock.calls.filter(([, params]) => (params as unknown[] | undefined)?.some(named));
        expect(lookups.length).toBeLessThanOrEqual(5);
        // Names it already refused, and the API host, cost no lookup and are still answered.
        await ask(limited, names[statuses.indexOf(404)]).expect(404);
        await ask(limited, 'api.example.test').expect(200);
        // A real site the instance already knows (it served it) costs no lookup either: the flood
        // that spent the budget does not keep it from its certificate.
        await limited.http().get('/').set('Host', known).expect(200);
        await ask(limited, known).expect(200);
      } finally {
        await limited.close();
      }
    });

    it('answers only direct loopback callers or the bearer of INTERNAL_TOKEN, as an unknown route to anyone else', async () => {
      const project = await createProject();
      const host = `${project.slug}.${SITES_DOMAIN}`;
      // A reverse proxy on this machine connects from loopback for the whole internet: its forwarding headers make it external.
      const proxied = await ask(t, host).set('X-Forwarded-For', '203.0.113.7').expect(404);
      expect(proxied.body).toMatchObject({ code: 'not_found' });
      await ask(t, host).set('X-Forwarded-For', '203.0.113.7').set('Authorization', `Bearer ${INTERNAL_TOKEN}`).expect(404); // t has no token configured
      await ask(withToken, host).set('X-Forwarded-For', '203.0.113.7').set('Authorization', `Bearer ${INTERNAL_TOKEN}`).expect(200);
      await ask(withToken, host)
        .set('X-Forwarded-For', '203.0.113.7')
        .set('Authorization', `Bearer ${INTERNAL_TOKEN.slice(1)}x`)
        .expect(404);
    });
  });
});
