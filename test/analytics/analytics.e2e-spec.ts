import { Agent, request } from 'node:http';
import { connect } from 'node:net';

import { AnalyticsRecorder } from '../../src/analytics/analytics-recorder.service';
import { AnalyticsRetention } from '../../src/analytics/analytics-retention.service';
import { startTestApp, type TestApp } from '../helpers/app';
import { asUser, bearer, createApiToken, registerUser, type UserSession } from '../helpers/identity';
import { deploySite, site, siteHost } from '../helpers/sites';

// Addresses and agents that must never be stored or logged.
const V1 = { ip: '203.0.113.71', ua: 'Mozilla/5.0 (X11; Linux x86_64) VisitorOneMarker/1.0 Firefox/120.0' };
const V2 = { ip: '198.51.100.92', ua: 'Mozilla/5.0 (Macintosh) VisitorTwoMarker/2.0 Safari/605.1.15' };
const BOT = { ip: '192.0.2.13', ua: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' };
const GATE_VISITOR = { ip: '203.0.113.200', ua: 'Mozilla/5.0 GateVisitorMarker/3.0' };
const PASSWORD = 'open sesame 42';

type Visitor = { ip: string; ua: string };

describe('Site analytics (e2e)', () => {
  let a: TestApp;
  let b: TestApp;
  let owner: UserSession;
  let blogId: string;
  let vaultId: string;
  let listId: string;

  const env = { TRUST_PROXY: 'true', ANALYTICS_FLUSH_SECONDS: '0', ANALYTICS_RETENTION_INTERVAL_SECONDS: '0' };
  const visit = (t: TestApp, slug: string, v: Visitor, path: string, referer?: string) => {
    const req = site(t, slug).get(path).set('X-Forwarded-For', v.ip).set('User-Agent', v.ua);
    return referer ? req.set('Referer', referer) : req;
  };
  const analytics = (projectId: string, query = '') => a.http().get(`/projects/${projectId}/analytics${query}`).set(asUser(owner));
  // b first: V1 was seen by both, V2 by b only, so a sketch overwritten instead of merged would lose V2.
  const flushAll = async () => {
    await b.app.get(AnalyticsRecorder).flush();
    await a.app.get(AnalyticsRecorder).flush();
  };

  beforeAll(async () => {
    a = await startTestApp({ env });
    b = await startTestApp({ sibling: a, env });
    owner = await registerUser(a);
    const { token } = await createApiToken(a, owner, { scopes: ['deploy'] });
    await deploySite(a, token, 'blog', [
      { path: 'index.html', content: '<h1>home</h1>' },
      { path: 'about.html', content: '<h1>about</h1>' },
      { path: 'app.css', content: 'body{color:red}' },
    ]);
    blogId = (await a.http().get('/projects?limit=100').set(asUser(owner)).expect(200)).body.data.find((p: { slug: string }) => p.slug === 'blog').id;
    vaultId = (
      await a
        .http()
        .post('/projects')
        .set(asUser(owner))
        .send({ name: 'Vault', slug: 'vault', type: 'static_site', gate_type: 'password', password: PASSWORD })
        .expect(201)
    ).body.id;
    await deploySite(a, token, 'vault', [{ path: 'index.html', content: '<h1>inside</h1>' }]);
    listId = (await a.http().post('/projects').set(asUser(owner)).send({ name: 'List', slug: 'list', type: 'static_site', gate_type: 'email' }).expect(201))
      .body.id;
    await deploySite(a, token, 'list', [{ path: 'index.html', content: '<h1>members</h1>' }]);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('counts page views, assets, 404s, bots and visitors from two instances exactly, after a flush', async () => {
    const own = `http://${siteHost(a, 'blog')}/`;
    await visit(a, 'blog', V1, '/', 'https://news.ycombinator.com/item?id=1').expect(200);
    await visit(b, 'blog', V1, '/about', own).expect(200); // same visitor, other instance; own host is no referrer
    await visit(a, 'blog', V1, '/app.css', own).expect(200);
    await visit(a, 'blog', V1, '/old.php').expect(404);
    await visit(a, 'blog', V1, '/?utm_source=mail').expect(200);
    await site(a, 'blog').head('/').set('X-Forwarded-For', V1.ip).set('User-Agent', V1.ua).expect(200);
    await visit(b, 'blog', V2, '/', 'https://www.google.com/search?q=x').expect(200);
    await visit(b, 'blog', V2, '/old.php').expect(404);
    await visit(b, 'blog', V2, '/about').expect(200);
    await visit(a, 'blog', BOT, '/').expect(200);
    await visit(b, 'blog', BOT, '/about').expect(200);

    // Nothing is written until a flush.
    expect((await analytics(blogId).expect(200)).body.totals.requests).toBe(0);
    await flushAll();

    const body = (await analytics(blogId).expect(200)).body;
    expect(body.interval).toBe('day');
    expect(body.totals).toEqual({ pageViews: 5, visitors: 2, requests: 11, bytes: expect.any(Number), status4xx: 2, status5xx: 0, botRequests: 2 });
    expect(body.totals.bytes).toBeGreaterThan(11 * 100); // bodies and headers
    expect(body.topPages).toEqual([
      { path: '/', pageViews: 3 },
      { path: '/about', pageViews: 2 },
    ]);
    expect(body.topReferrers).toEqual([
      { host: 'google.com', pageViews: 1 },
      { host: 'news.ycombinator.com', pageViews: 1 },
    ]);
    expect(body.topNotFound).toEqual([{ path: '/old.php', requests: 2 }]);
    expect(body.funnel).toEqual({ gateType: 'none', gateViews: 0, wrongPasswords: 0, unlocks: 0, emailsCaptured: 0, unlockRate: null });
    const today = new Date().toISOString().slice(0, 10);
    expect(body.series.at(-1)).toMatchObject({ time: `${today}T00:00:00.000Z`, pageViews: 5, visitors: 2, requests: 11 });
    expect(body.series.slice(0, -1).every((p: { requests: number }) => p.requests === 0)).toBe(true);

    const hourly = (await analytics(blogId, '?interval=hour&from=' + new Date(Date.now() - 3_600_000).toISOString()).expect(200)).body;
    expect(hourly.totals).toMatchObject({ pageViews: 5, visitors: 2, requests: 11 });
    expect(hourly.series.at(-1)).toMatchObject({ pageViews: 5, visitors: null });
    // A whole day (daily rows) plus today's hours (hourly rows): the same lists.
    const yesterday = new Date(Date.parse(`${today}T00:00:00Z`) - 86_400_000).toISOString();
    const mixed = (await analytics(blogId, `?interval=hour&from=${yesterday}`).expect(200)).body;
    expect(mixed.series).toHaveLength(24 + new Date().getUTCHours() + 1);
    expect([mixed.topPages, mixed.topReferrers, mixed.topNotFound]).toEqual([body.topPages, body.topReferrers, body.topNotFound]);

    // A second flush with nothing new adds nothing; a visitor coming back is still one.
    await visit(a, 'blog', V2, '/').expect(200);
    await flushAll();
    await flushAll();
    expect((await analytics(blogId).expect(200)).body.totals).toMatchObject({ pageViews: 6, visitors: 2, requests: 12 });
  });

  it('counts every visitor that a proxy sends over one keep-alive connection', async () => {
    const { token } = await createApiToken(a, owner, { scopes: ['deploy'] });
    await deploySite(a, token, 'proxied', [
      { path: 'index.html', content: '<h1>home</h1>' },
      { path: 'about.html', content: '<h1>about</h1>' },
    ]);
    const projectId = (await a.http().get('/projects?limit=100').set(asUser(owner)).expect(200)).body.data.find(
      (p: { slug: string }) => p.slug === 'proxied',
    ).id;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const sockets = new Set<unknown>();
    const get = (v: Visitor, path: string) =>
      new Promise<number>((done, fail) => {
        const headers = { Host: siteHost(a, 'proxied'), 'X-Forwarded-For': v.ip, 'User-Agent': v.ua };
        const req = request({ host: '127.0.0.1', port: a.port, path, agent, headers }, (res) => {
          sockets.add(res.socket);
          res.resume();
          res.on('end', () => done(res.statusCode ?? 0));
        });
        req.on('error', fail);
        req.end();
      });
    // The same agent from the same address is another visitor; so is the same agent from another.
    const V1_OTHER_AGENT = { ip: V1.ip, ua: `${V1.ua} Other/1` };
    const V2_FROM_V1 = { ip: V1.ip, ua: V2.ua };
    for (const [v, path] of [
      [V1, '/'],
      [V1, '/about'],
      [V2, '/'],
      [V2_FROM_V1, '/'], // the previous agent, another address
      [V1, '/'],
      [V1_OTHER_AGENT, '/'], // the previous address, another agent
      [V2, '/about'],
    ] as const)
      expect(await get(v, path)).toBe(200);
    agent.destroy();
    expect(sockets.size).toBe(1);
    await flushAll();
    expect((await analytics(projectId).expect(200)).body.totals).toMatchObject({ pageViews: 7, visitors: 4, requests: 7 });
  });

  it('counts the bytes of pipelined answers, each with its own', async () => {
    const { token } = await createApiToken(a, owner, { scopes: ['deploy'] });
    await deploySite(a, token, 'piped', [{ path: 'index.html', content: `<h1>${'pipelined '.repeat(200)}</h1>` }]);
    const projectId = (await a.http().get('/projects?limit=100').set(asUser(owner)).expect(200)).body.data.find((p: { slug: string }) => p.slug === 'piped').id;
    // The site and its file in memory first, so both pipelined answers are sent at once.
    await visit(a, 'piped', V1, '/').expect(200);
    await flushAll();
    const before = (await analytics(projectId).expect(200)).body.totals.bytes as number;

    const ask = (close: boolean) =>
      `GET / HTTP/1.1\r\nHost: ${siteHost(a, 'piped')}\r\nX-Forwarded-For: ${V1.ip}\r\nUser-Agent: ${V1.ua}\r\n${close ? 'Connection: close\r\n' : ''}\r\n`;
    const received = await new Promise<number>((done, fail) => {
      const socket = connect(a.port, '127.0.0.1', () => socket.write(ask(false) + ask(true)));
      let bytes = 0;
      socket.on('data', (d: Buffer) => (bytes += d.length));
      socket.on('end', () => done(bytes));
      socket.on('error', fail);
    });
    expect(received).toBeGreaterThan(2 * 2000);
    await flushAll();
    const totals = (await analytics(projectId).expect(200)).body.totals;
    expect(totals.requests).toBe(3);
    expect(totals.bytes - before).toBe(received);
  });

  it('shows the password gate funnel: gate views → unlocks, with the rate', async () => {
    const v = GATE_VISITOR;
    await visit(a, 'vault', v, '/').expect(401);
    await visit(a, 'vault', v, '/docs').expect(401);
    const login = (password: string) =>
      site(a, 'vault').post('/.statichost/gate').set('X-Forwarded-For', v.ip).set('User-Agent', v.ua).type('form').send({ password, next: '/' });
    await login('wrong').expect(401);
    const ok = await login(PASSWORD).expect(303);
    const cookie = (ok.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
    await visit(a, 'vault', v, '/').set('Cookie', cookie).expect(200);
    await flushAll();
    const body = (await analytics(vaultId).expect(200)).body;
    expect(body.funnel).toEqual({ gateType: 'password', gateViews: 2, wrongPasswords: 1, unlocks: 1, emailsCaptured: 0, unlockRate: 0.5 });
    expect(body.totals).toMatchObject({ pageViews: 1, visitors: 1 });
  });

  it('shows the email gate funnel: gate views → captured emails', async () => {
    const v = GATE_VISITOR;
    await visit(b, 'list', v, '/').expect(401);
    await site(b, 'list')
      .post('/.statichost/gate')
      .set('X-Forwarded-For', v.ip)
      .set('User-Agent', v.ua)
      .type('form')
      .send({ email: 'ada@example.com', next: '/' })
      .expect(303);
    await b.close(); // shutdown writes what b still holds
    b = await startTestApp({ sibling: a, env });
    await a.app.get(AnalyticsRecorder).flush();
    expect((await analytics(listId).expect(200)).body.funnel).toEqual({
      gateType: 'email',
      gateViews: 1,
      wrongPasswords: 0,
      unlocks: 1,
      emailsCaptured: 1,
      unlockRate: 1,
    });
  });

  it('refuses bad ranges with a 400 naming the field', async () => {
    const cases: [string, string][] = [
      ['?from=2026-11-10&to=2026-11-01', 'to'],
      ['?from=2024-01-01&to=2026-01-01', 'to'],
      ['?interval=week', 'interval'],
      ['?from=last-tuesday', 'from'],
      // Dates PostgreSQL cannot read (no year 0; past 9999): a 400, never the database's error as a 500.
      ['?from=0000-01-01&to=0000-01-05', 'to'],
      ['?from=9999-12-30&to=9999-12-31', 'to'],
    ];
    for (const [query, field] of cases) {
      const res = await analytics(blogId, query).expect(400);
      expect(res.body).toMatchObject({ statusCode: 400, code: 'validation_failed', field });
      expect(res.body.message).toMatch(new RegExp(`^${field}:`));
    }
  });

  it('is read-scoped, project-bound tokens see their project only, other workspaces get 404', async () => {
    const reader = await createApiToken(a, owner, { scopes: ['read'] });
    await a.http().get(`/projects/${blogId}/analytics`).set(bearer(reader.token)).expect(200);
    const bound = await createApiToken(a, owner, { scopes: ['read'], projectId: vaultId });
    await a.http().get(`/projects/${vaultId}/analytics`).set(bearer(bound.token)).expect(200);
    await a.http().get(`/projects/${blogId}/analytics`).set(bearer(bound.token)).expect(404);
    const deployOnly = await createApiToken(a, owner, { scopes: ['deploy'] });
    await a.http().get(`/projects/${blogId}/analytics`).set(bearer(deployOnly.token)).expect(403);
    const stranger = await registerUser(a);
    await a.http().get(`/projects/${blogId}/analytics`).set(asUser(stranger)).expect(404);
  });

  it('stores and logs nothing about a visitor’s address or agent', async () => {
    const columns: { table_name: string; column_name: string; data_type: string }[] = await a.dataSource.query(
      `SELECT table_name, column_name, data_type FROM information_schema.columns
       WHERE table_schema = 'public' AND table_name LIKE 'analytics\\_%' AND data_type IN ('text', 'bytea', 'character varying')`,
    );
    expect(columns.map((c) => `${c.table_name}.${c.column_name}`).sort()).toEqual(
      [
        'analytics_daily.key',
        'analytics_daily.kind',
        'analytics_hourly.key',
        'analytics_hourly.kind',
        'analytics_secrets.secret',
        'analytics_visitors.sketch',
        'analytics_visitors.project_id',
        'analytics_daily.project_id',
        'analytics_hourly.project_id',
      ].sort(),
    );
    let dump = '';
    for (const c of columns) {
      const rows: { v: string }[] = await a.dataSource.query(
        `SELECT ${c.data_type === 'bytea' ? `encode("${c.column_name}", 'escape')` : `"${c.column_name}"`} AS v FROM "${c.table_name}"`,
      );
      expect(rows.length).toBeGreaterThan(0);
      dump += rows.map((r) => r.v).join('\n');
    }
    const hex = (s: string) => Buffer.from(s).toString('hex');
    const logs = [...a.logs, ...b.logs].join('\n');
    for (const v of [V1, V2, BOT, GATE_VISITOR]) {
      for (const needle of [v.ip, v.ua, v.ua.split(' ').find((w) => /Marker|Googlebot/.test(w))!]) {
        expect(dump).not.toContain(needle);
        expect(logs).not.toContain(needle);
      }
      const rawHex: { n: string }[] = await a.dataSource.query(
        `SELECT count(*) AS n FROM analytics_visitors WHERE position(decode($1, 'hex') IN sketch) > 0 OR position(decode($2, 'hex') IN sketch) > 0`,
        [hex(v.ip), Buffer.from(v.ip.split('.').map(Number)).toString('hex')],
      );
      expect(Number(rawHex[0].n)).toBe(0);
    }
  });

  it('keeps hourly rows for the retention period and deletes past visitor keys', async () => {
    await a.dataSource.query(`INSERT INTO analytics_hourly VALUES ($1, now() - interval '91 days', 'path', '/old', 2, 1, 1, 0, 10)`, [blogId]);
    await a.dataSource.query(`INSERT INTO analytics_secrets VALUES (current_date - 2, '\\x00')`);
    const report = await a.app.get(AnalyticsRetention).runOnce();
    expect(report).toMatchObject({ ran: true, hourlyDeleted: 1, dailyDeleted: 0 });
    const old = await a.dataSource.query(`SELECT 1 FROM analytics_hourly WHERE key = '/old'`);
    expect(old).toHaveLength(0);
    const days: { day: string }[] = await a.dataSource.query(`SELECT day::text AS day FROM analytics_secrets ORDER BY day`);
    expect(days.every((d) => d.day >= new Date().toISOString().slice(0, 10))).toBe(true);
  });

  it('folds the long tail of a past day into one (other) row, sums unchanged', async () => {
    const day = '2026-01-15';
    for (const [path, n] of [
      ['/a.php', 9],
      ['/b.php', 5],
      ['/c.php', 2],
      ['/d.php', 1],
    ] as const) {
      await a.dataSource.query(`INSERT INTO analytics_daily VALUES ($1, $2, 'not_found', $3, 0, $4, 0, 0, 0)`, [blogId, day, path, n]);
    }
    const retention = a.app.get(AnalyticsRetention);
    expect(await retention.compact('analytics_daily', day, '2026-01-16', 2)).toBe(2);
    expect(await retention.compact('analytics_daily', day, '2026-01-16', 2)).toBe(0);
    const body = (await analytics(blogId, `?from=${day}&to=${day}`).expect(200)).body;
    expect(body.topNotFound).toEqual([
      { path: '/a.php', requests: 9 },
      { path: '/b.php', requests: 5 },
      { path: '(other)', requests: 3 },
    ]);
  });
});
