import { request as httpRequest } from 'node:http';

import { AuditLogService } from '../../src/audit/audit-log.service';
import { BUILD_QUEUE, QUEUE_SCHEMA } from '../../src/builds/queue/build-queue';
import { BuildSweeper, LEASE_EXPIRED, NEVER_STARTED, ORPHAN_AFTER_MS } from '../../src/builds/queue/build-sweeper.service';
import { Builder } from '../../src/builds/queue/builder.service';
import { Clock } from '../../src/common/time';
import { monthKey } from '../../src/quotas/quota';
import { startTestApp, type TestApp } from '../helpers/app';
import { eventually } from '../helpers/eventually';
import { type GitServer, startGitServer } from '../helpers/git-server';
import { addMember, asUser, registerUser, type UserSession } from '../helpers/identity';
import { someoneWaits } from '../helpers/row-lock';

jest.setTimeout(120_000);

const BUILD_ENV = { BUILD_RUNNER: 'process', GIT_ALLOW_PRIVATE_ADDRESSES: 'true', BUILD_LEASE_SECONDS: '5' };

/** A site whose build writes dist/index.html, after `sleep` seconds when the file `sleep` says so. */
function site(text: string, sleepSeconds = 0): Record<string, string> {
  return {
    'package.json': JSON.stringify({ name: 'site', private: true, scripts: { build: 'node build.js' } }),
    'build.js': `const fs = require('fs');
console.log('building ${text}');
setTimeout(() => {
  fs.mkdirSync('dist', { recursive: true });
  fs.writeFileSync('dist/index.html', '<h1>${text}</h1>');
  console.log('built ${text}');
}, ${sleepSeconds * 1000});`,
  };
}

