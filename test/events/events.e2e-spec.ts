import { createHash, randomBytes } from 'node:crypto';

import { BuildSweeper, LEASE_EXPIRED } from '../../src/builds/queue/build-sweeper.service';
import { badRequest } from '../../src/common/errors';
import { Clock } from '../../src/common/time';
import { TtlSweeper } from '../../src/deployments/ttl-sweeper.service';
import { DomainRechecker } from '../../src/domains/domain-rechecker.service';
import { EventBus } from '../../src/events/event-bus';
import { eventBody, type EventType } from '../../src/events/events';
import { buildsApi, contentSite, createProject, startBuildApp } from '../builds/flow-support';
import type { TestApp } from '../helpers/app';
import { startDnsServer, type TestDnsServer } from '../helpers/dns';
import { emailGatedProject, freshIp, submitEmail } from '../helpers/email-gate';
import { type GitServer, startGitServer } from '../helpers/git-server';
import { asUser, bearer, createApiToken, registerUser, type UserSession } from '../helpers/identity';
import { deploySite } from '../helpers/sites';

jest.setTimeout(180_000);

const HOUR = 3600_000;
/** Five deployments a month: small enough for a suite to cross 50 %, 75 % and 100 % of it. */
const PLANS_JSON = JSON.stringify({
  free: { projects: null, deploymentsPerMonth: 5, storageBytes: null, maxFileBytes: null, maxTtl: null, concurrentBuilds: null, buildMinutesPerMonth: null },
});

interface Recorded {
  type: EventType;
  workspaceId: string;
  /** The wire body (eventBody without personal data). */
  body: { type: string; timestamp: string; workspaceId: string; data: Record<string, unknown> };
  personal: Record<string, unknown> | null;
}

const page = (html: string) => [{ path: 'index.html', content: html }];
const slugOf = (label: string) => `${label}-${randomBytes(3).toString('hex')}`;

/**
 * Issue 30, area events: each change emits its event through the app's real EventBus,
 * inside the transaction that made the change. The listener here writes what it hears
 * into a table with the emitter's transaction, as webhooks and notifications queue their
 * work: an event exists exactly when the change committed.
 */
