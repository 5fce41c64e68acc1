import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { Clock } from '../../src/common/time';
import { OutboxService } from '../../src/outbox/outbox.service';
import { verifySignature } from '../../src/site-webhook/signature';
import { startTestApp, type TestApp } from '../helpers/app';
import { asUser, createApiToken, registerUser, type UserSession } from '../helpers/identity';
import { deploySite, site } from '../helpers/sites';

const SECRET = 'webhook-secret-'.padEnd(40, 'w');
const SITES_DOMAIN = 'sites.example.test';

interface Call {
  headers: IncomingHttpHeaders;
  raw: string;
  body: { id: string; type: string; project_id: string; hosts: string[]; tags: string[]; changed_at: string };
}

/** A purge endpoint on loopback that records every call and can be told to fail. */
async function startReceiver() {
  const calls: Call[] = [];
  let failNext = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      calls.push({ headers: req.headers, raw, body: JSON.parse(raw) });
      res.statusCode = failNext-- > 0 ? 500 : 204;
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/purge`,
    calls,
    failTimes: (n: number) => void (failNext = n),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('Site change webhook (e2e)', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let a: TestApp;
  let b: TestApp;
  let owner: UserSession;
  let token: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    const env = { SITE_CHANGE_WEBHOOK_URL: receiver.url, SITE_CHANGE_WEBHOOK_SECRET: SECRET, SITES_DOMAIN, JWT_SECRET: 'j'.repeat(40) };
    a = await startTestApp({ env });
    b = await startTestApp({ sibling: a, env });
    owner = await registerUser(a);
    token = (await createApiToken(a, owner, { scopes: ['deploy', 'read', 'admin', 'delete'] })).token;
    // The registration's verification mail shares the outbox: sent now, so the counts below are the webhook's.
    await a.app.get(OutboxService).runOnce();
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await receiver?.close();
  });
  beforeEach(() => {
    receiver.calls.length = 0;
  });

  /** Both instances send at once, as their timers would: the lock lets one through. */
  const sendFromBoth = () => Promise.all([a.app.get(OutboxService).runOnce(), b.app.get(OutboxService).runOnce()]);
  const slug = () => `hook-${randomBytes(4).toString('hex')}`;

  it('calls once per change, signed, with the hosts and tags to purge, even with two instances sending', async () => {
    const s = slug();
    const dep = await deploySite(a, token, s, [{ path: 'index.html', content: 'v1' }]);
    const reports = await sendFromBoth();
    expect(reports.reduce((n, r) => n + r.delivered, 0)).toBe(1);
    await sendFromBoth();
    expect(receiver.calls).toHaveLength(1);
    const [call] = receiver.calls;
    expect(verifySignature(call.raw, call.headers['x-statichost-signature'] as string, SECRET)).toBe(true);
    expect(call.headers['content-type']).toBe('application/json');
    expect(call.headers['x-statichost-delivery']).toBe(call.body.id);
    const project = (await a.http().get('/projects').set(asUser(owner)).expect(200)).body.data.find((p: { slug: string }) => p.slug === s);
    expect(call.body).toEqual({
      id: expect.stringMatching(/^obx_/),
      type: 'site.changed',
      project_id: project.id,
      hosts: [`${s}.${SITES_DOMAIN}`],
      tags: [`statichost-project-${project.id}`],
      changed_at: expect.any(String),
    });
    expect(dep.version).toBe(1);
  });

  it('reports promote, archive, gate and domain changes and deletion, each once; the old verified domain is purged too, a pending one never', async () => {
    const s = slug();
    const first = await deploySite(a, token, s, [{ path: 'index.html', content: 'v1' }]);
    await deploySite(a, token, s, [{ path: 'index.html', content: 'v2' }]);
    const project = (await a.http().get('/projects').set(asUser(owner)).expect(200)).body.data.find((p: { slug: string }) => p.slug === s);
    await sendFromBoth();
    receiver.calls.length = 0;

    const base = `/projects/${project.id}`;
    await a.http().patch(`${base}/deployments/${first.id}/promote`).set(asUser(owner)).expect(200);
    await b.http().patch(`${base}/deployments/${first.id}/archive`).set(asUser(owner)).expect(200);
    await a.http().patch(base).set(asUser(owner)).send({ gate_type: 'password', password: 'a long enough password' }).expect(200);
    const old = `www.d${randomBytes(3).toString('hex')}.example.test`;
    const renamed = `www.e${randomBytes(3).toString('hex')}.example.test`;
    await a.http().patch(base).set(asUser(owner)).send({ custom_domain: old }).expect(200);
    // Verified (its DNS published the token); a pending name is not the project's yet and is never purged.
    await a.dataSource.query(`UPDATE projects SET domain_status = 'verified', domain_verified_at = now() WHERE id = $1`, [project.id]);
    await a.http().patch(base).set(asUser(owner)).send({ custom_domain: renamed }).expect(200);
    await b
      .http()
      .delete(base)
      .set(asUser(owner))
      .expect((res) => expect([200, 204]).toContain(res.status));
    await sendFromBoth();

    expect(receiver.calls).toHaveLength(6);
    expect(new Set(receiver.calls.map((c) => c.body.id)).size).toBe(6);
    for (const c of receiver.calls) expect(c.body.tags).toEqual([`statichost-project-${project.id}`]);
    const hosts = receiver.calls.map((c) => c.body.hosts);
    // Attached, pending: a claim proves nothing (another project may serve that name), so only the slug.
    expect(hosts[3]).toEqual([`${s}.${SITES_DOMAIN}`]);
    // Renamed: the verified name it had is purged, the new pending one is not.
    expect(hosts[4]).toEqual([`${s}.${SITES_DOMAIN}`, old].sort());
    expect(hosts[5]).toEqual([`${s}.${SITES_DOMAIN}`]); // deleted: the names it had (its domain still pending)
  });

  it('tags every site answer with what a purge names: the project, and the deployment that answered', async () => {
    const s = slug();
    const dep = await deploySite(a, token, s, [{ path: 'index.html', content: 'tagged' }]);
    await sendFromBoth();
    const [call] = receiver.calls;
    const projectTag = call.body.tags[0];
    for (const res of [await site(a, s).get('/').expect(200), await site(b, s).get('/missing.js').expect(404), await site(a, s).head('/').expect(200)]) {
      expect(res.headers['cache-tag']).toBe(`${projectTag},statichost-deployment-${dep.id}`);
      expect(res.headers['surrogate-key']).toBe(`${projectTag} statichost-deployment-${dep.id}`);
    }
    const etag = (await site(a, s).get('/').expect(200)).headers.etag;
    expect((await site(a, s).get('/').set('If-None-Match', etag).expect(304)).headers['cache-tag']).toContain(projectTag);
  });

  it('queues nothing for a change that was refused', async () => {
    const s = slug();
    await a
      .http()
      .post('/v1/deployments')
      .set({ Authorization: `Bearer ${token}` })
      .send({ project_slug: s, files: [{ path: '../x', content: 'x' }] })
      .expect(400);
    await sendFromBoth();
    expect(receiver.calls).toHaveLength(0);
  });

  it('retries a failed call with backoff and delivers it once the receiver answers', async () => {
    receiver.failTimes(2);
    await deploySite(a, token, slug(), [{ path: 'index.html', content: 'x' }]);
    const clock = jest.spyOn(a.app.get(Clock), 'now');
    try {
      expect((await a.app.get(OutboxService).runOnce()).failed).toBe(1);
      expect((await a.app.get(OutboxService).runOnce()).failed).toBe(0); // not due yet: backoff
      clock.mockReturnValue(new Date(Date.now() + 10_000));
      expect((await a.app.get(OutboxService).runOnce()).failed).toBe(1);
      clock.mockReturnValue(new Date(Date.now() + 60_000));
      expect((await a.app.get(OutboxService).runOnce()).delivered).toBe(1);
    } finally {
      clock.mockRestore();
    }
    expect(receiver.calls).toHaveLength(3);
    expect(new Set(receiver.calls.map((c) => c.body.id)).size).toBe(1); // the same delivery, for receivers to drop repeats
    const [row] = await a.dataSource.query('SELECT attempts, delivered_at IS NOT NULL AS delivered, last_error FROM outbox_messages WHERE id = $1', [
      receiver.calls[0].body.id,
    ]);
    expect(row).toEqual({ attempts: 3, delivered: true, last_error: null });
  });

  it('sends on its own timer when OUTBOX_INTERVAL_SECONDS is set, and survives a restart between write and send', async () => {
    const s = slug();
    await deploySite(a, token, s, [{ path: 'index.html', content: 'x' }]); // queued; nothing sends it yet
    const c = await startTestApp({
      sibling: a,
      env: { SITE_CHANGE_WEBHOOK_URL: receiver.url, SITE_CHANGE_WEBHOOK_SECRET: SECRET, SITES_DOMAIN, OUTBOX_INTERVAL_SECONDS: '1' },
    });
    try {
      const until = Date.now() + 10_000;
      while (receiver.calls.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    } finally {
      await c.close();
    }
    expect(receiver.calls.map((x) => x.body.hosts)).toEqual([[`${s}.${SITES_DOMAIN}`]]);
  });
});

describe('CDN tag headers on site answers (e2e)', () => {
  const slugOf = () => `t${randomBytes(4).toString('hex')}`;

  async function answerOf(env: Record<string, string>) {
    const t = await startTestApp({ env: { SITES_DOMAIN, ...env } });
    try {
      const owner = await registerUser(t);
      const token = (await createApiToken(t, owner, { scopes: ['deploy', 'read'] })).token;
      const s = slugOf();
      const dep = await deploySite(t, token, s, [{ path: 'index.html', content: 'tagged' }]);
      const res = await site(t, s).get('/').expect(200);
      return { headers: res.headers, deploymentId: dep.id as string };
    } finally {
      await t.close();
    }
  }

  it('sends none without a purge webhook: they mean something only to a CDN in front', async () => {
    const { headers } = await answerOf({});
    expect(headers['cache-tag']).toBeUndefined();
    expect(headers['surrogate-key']).toBeUndefined();
  });

  it('sends what SITE_CACHE_TAG_HEADERS names, with or without a webhook', async () => {
    const { headers, deploymentId } = await answerOf({ SITE_CACHE_TAG_HEADERS: 'Surrogate-Key' });
    expect(headers['cache-tag']).toBeUndefined();
    expect(headers['surrogate-key']).toMatch(new RegExp(`^statichost-project-proj_\\w+ statichost-deployment-${deploymentId}$`));
  });
});