describe('Builds API (e2e)', () => {
  let t: TestApp;
  let git: GitServer;
  let owner: UserSession;
  let projectId: string;

  const as = () => asUser(owner);
  const get = (id: string) => t.http().get(`/projects/${projectId}/builds/${id}`).set(as());
  const start = (body: Record<string, unknown> = {}) => t.http().post(`/projects/${projectId}/builds`).set(as()).send(body);
  const until = async (id: string, statuses: string[], ms = 60_000) =>
    eventually(async () => {
      const res = await get(id);
      if (!statuses.includes(res.body.status)) throw new Error(`build ${id} is ${res.body.status} (${res.body.error}), waiting for ${statuses.join('|')}`);
      return res.body;
    }, ms);

  async function connect(repo: string) {
    const res = await t
      .http()
      .put(`/projects/${projectId}/git`)
      .set(as())
      .send({
        repository: git.url(repo),
        productionBranch: 'main',
        installCommand: 'echo nothing to install',
        buildCommand: 'node build.js',
        outputDirectory: 'dist',
      });
    expect(res.status).toBe(200);
  }

  beforeAll(async () => {
    git = await startGitServer();
    git.createRepo('site', site('one'));
    t = await startTestApp({ env: BUILD_ENV });
    owner = await registerUser(t);
    const project = await t.http().post('/projects').set(as()).send({ name: 'Built site' });
    projectId = project.body.id;
  });

  afterAll(async () => {
    await t?.close();
    await git?.close();
  });

  it('refuses a build before the project is connected to a repository (409 git_not_connected)', async () => {
    const res = await start();
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('git_not_connected');
  });

  it('builds the production branch: 202 queued, then running, then ready with the live deployment, and the log says what ran', async () => {
    await connect('site');
    const res = await start();
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'queued', trigger: 'manual', ref: 'main', branch: 'main', projectId, pullRequest: null, deploymentId: null });
    expect(res.body.id).toMatch(/^bld_/);
    const ready = await until(res.body.id, ['ready', 'failed']);
    expect(ready).toMatchObject({ status: 'ready', error: null, branch: 'main' });
    expect(ready.commitSha).toMatch(/^[0-9a-f]{40}$/);
    expect(ready.deploymentId).toMatch(/^dep_/);
    expect(ready.durationMs).toBeGreaterThanOrEqual(0);
    expect(ready.startedAt).not.toBeNull();
    const project = await t.http().get(`/projects/${projectId}`).set(as());
    expect(project.body.live_deployment_id ?? project.body.liveDeploymentId).toBe(ready.deploymentId);
    const log = await t.http().get(`/projects/${projectId}/builds/${res.body.id}/logs`).set(as());
    expect(log.status).toBe(200);
    expect(log.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(log.text).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \[build\] .*built one$/m);
  });

  it('streams a running build’s log with follow=1 and ends the answer when the build ends', async () => {
    git.commit('site', site('two', 3));
    const { body } = await start();
    const received: { at: number; text: string }[] = [];
    let ended = 0;
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest(`${t.baseUrl}/projects/${projectId}/builds/${body.id}/logs?follow=1`, { headers: as() }, (res) => {
        expect(res.statusCode).toBe(200);
        res.setEncoding('utf8');
        res.on('data', (text: string) => received.push({ at: Date.now(), text }));
        res.on('end', () => {
          ended = Date.now();
          resolve();
        });
      });
      req.on('error', reject);
      req.end();
    });
    const all = received.map((r) => r.text).join('');
    if (!all.includes('built two')) console.log(JSON.stringify((await get(body.id)).body), JSON.stringify(received));
    expect(all).toContain('[build] building two');
    expect(all).toContain('[build] built two');
    // "building two" arrived before the build's last line was written: streamed, not sent at the end.
    const first = received.find((r) => r.text.includes('building two'))!;
    expect(ended - first.at).toBeGreaterThan(1000);
    expect((await get(body.id)).body.status).toBe('ready');
  });

  it('cancels a running build (202), kills it, and answers 409 build_finished to a second cancel', async () => {
    git.commit('site', site('slow', 60));
    const { body } = await start();
    await until(body.id, ['running']);
    const live = (await t.http().get(`/projects/${projectId}`).set(as())).body;
    const res = await t.http().post(`/projects/${projectId}/builds/${body.id}/cancel`).set(as());
    expect(res.status).toBe(202);
    expect(res.body.status).toBe('canceled');
    const again = await t.http().post(`/projects/${projectId}/builds/${body.id}/cancel`).set(as());
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('build_finished');
    // The builder lets go of it (its log ends in storage) and nothing went live.
    await eventually(async () => expect((await t.dataSource.query('SELECT log_stored FROM builds WHERE id = $1', [body.id]))[0].log_stored).toBe(true), 15_000);
    expect((await t.http().get(`/projects/${projectId}`).set(as())).body).toEqual(live);
  });

  it('cancels the queued or running older build of a branch when a newer one starts', async () => {
    const older = (await start()).body;
    const newer = (await start()).body;
    expect((await get(older.id)).body).toMatchObject({ status: 'canceled', error: `replaced by a newer build of main (${newer.id})` });
    await t.http().post(`/projects/${projectId}/builds/${newer.id}/cancel`).set(as());
  });

  it('fails a running build whose builder stopped renewing its lease, once the sweeper runs', async () => {
    const { body } = await start();
    await until(body.id, ['running']);
    // A builder that died: another id, a lease in the past.
    await t.dataSource.query(`UPDATE builds SET builder_id = 'dead', lease_expires_at = now() - interval '1 second' WHERE id = $1`, [body.id]);
    const report = await t.app.get(BuildSweeper).runOnce();
    expect(report.failed).toBe(1);
    expect((await get(body.id)).body).toMatchObject({ status: 'failed', error: LEASE_EXPIRED });
  });

  it('builds a tag as a preview served at its deployment’s own address only: no branch address for the tag', async () => {
    const sha = git.commit('site', site('tagged', 0), { branch: 'release-work', message: 'tagged' });
    git.setRef('site', 'refs/tags/v1.0', sha);
    const res = await start({ ref: 'v1.0' });
    expect(res.status).toBe(202);
    const ready = await until(res.body.id, ['ready', 'failed']);
    // Asked by a name that could have been a branch; the clone found a tag, and the record says so.
    expect(ready).toMatchObject({ status: 'ready', commitSha: sha, ref: 'v1.0', branch: null });
    expect(await t.dataSource.query(`SELECT kind, name FROM preview_aliases WHERE deployment_id = $1`, [ready.deploymentId])).toEqual([]);
  });

  it('cancels the older build of a tag when the tag is built again, also once its clone found a tag', async () => {
    const sha = git.commit('site', site('slow tag', 60), { branch: 'release-work', message: 'slow tag' });
    git.setRef('site', 'refs/tags/v2.0', sha);
    const older = (await start({ ref: 'v2.0' })).body;
    // Cloned: the record now says the ref was a tag, not a branch.
    await eventually(async () => expect((await get(older.id)).body).toMatchObject({ status: 'running', commitSha: sha, branch: null }), 30_000);
    const newer = (await start({ ref: 'v2.0' })).body;
    expect((await get(older.id)).body).toMatchObject({ status: 'canceled', error: `replaced by a newer build of v2.0 (${newer.id})` });
    // The tag's full name is the same tag, whichever way each build was asked.
    await eventually(async () => expect((await get(newer.id)).body).toMatchObject({ status: 'running', branch: null }), 30_000);
    const full = (await start({ ref: 'refs/tags/v2.0' })).body;
    expect((await get(newer.id)).body).toMatchObject({ status: 'canceled', error: `replaced by a newer build of refs/tags/v2.0 (${full.id})` });
    const short = (await start({ ref: 'v2.0' })).body;
    expect((await get(full.id)).body).toMatchObject({ status: 'canceled', error: `replaced by a newer build of v2.0 (${short.id})` });
    await t.http().post(`/projects/${projectId}/builds/${short.id}/cancel`).set(as());
  });

  it('a build started while the project is being changed waits for the change instead of deadlocking with it', async () => {
    // A settings change (or a promote, a domain check) in the middle of its transaction: it
    // holds the project's row and writes its audit entry next. A build wrote its own entry
    // first and then waited for the row (its insert's reference to the project): each waited
    // for the other, and PostgreSQL ended one of them.
    const change = t.dataSource.createQueryRunner();
    await change.connect();
    await change.startTransaction();
    try {
      await change.query('SELECT id FROM projects WHERE id = $1 FOR UPDATE', [projectId]);
      const build = start({ ref: 'main' }).then((res) => res);
      await someoneWaits(t);
      await t.app.get(AuditLogService).record(change.manager, {
        workspaceId: owner.workspaceId,
        action: 'project.updated',
        target: { type: 'project', id: projectId, label: 'under lock' },
      });
      await change.commitTransaction();
      const res = await build;
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 202, code: undefined });
      await t.http().post(`/projects/${projectId}/builds/${res.body.id}/cancel`).set(as());
    } finally {
      if (change.isTransactionActive) await change.rollbackTransaction();
      await change.release();
    }
  });

  it('fails a build queued long ago that no queue job will run, and leaves one whose job still waits', async () => {
    const orphan = 'bld_orphanqueued0000000000000';
    const waiting = 'bld_waitingqueued000000000000';
    const old = new Date(Date.now() - ORPHAN_AFTER_MS - 60_000);
    for (const id of [orphan, waiting]) {
      await t.dataSource.query(
        `INSERT INTO builds (id, project_id, workspace_id, status, trigger, ref, branch, created_by, created_at)
         VALUES ($1, $2, $3, 'queued', 'manual', 'refs/heads/old', 'old', $4, $5)`,
        [id, projectId, owner.workspaceId, owner.userId, old],
      );
    }
    // The waiting build's job is in the queue, behind others (not due yet, so no builder takes it here).
    await t.dataSource.query(`INSERT INTO ${QUEUE_SCHEMA}.job (name, data, state, start_after) VALUES ($1, $2, 'created', now() + interval '1 day')`, [
      BUILD_QUEUE,
      { buildId: waiting },
    ]);
    try {
      expect((await t.app.get(BuildSweeper).runOnce()).failed).toBe(1);
      expect((await get(orphan)).body).toMatchObject({ status: 'failed', error: NEVER_STARTED });
      expect((await get(waiting)).body).toMatchObject({ status: 'queued' });
    } finally {
      await t.dataSource.query(`DELETE FROM ${QUEUE_SCHEMA}.job WHERE data->>'buildId' = $1`, [waiting]);
      await t.dataSource.query(`UPDATE builds SET status = 'canceled', finished_at = now() WHERE id = $1`, [waiting]);
    }
  });

  it('lists builds newest first, filtered by branch and status, paged', async () => {
    const all = await t.http().get(`/projects/${projectId}/builds`).set(as());
    expect(all.status).toBe(200);
    const times = all.body.data.map((b: { createdAt: string }) => b.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
    const ready = await t.http().get(`/projects/${projectId}/builds?status=ready&branch=main`).set(as());
    expect(ready.body.data.length).toBe(2);
    expect(ready.body.data.every((b: { status: string }) => b.status === 'ready')).toBe(true);
    const page = await t.http().get(`/projects/${projectId}/builds?limit=1&page=2`).set(as());
    expect(page.body.meta).toMatchObject({ page: 2, limit: 1, total: all.body.meta.total });
    expect(page.body.data[0].id).toBe(all.body.data[1].id);
    const none = await t.http().get(`/projects/${projectId}/builds?branch=nope`).set(as());
    expect(none.body).toMatchObject({ data: [], meta: { total: 0 } });
    expect((await t.http().get(`/projects/${projectId}/builds?status=done`).set(as())).status).toBe(400);
  });

  it('answers 404 build_not_found for a build of no project of the caller’s, and 400 for a bad ref', async () => {
    const res = await get('bld_000000000000000000000000');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('build_not_found');
    const bad = await start({ ref: '--upload-pack=touch /tmp/x' });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('invalid_ref');
  });

  it('lets a viewer list builds but not start one', async () => {
    const viewer = await registerUser(t);
    await addMember(t, owner, viewer, 'viewer');
    const list = await t.http().get(`/projects/${projectId}/builds`).set(asUser(viewer, owner.workspaceId));
    expect(list.status).toBe(200);
    const res = await t.http().post(`/projects/${projectId}/builds`).set(asUser(viewer, owner.workspaceId)).send({});
    expect(res.status).toBe(403);
  });

  it('has a builder running in the app', () => {
    expect(t.app.get(Builder).builderId).toContain(String(process.pid));
  });
});