describe('Platform events at their sources (e2e)', () => {
  let t: TestApp;
  let dns: TestDnsServer;
  let git: GitServer;

  beforeAll(async () => {
    [dns, git] = await Promise.all([startDnsServer(), startGitServer()]);
    t = await startBuildApp({ PLANS_JSON, DNS_SERVERS: dns.server, DNS_TIMEOUT_MS: '2000', DOMAIN_FAIL_AFTER_HOURS: '1' });
    await t.dataSource.query(
      'CREATE TABLE test_events (seq bigserial PRIMARY KEY, type text NOT NULL, workspace_id text NOT NULL, body jsonb NOT NULL, personal jsonb)',
    );
    const bus = t.app.get(EventBus);
    // Records every event, written in the emitter's transaction as the real listeners' writes are.
    bus.listen(async (_reader, event) => async (m) => {
      await m.query('INSERT INTO test_events (type, workspace_id, body, personal) VALUES ($1, $2, $3, $4)', [
        event.type,
        event.workspaceId,
        eventBody(event, false),
        event.personal ?? null,
      ]);
    });
    // A listener that refuses after the recorder heard the event: the change rolls back, and the event with it (the "rollback" test).
    bus.listen(async (_reader, event) => {
      if (event.type === 'deployment.created' && event.data.projectSlug.startsWith('refused-'))
        throw badRequest('this suite refuses deployments of refused-* projects');
      return undefined;
    });
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(async () => {
    await t?.close();
    await dns?.close();
    await git?.close();
  });

  /** The events of a workspace, in the order they were emitted; only `types` when given. */
  async function eventsOf(workspaceId: string, ...types: EventType[]): Promise<Recorded[]> {
    const rows: { type: EventType; workspace_id: string; body: Recorded['body']; personal: Recorded['personal'] }[] = await t.dataSource.query(
      'SELECT type, workspace_id, body, personal FROM test_events WHERE workspace_id = $1 ORDER BY seq',
      [workspaceId],
    );
    return rows
      .filter((r) => types.length === 0 || types.includes(r.type))
      .map((r) => ({ type: r.type, workspaceId: r.workspace_id, body: r.body, personal: r.personal }));
  }
  const dataOf = async (workspaceId: string, ...types: EventType[]) => (await eventsOf(workspaceId, ...types)).map((e) => ({ type: e.type, ...e.body.data }));

  const moveClock = () => {
    const spy = jest.spyOn(t.app.get(Clock), 'now');
    return (at: number) => spy.mockReturnValue(new Date(at));
  };

  describe('deployments', () => {
    const DEPLOYMENT_EVENTS: EventType[] = ['deployment.created', 'deployment.promoted', 'deployment.archived'];
    let user: UserSession;
    let token: string;
    let tokenId: string;
    const slug = slugOf('events-site');
    let projectId: string;
    let d1: string;
    let d2: string;

    beforeAll(async () => {
      user = await registerUser(t);
      ({ token, id: tokenId } = await createApiToken(t, user, { scopes: ['deploy', 'read', 'admin'] }));
    });

    it('a deploy emits deployment.created with the preview address the API reports, live, by its creator', async () => {
      const before = Date.now();
      d1 = (await deploySite(t, token, slug, page('<h1>one</h1>'))).id;
      const [created] = await eventsOf(user.workspaceId);
      expect(created.type).toBe('deployment.created');
      projectId = created.body.data.projectId as string;
      const shown = (await t.http().get(`/projects/${projectId}/deployments/${d1}`).set(bearer(token)).expect(200)).body;
      expect(created.body).toEqual({
        type: 'deployment.created',
        timestamp: expect.any(String),
        workspaceId: user.workspaceId,
        data: { projectId, projectSlug: slug, deploymentId: d1, version: 1, url: shown.previewUrl, live: true, createdBy: tokenId },
      });
      expect(new Date(created.body.timestamp).getTime()).toBeGreaterThanOrEqual(before - 1000);
      expect(await eventsOf(user.workspaceId)).toHaveLength(1);
    });

    it('a second deploy: created (live), then the one it replaced archived with reason replaced', async () => {
      d2 = (await deploySite(t, token, slug, page('<h1>two</h1>'))).id;
      expect((await dataOf(user.workspaceId, ...DEPLOYMENT_EVENTS)).slice(1)).toEqual([
        expect.objectContaining({ type: 'deployment.created', deploymentId: d2, version: 2, live: true }),
        { type: 'deployment.archived', projectId, projectSlug: slug, deploymentId: d1, version: 1, reason: 'replaced' },
      ]);
    });

    it('an unpublished deploy is created with live false and replaces nothing', async () => {
      const res = await t
        .http()
        .post(`/projects/${projectId}/deployments`)
        .set(bearer(token))
        .send({ files: page('<h1>three</h1>'), publish: false })
        .expect(201);
      expect((await dataOf(user.workspaceId, ...DEPLOYMENT_EVENTS)).slice(3)).toEqual([
        expect.objectContaining({ type: 'deployment.created', deploymentId: res.body.id, version: 3, live: false, url: res.body.previewUrl }),
      ]);
    });

    it('a rollback emits deployment.promoted with the live address and the one it replaced; promoting the live one emits nothing', async () => {
      await t.http().patch(`/projects/${projectId}/deployments/${d1}/promote`).set(bearer(token)).expect(200);
      expect((await dataOf(user.workspaceId, ...DEPLOYMENT_EVENTS)).slice(4)).toEqual([
        { type: 'deployment.archived', projectId, projectSlug: slug, deploymentId: d2, version: 2, reason: 'replaced' },
        { type: 'deployment.promoted', projectId, projectSlug: slug, deploymentId: d1, version: 1, url: t.config.siteUrl(slug), previousDeploymentId: d2 },
      ]);
      await t.http().patch(`/projects/${projectId}/deployments/${d1}/promote`).set(bearer(token)).expect(200);
      expect(await dataOf(user.workspaceId, ...DEPLOYMENT_EVENTS)).toHaveLength(6);
    });

    it('archiving emits deployment.archived with reason archived, once', async () => {
      await t.http().patch(`/projects/${projectId}/deployments/${d1}/archive`).set(asUser(user)).expect(200);
      await t.http().patch(`/projects/${projectId}/deployments/${d1}/archive`).set(asUser(user)).expect(200);
      expect((await dataOf(user.workspaceId, ...DEPLOYMENT_EVENTS)).slice(6)).toEqual([
        { type: 'deployment.archived', projectId, projectSlug: slug, deploymentId: d1, version: 1, reason: 'archived' },
      ]);
    });

    it('the TTL sweeper expiring a deployment emits deployment.archived with reason expired', async () => {
      const d4 = (await deploySite(t, token, slug, page('<h1>short-lived</h1>'), { ttl: '1h' })).id;
      const seen = (await dataOf(user.workspaceId, ...DEPLOYMENT_EVENTS)).length;
      moveClock()(Date.now() + 2 * HOUR);
      expect(await t.app.get(TtlSweeper).runOnce()).toMatchObject({ ran: true });
      expect((await dataOf(user.workspaceId, ...DEPLOYMENT_EVENTS)).slice(seen)).toEqual([
        { type: 'deployment.archived', projectId, projectSlug: slug, deploymentId: d4, version: 4, reason: 'expired' },
      ]);
    });
  });

  it('a digest-only deploy (blobs uploaded first) emits deployment.created like any other', async () => {
    const user = await registerUser(t);
    const { token } = await createApiToken(t, user, { scopes: ['deploy'] });
    const body = Buffer.from('<h1>from a digest</h1>');
    const sha256 = createHash('sha256').update(body).digest('hex');
    await t.http().put(`/v1/blobs/${sha256}`).set(bearer(token)).set('Content-Type', 'application/octet-stream').send(body).expect(201);
    const slug = slugOf('digest');
    const res = await t
      .http()
      .post('/v1/deployments')
      .set(bearer(token))
      .send({ project_slug: slug, files: [{ path: 'index.html', sha256, size: body.length }] })
      .expect(201);
    expect(await dataOf(user.workspaceId)).toEqual([
      expect.objectContaining({ type: 'deployment.created', projectSlug: slug, deploymentId: res.body.id, version: 1, live: true }),
    ]);
  });

  describe('usage thresholds and deploys that roll back', () => {
    it('usage.threshold fires at 50 %, 75 % and 100 % of the month’s deployments, once per crossing; the refused deploy emits nothing', async () => {
      const user = await registerUser(t);
      const { token } = await createApiToken(t, user, { scopes: ['deploy'] });
      const slug = slugOf('quota-site');
      for (let i = 1; i <= 2; i++) await deploySite(t, token, slug, page(`<p>${i}</p>`));
      expect(await eventsOf(user.workspaceId, 'usage.threshold')).toEqual([]);

      // 50 % of 5 is 2.5: reached at the third.
      await deploySite(t, token, slug, page('<p>3</p>'));
      expect(await dataOf(user.workspaceId, 'usage.threshold')).toEqual([
        { type: 'usage.threshold', metric: 'deploymentsPerMonth', used: 3, limit: 5, percent: 50 },
      ]);
      await deploySite(t, token, slug, page('<p>4</p>'));
      await deploySite(t, token, slug, page('<p>5</p>'));
      expect((await dataOf(user.workspaceId, 'usage.threshold')).slice(1)).toEqual([
        { type: 'usage.threshold', metric: 'deploymentsPerMonth', used: 4, limit: 5, percent: 75 },
        { type: 'usage.threshold', metric: 'deploymentsPerMonth', used: 5, limit: 5, percent: 100 },
      ]);

      const all = (await eventsOf(user.workspaceId)).length;
      const refused = await t
        .http()
        .post('/v1/deployments')
        .set(bearer(token))
        .send({ project_slug: slug, files: page('<p>6</p>') });
      expect(refused.status).toBe(402);
      expect(await eventsOf(user.workspaceId)).toHaveLength(all);

      // The count falls back under 50 % (as if the month's figure were corrected) and climbs again: same month, no second event.
      await t.dataSource.query('UPDATE workspace_monthly_usage SET deployments = 2 WHERE workspace_id = $1', [user.workspaceId]);
      for (const n of [3, 4, 5]) await deploySite(t, token, slug, page(`<p>${n} again</p>`));
      expect(await eventsOf(user.workspaceId, 'usage.threshold')).toHaveLength(3);
      expect(await eventsOf(user.workspaceId, 'deployment.created')).toHaveLength(8);
    });

    it('a change that rolls back after its event was emitted leaves no event (and no deployment)', async () => {
      const user = await registerUser(t);
      const { token } = await createApiToken(t, user, { scopes: ['deploy'] });
      const slug = slugOf('refused');
      const res = await t
        .http()
        .post('/v1/deployments')
        .set(bearer(token))
        .send({ project_slug: slug, files: page('<p>never</p>') });
      expect(res.status).toBe(400);
      expect(await eventsOf(user.workspaceId)).toEqual([]);
      expect(await t.dataSource.query('SELECT id FROM projects WHERE slug = $1', [slug])).toEqual([]);
    });
  });

  describe('leads', () => {
    it('lead.captured once for a new lead, with the email only as personal data; a repeat visitor emits nothing', async () => {
      const user = await registerUser(t);
      const slug = slugOf('gated');
      const projectId = await emailGatedProject(t, user, slug);
      const { token } = await createApiToken(t, user, { scopes: ['deploy'] });
      await deploySite(t, token, slug, page('<h1>members</h1>'));

      const ip = freshIp();
      expect((await submitEmail(t, slug, 'Visitor@Example.com', { ip })).status).toBe(303);
      expect((await submitEmail(t, slug, 'visitor@example.com', { ip })).status).toBe(303);

      const leads = (await t.http().get(`/projects/${projectId}/gate/leads`).set(asUser(user)).expect(200)).body.data;
      expect(leads).toHaveLength(1);
      const captured = await eventsOf(user.workspaceId, 'lead.captured');
      expect(captured).toHaveLength(1);
      expect(captured[0].body.data).toEqual({ projectId, projectSlug: slug, leadId: leads[0].id });
      expect(captured[0].personal).toEqual({ email: leads[0].email });
      expect(JSON.stringify(captured[0].body)).not.toContain('example.com');
    });
  });

  describe('custom domains', () => {
    it('domain.verified when a domain becomes verified; domain.failed when a verified one stops verifying', async () => {
      const setNow = moveClock();
      const t0 = Date.now() + 1000 * HOUR;
      setNow(t0);
      const user = await registerUser(t);
      const project = (
        await t
          .http()
          .post('/projects')
          .set(asUser(user))
          .send({ name: slugOf('domain'), type: 'static_site', default_ttl: 'forever' })
          .expect(201)
      ).body as { id: string; slug: string };
      const domain = `www.d${randomBytes(4).toString('hex')}.example.test`;
      const records = (await t.http().patch(`/projects/${project.id}`).set(asUser(user)).send({ custom_domain: domain }).expect(200)).body.domainRecords as {
        type: string;
        name: string;
        value: string;
      }[];
      const txt = records.find((r) => r.type === 'TXT')!;

      // Not published yet: the check fails, the domain stays pending, no event.
      expect((await t.http().post(`/projects/${project.id}/verify-domain`).set(asUser(user)).expect(200)).body.verified).toBe(false);
      expect(await eventsOf(user.workspaceId, 'domain.verified', 'domain.failed')).toEqual([]);

      dns.setTxt(txt.name, txt.value);
      expect((await t.http().post(`/projects/${project.id}/verify-domain`).set(asUser(user)).expect(200)).body.verified).toBe(true);
      await t.http().post(`/projects/${project.id}/verify-domain`).set(asUser(user)).expect(200); // still verified: nothing new
      expect(await dataOf(user.workspaceId, 'domain.verified', 'domain.failed')).toEqual([
        { type: 'domain.verified', projectId: project.id, projectSlug: project.slug, domain },
      ]);

      dns.clear(txt.name);
      setNow(t0 + 25 * HOUR);
      await t.app.get(DomainRechecker).runOnce(); // failing, still served (DOMAIN_FAIL_AFTER_HOURS=1 counts from here)
      expect(await eventsOf(user.workspaceId, 'domain.failed')).toEqual([]);
      setNow(t0 + 50 * HOUR);
      await t.app.get(DomainRechecker).runOnce();
      expect((await t.http().get(`/projects/${project.id}`).set(asUser(user)).expect(200)).body.domainStatus).toBe('failed');
      expect(await dataOf(user.workspaceId, 'domain.failed')).toEqual([
        { type: 'domain.failed', projectId: project.id, projectSlug: project.slug, domain, reason: expect.stringContaining(txt.name) },
      ]);
    });
  });

  describe('builds', () => {
    it('a production build emits build.started, then deployment.created and build.succeeded; a failing branch build emits build.failed', async () => {
      const user = await registerUser(t);
      const { token } = await createApiToken(t, user, { scopes: ['deploy', 'read', 'admin'] });
      const project = await createProject(t, token, slugOf('events-build'));
      const api = buildsApi(t, token, project.id);
      const repo = `events-${randomBytes(3).toString('hex')}`;
      const sha = git.createRepo(repo, contentSite('Hello events'));
      await api.connect({ repository: git.url(repo), productionBranch: 'main', outputDirectory: 'dist' }).expect(200);

      const { build } = await api.run({});
      expect(build.status).toBe('ready');
      const dashboardUrl = `${t.config.apiBaseUrl}/app/w/${user.workspaceId}/projects/${project.id}/builds/${build.id}`;
      const ref = {
        projectId: project.id,
        projectSlug: project.slug,
        buildId: build.id,
        branch: 'main',
        trigger: 'manual',
        pullRequest: null,
        production: true,
        dashboardUrl,
      };
      const events = await dataOf(user.workspaceId, 'build.started', 'build.succeeded', 'build.failed', 'deployment.created');
      expect(events).toEqual([
        // Started before the commit was resolved: its sha is not known yet.
        { type: 'build.started', ...ref, commitSha: null },
        expect.objectContaining({ type: 'deployment.created', deploymentId: build.deploymentId, live: true }),
        { type: 'build.succeeded', ...ref, commitSha: sha, deploymentId: build.deploymentId, url: build.url },
      ]);

      git.commit(repo, { 'build.js': "console.error('no such page'); process.exit(1);\n" }, { branch: 'broken', from: 'main', message: 'break it' });
      const failed = (await api.run({ ref: 'broken' })).build;
      expect(failed.status).toBe('failed');
      expect((await dataOf(user.workspaceId, 'build.started', 'build.succeeded', 'build.failed', 'deployment.created')).slice(3)).toEqual([
        expect.objectContaining({ type: 'build.started', buildId: failed.id, branch: 'broken', production: false }),
        expect.objectContaining({ type: 'build.failed', buildId: failed.id, branch: 'broken', production: false, error: failed.error }),
      ]);

      // A builder that vanished mid-build: the lease sweeper ends its build, and announces it.
      const lost = (await api.run({ ref: 'broken' })).build;
      await t.dataSource.query(
        `UPDATE builds SET status = 'running', error = NULL, finished_at = NULL, lease_expires_at = now() - interval '1 hour' WHERE id = $1`,
        [lost.id],
      );
      const seen = (await eventsOf(user.workspaceId, 'build.failed')).length;
      expect(await t.app.get(BuildSweeper).runOnce()).toMatchObject({ ran: true, failed: 1 });
      expect((await dataOf(user.workspaceId, 'build.failed')).slice(seen)).toEqual([
        expect.objectContaining({ type: 'build.failed', buildId: lost.id, production: false, error: LEASE_EXPIRED }),
      ]);
    });
  });
});
