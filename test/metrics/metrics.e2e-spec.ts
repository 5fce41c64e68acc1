import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { TtlSweeper } from '../../src/deployments/ttl-sweeper.service';
import { startTestApp, type TestApp } from '../helpers/app';
import { eventually } from '../helpers/eventually';
import { asUser, bearer, createApiToken, registerUser, type UserSession } from '../helpers/identity';
import { sample } from '../helpers/prometheus';
import { deploySite, site } from '../helpers/sites';

const METRICS_TOKEN = 'metrics-token-'.padEnd(40, 'm');
const INTERNAL_TOKEN = 'internal-token-'.padEnd(40, 'i');
// Unlimited but for the TTL, so one deploy can be refused with a 402.
const PLANS_JSON = JSON.stringify({ free: { projects: null, deploymentsPerMonth: null, storageBytes: null, maxFileBytes: null, maxTtl: '7d' } });

describe('GET /metrics (e2e)', () => {
  let t: TestApp;
  let off: TestApp;
  let owner: UserSession;
  let token: string;

  beforeAll(async () => {
    t = await startTestApp({ env: { METRICS_TOKEN, INTERNAL_TOKEN, PLANS_JSON } });
    off = await startTestApp({ sibling: t, env: { METRICS_ENABLED: 'false' } });
    owner = await registerUser(t);
    token = (await createApiToken(t, owner, { scopes: ['deploy', 'read'] })).token;
  });
  afterAll(async () => {
    await off?.close();
    await t?.close();
  });

  const scrape = async () => (await t.http().get('/metrics').expect(200)).text;

  it('answers the Prometheus text format with every documented family', async () => {
    const res = await t.http().get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.headers['cache-control']).toBe('no-store');
    for (const name of [
      'statichost_http_requests_total',
      'statichost_http_request_duration_seconds',
      'statichost_site_requests_total',
      'statichost_site_request_duration_seconds',
      'statichost_site_file_cache_hits_total',
      'statichost_site_file_cache_misses_total',
      'statichost_site_file_cache_bytes',
      'statichost_site_cache_bytes',
      'statichost_site_cache_budget_bytes',
      'statichost_site_cache_loads',
      'statichost_site_manifest_loads_total',
      'statichost_deploys_total',
      'statichost_deploy_bytes_total',
      'statichost_deploy_duration_seconds',
      'statichost_job_runs_total',
      'statichost_db_pool_connections',
      'statichost_http_connections',
      'statichost_connections_refused_total',
      'statichost_outbox_messages',
      'statichost_outbox_oldest_due_seconds',
      'statichost_process_cpu_user_seconds_total',
      'statichost_nodejs_eventloop_lag_seconds',
    ]) {
      expect(res.text).toContain(`# TYPE ${name} `);
    }
  });

  it('counts API requests by route template, deploys, site answers by class, the file cache and job rounds', async () => {
    const before = await scrape();
    await t.http().get('/projects').set(asUser(owner)).expect(200);
    await t.http().get('/projects/proj_doesnotexist00000000000000').set(asUser(owner)).expect(404);
    await t.http().get('/no/such/route').expect(404);
    const dep = await deploySite(t, token, 'metrics-site', [{ path: 'index.html', content: '<h1>m</h1>' }]);
    await site(t, 'metrics-site').get('/').expect(200);
    await site(t, 'metrics-site').get('/').expect(200);
    await site(t, 'metrics-site').get('/missing.js').expect(404);
    await t.app.get(TtlSweeper).runOnce();
    const after = await scrape();

    const delta = (name: string, labels: Record<string, string> = {}) => sample(after, name, labels) - sample(before, name, labels);
    expect(delta('statichost_http_requests_total', { route: '/projects', method: 'GET', status: '200' })).toBe(1);
    expect(delta('statichost_http_requests_total', { route: '/projects/:projectId', method: 'GET', status: '404' })).toBe(1);
    expect(delta('statichost_http_requests_total', { route: 'unmatched', method: 'GET', status: '404' })).toBe(1);
    expect(delta('statichost_http_request_duration_seconds_count', { route: '/projects', method: 'GET' })).toBe(1);
    expect(delta('statichost_deploys_total', { outcome: 'ok' })).toBe(1);
    expect(delta('statichost_deploy_bytes_total')).toBe(dep.size_bytes);
    expect(delta('statichost_site_requests_total', { status_class: '2xx' })).toBe(2);
    expect(delta('statichost_site_requests_total', { status_class: '4xx' })).toBe(1);
    expect(delta('statichost_site_request_duration_seconds_count')).toBe(3);
    expect(delta('statichost_site_file_cache_misses_total')).toBe(1);
    expect(delta('statichost_site_file_cache_hits_total')).toBe(1);
    expect(sample(after, 'statichost_site_file_cache_bytes')).toBeGreaterThanOrEqual(10);
    expect(delta('statichost_job_runs_total', { job_name: 'TtlSweeper', outcome: 'ok' })).toBe(1);
    expect(sample(after, 'statichost_db_pool_connections', { state: 'idle' })).toBeGreaterThanOrEqual(1);
  });

  it('labels job rounds job_name: a `job` label is renamed exported_job by Prometheus, which sets its own', async () => {
    await t.app.get(TtlSweeper).runOnce();
    const lines = (await scrape()).split('\n').filter((l) => l.startsWith('statichost_job_runs_total{'));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(line).toMatch(/[{,]job_name="[A-Za-z]+"/);
      expect(line).not.toMatch(/[{,]job="/);
    }
  });

  it('counts refused deploys (402 quota, 400 bad _redirects) as refused, not failed', async () => {
    const before = await scrape();
    const deploy = (body: object) =>
      t
        .http()
        .post('/v1/deployments')
        .set(bearer(token))
        .send({ project_slug: 'metrics-refused', ...body });
    const quota = await deploy({ files: [{ path: 'index.html', content: 'x' }], ttl: '30d' }).expect(402);
    expect(quota.body.code).toBe('quota_exceeded');
    const rules = await deploy({
      files: [
        { path: 'index.html', content: 'x' },
        { path: '_redirects', content: '/a' },
      ],
    }).expect(400);
    expect(rules.body.code).toBe('invalid_redirects');
    const after = await scrape();

    const delta = (labels: Record<string, string>) => sample(after, 'statichost_deploys_total', labels) - sample(before, 'statichost_deploys_total', labels);
    expect(delta({ outcome: 'refused' })).toBe(2);
    expect(delta({ outcome: 'failed' })).toBe(0);
    expect(delta({ outcome: 'ok' })).toBe(0);
    expect(sample(after, 'statichost_deploy_duration_seconds_count') - sample(before, 'statichost_deploy_duration_seconds_count')).toBe(2);
  });

  it('shows every outbox kind’s queue: due, waiting for a retry, dead, and how long the oldest has been due', async () => {
    const now = Date.now();
    // A kind nobody registered is still shown once it has messages; registered kinds always are.
    await t.dataSource.query(
      `INSERT INTO outbox_messages (id, kind, payload, created_at, attempts, next_attempt_at, dead_at) VALUES
         ('obx_metricsdue1', 'test.metrics', '{}', $1, 0, $1, NULL),
         ('obx_metricsdue2', 'test.metrics', '{}', $2, 0, $2, NULL),
         ('obx_metricswait', 'test.metrics', '{}', $2, 1, $3, NULL),
         ('obx_metricsdead', 'test.metrics', '{}', $1, 12, $1, $2)`,
      [new Date(now - 120_000), new Date(now - 1_000), new Date(now + 3_600_000)],
    );
    try {
      // Read from PostgreSQL at most every 5 s (an earlier scrape's values may still be shown).
      const text = await eventually(async () => {
        const scraped = await scrape();
        expect({
          due: sample(scraped, 'statichost_outbox_messages', { kind: 'test.metrics', state: 'due' }),
          waiting: sample(scraped, 'statichost_outbox_messages', { kind: 'test.metrics', state: 'waiting' }),
          dead: sample(scraped, 'statichost_outbox_messages', { kind: 'test.metrics', state: 'dead' }),
        }).toEqual({ due: 2, waiting: 1, dead: 1 });
        return scraped;
      }, 15_000);
      const oldest = sample(text, 'statichost_outbox_oldest_due_seconds', { kind: 'test.metrics' });
      expect(oldest).toBeGreaterThanOrEqual(119);
      expect(oldest).toBeLessThan(190);
      // The webhook kind is registered: its series are there even with nothing queued (zeros).
      expect(text).toMatch(/^statichost_outbox_messages\{kind="webhook",state="due"\} \d+$/m);
      expect(text).toMatch(/^statichost_outbox_oldest_due_seconds\{kind="webhook"\} [\d.]+$/m);
    } finally {
      await t.dataSource.query(`DELETE FROM outbox_messages WHERE kind = 'test.metrics'`);
    }
  });

  it('answers a scrape in about a second when the outbox cannot be read, with every other family', async () => {
    // A fresh instance (no read of the outbox yet) while the outbox's table is locked, as a
    // migration would hold it: the scrape does not wait for it past a second.
    const sibling = await startTestApp({ sibling: t, env: { METRICS_TOKEN, INTERNAL_TOKEN, PLANS_JSON } });
    const locker = t.dataSource.createQueryRunner();
    await locker.connect();
    await locker.startTransaction();
    try {
      await locker.query('LOCK TABLE outbox_messages IN ACCESS EXCLUSIVE MODE');
      const started = performance.now();
      const res = await sibling.http().get('/metrics').timeout(5_000).expect(200);
      expect(performance.now() - started).toBeLessThan(3_000);
      expect(res.text).toContain('# TYPE statichost_db_pool_connections ');
      expect(res.text).not.toMatch(/^statichost_outbox_messages\{/m);
    } finally {
      await locker.rollbackTransaction();
      await locker.release();
      await sibling.close();
    }
  });

  it('answers only direct loopback callers or the bearer of METRICS_TOKEN, on the API host only', async () => {
    await t.http().get('/metrics').set('X-Forwarded-For', '198.51.100.4').expect(404);
    await t.http().get('/metrics').set('X-Forwarded-For', '198.51.100.4').set('Authorization', `Bearer ${METRICS_TOKEN}`).expect(200);
    await t.http().get('/metrics').set('Authorization', 'Bearer sk_live_wrong').expect(200); // loopback, no proxy: the token is not needed
    // A site host never reaches the API: the site (no 404.html, so an SPA) answers with its index.html.
    const onSite = await site(t, 'metrics-site').get('/metrics').expect(200);
    expect(onSite.text).toBe('<h1>m</h1>');
  });

  it('keeps the two tokens apart: INTERNAL_TOKEN does not open /metrics, METRICS_TOKEN does not open /internal/*', async () => {
    const proxied = (path: string, token: string) => t.http().get(path).set('X-Forwarded-For', '198.51.100.4').set('Authorization', `Bearer ${token}`);
    await proxied('/metrics', INTERNAL_TOKEN).expect(404);
    // A name the ask allows: refused to METRICS_TOKEN's bearer as an unknown route, allowed to INTERNAL_TOKEN's.
    await deploySite(t, token, 'metrics-ask', [{ path: 'index.html', content: 'a' }]);
    const ask = `/internal/tls/allowed?domain=metrics-ask.${t.config.SITES_DOMAIN}`;
    await proxied(ask, METRICS_TOKEN).expect(404);
    await proxied(ask, INTERNAL_TOKEN).expect(200);
  });

  it("has every family README's metrics table names, under the name written there", async () => {
    const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('### Metrics'), readme.indexOf('\n### ', readme.indexOf('### Metrics') + 1));
    const names = section
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .flatMap((line) => [...line.split('|')[1].matchAll(/`([^`]+)`/g)].map((m) => m[1]));
    expect(names.length).toBeGreaterThan(10);
    const families = [...(await scrape()).matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]);
    for (const name of names) {
      const found = name.endsWith('*') ? families.some((f) => f.startsWith(name.slice(0, -1))) : families.includes(name);
      expect({ name, found }).toEqual({ name, found: true });
    }
  });

  it('is not there when METRICS_ENABLED=false', async () => {
    await off.http().get('/metrics').expect(404);
  });
});