describe('Builds API limits (e2e)', () => {
  let git: GitServer;
  beforeAll(async () => {
    git = await startGitServer();
    git.createRepo('slow', site('slow', 60));
  });
  afterAll(() => git?.close());

  async function connected(t: TestApp) {
    const owner = await registerUser(t);
    const projectId = (await t.http().post('/projects').set(asUser(owner)).send({ name: 'Limited' })).body.id;
    await t
      .http()
      .put(`/projects/${projectId}/git`)
      .set(asUser(owner))
      .send({ repository: git.url('slow'), productionBranch: 'main', installCommand: 'echo none', buildCommand: 'node build.js', outputDirectory: 'dist' });
    return { owner, projectId };
  }

  it('answers 503 builds_unavailable naming what to install when no runner is found, and still saves settings', async () => {
    // The runner is chosen at start-up from the PATH (podman, else docker): here neither is found.
    const path = process.env.PATH;
    process.env.PATH = '/nonexistent';
    let t: TestApp;
    try {
      t = await startTestApp({ env: { GIT_ALLOW_PRIVATE_ADDRESSES: 'true' } });
    } finally {
      process.env.PATH = path;
    }
    try {
      const { owner, projectId } = await connected(t);
      const res = await t.http().post(`/projects/${projectId}/builds`).set(asUser(owner)).send({});
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('builds_unavailable');
      expect(res.body.message).toContain('install podman or docker');
    } finally {
      await t.close();
    }
  });

  it('refuses a build past the plan’s concurrent builds with the quota 402, and times a stuck build out', async () => {
    const t = await startTestApp({
      env: {
        ...BUILD_ENV,
        BUILD_TIMEOUT_SECONDS: '10',
        PLANS_JSON: JSON.stringify({ free: { projects: null, deploymentsPerMonth: null, storageBytes: null, concurrentBuilds: 1 } }),
      },
    });
    try {
      const { owner, projectId } = await connected(t);
      const first = await t.http().post(`/projects/${projectId}/builds`).set(asUser(owner)).send({});
      expect(first.status).toBe(202);
      const second = await t.http().post(`/projects/${projectId}/builds`).set(asUser(owner)).send({ ref: 'other' });
      expect(second.status).toBe(402);
      expect(second.body).toMatchObject({ code: 'quota_exceeded', quota: 'concurrentBuilds', limit: 1, usage: 1, plan: 'free' });
      const ws = await t.http().get(`/workspaces/${owner.workspaceId}`).set(asUser(owner));
      expect(ws.body.usage.concurrentBuilds).toEqual({ used: 1, limit: 1, percent: 100 });
      const timedOut = await eventually(async () => {
        const res = await t.http().get(`/projects/${projectId}/builds/${first.body.id}`).set(asUser(owner));
        if (res.body.status !== 'timed_out') throw new Error(`still ${res.body.status}`);
        return res.body;
      }, 40_000);
      expect(timedOut.error).toContain('BUILD_TIMEOUT_SECONDS');
    } finally {
      await t.close();
    }
  });

  it('refuses a build once the month’s build minutes are used, with the quota 402, and shows them in GET /billing/usage', async () => {
    const t = await startTestApp({
      env: { ...BUILD_ENV, PLANS_JSON: JSON.stringify({ free: { projects: null, deploymentsPerMonth: null, storageBytes: null, buildMinutesPerMonth: 1 } }) },
    });
    try {
      const { owner, projectId } = await connected(t);
      // A build of 61 s that finished this month: 2 minutes, rounded up.
      await t.dataSource.query(
        `INSERT INTO builds (id, project_id, workspace_id, status, trigger, ref, branch, created_by, started_at, finished_at, duration_ms, log_stored)
         VALUES ('bld_minutes00000000000000000', $1, $2, 'ready', 'manual', 'main', 'main', 'usr_x', now() - interval '61 seconds', now(), 61000, true)`,
        [projectId, owner.workspaceId],
      );
      const res = await t.http().post(`/projects/${projectId}/builds`).set(asUser(owner)).send({});
      expect(res.status).toBe(402);
      expect(res.body).toMatchObject({ code: 'quota_exceeded', quota: 'buildMinutesPerMonth', limit: 1, usage: 2, plan: 'free' });
      expect(res.body.resetsAt).toMatch(/-01T00:00:00\.000Z$/);
      const usage = await t.http().get(`/billing/usage?workspaceId=${owner.workspaceId}`).set(asUser(owner));
      expect(usage.status).toBe(200);
      expect(usage.body).toMatchObject({
        plan: 'free',
        limits: { buildMinutesPerMonth: 1, concurrentBuilds: 1 },
        usage: { buildMinutesPerMonth: { used: 2, limit: 1 }, concurrentBuilds: { used: 0, limit: 1 } },
      });
    } finally {
      await t.close();
    }
  });

  it('refuses a build up front (402) once the month’s bandwidth is used, as its deploy would be, before it spends minutes', async () => {
    const t = await startTestApp({
      env: { ...BUILD_ENV, PLANS_JSON: JSON.stringify({ free: { projects: null, deploymentsPerMonth: null, storageBytes: null } }) },
    });
    try {
      const { owner, projectId } = await connected(t);
      // 200 GB served this month (the analytics flush's count); free includes 100 GB.
      await t.dataSource.query('INSERT INTO workspace_monthly_usage (workspace_id, month, bandwidth_bytes) VALUES ($1, $2, $3)', [
        owner.workspaceId,
        monthKey(t.app.get(Clock).now()),
        String(200 * 1024 ** 3),
      ]);
      const res = await t.http().post(`/projects/${projectId}/builds`).set(asUser(owner)).send({});
      expect(res.status).toBe(402);
      expect(res.body).toMatchObject({ code: 'quota_exceeded', quota: 'bandwidthBytesPerMonth', plan: 'free' });
      expect(await t.dataSource.query('SELECT id FROM builds WHERE project_id = $1', [projectId])).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
