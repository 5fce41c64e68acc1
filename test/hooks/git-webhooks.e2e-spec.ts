import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import {
  GITEA_PULL_REQUEST_SYNCHRONIZED,
  GITEA_PUSH,
  GITHUB_BRANCH_DELETED,
  GITHUB_PING,
  GITHUB_PULL_REQUEST_FROM_FORK,
  GITHUB_PULL_REQUEST_OPENED,
  GITHUB_PUSH,
  GITHUB_TAG_PUSH,
  GITLAB_MERGE_REQUEST_OPENED,
  GITLAB_PUSH,
} from '../../src/forges/webhooks/examples.fixture';
import { GitDeliveriesPurge } from '../../src/hooks/git-deliveries-purge.service';
import { buildsApi, contentSite, createProject, startBuildApp } from '../builds/flow-support';
import type { TestApp } from '../helpers/app';
import { type Forge, signedDelivery } from '../helpers/forge-webhooks';
import { type GitServer, startGitServer } from '../helpers/git-server';
import { asUser, bearer, createApiToken, registerUser, type UserSession } from '../helpers/identity';

jest.setTimeout(180_000);

const run = promisify(execFile);
const REPO = 'acme/site';

/**
 * The forges' documented example payloads with their repository moved to the test's Git
 * server (every URL form of it: clone, web and ssh), so they name the project's repository.
 */
function forRepo(payload: unknown, repoUrl: string): Record<string, unknown> {
  const web = repoUrl.replace(/\.git$/, '');
  const text = JSON.stringify(payload)
    .replaceAll('https://github.com/Codertocat/Hello-World', web)
    .replaceAll('http://example.com/mike/diaspora', web)
    .replaceAll('http://example.com/awesome_space/awesome_project', web)
    .replaceAll('http://localhost:3000/gitea/webhooks', web);
  return JSON.parse(text) as Record<string, unknown>;
}

/** A delivery as each forge sends it, signed (or not) with `secret`. */
function signed(forge: Forge, event: string, payload: unknown, secret: string, delivery: string = randomUUID()) {
  return signedDelivery(forge, event, JSON.stringify(payload), secret, delivery);
}

describe('Forge webhooks: POST /hooks/git/:projectId (e2e)', () => {
  let git: GitServer;
  let t: TestApp;
  let owner: UserSession;
  /** An API token of the owner's workspace, as the build flow helpers take. */
  let token: string;
  let projectId: string;
  let secret: string;
  let repoUrl: string;
  let mainSha: string;

  const post = (id: string, d: { body: string; headers: Record<string, string> }) => t.http().post(`/hooks/git/${id}`).set(d.headers).send(d.body);
  const deliver = (forge: Forge, event: string, payload: unknown, opts: { secret?: string; delivery?: string; id?: string } = {}) =>
    post(opts.id ?? projectId, signed(forge, event, forRepo(payload, repoUrl), opts.secret ?? secret, opts.delivery));
  const count = async (table: 'builds' | 'git_deliveries') =>
    Number((await t.dataSource.query(`SELECT count(*)::int AS n FROM ${table} WHERE project_id = $1`, [projectId]))[0].n);
  const rotate = async () => (await t.http().post(`/projects/${projectId}/git/webhook-secret`).set(asUser(owner)).expect(200)).body.secret as string;

  /** Pushes `sha` to `ref` over HTTP, as a forge keeps a pull request's head under refs/pull/<n>/head. */
  async function pushRef(sha: string, ref: string): Promise<void> {
    const dir = await mkdtemp(join(tmpdir(), 'hooks-ref-'));
    try {
      await run('git', ['init', '-q', dir]);
      await run('git', ['-C', dir, 'fetch', '-q', repoUrl, 'main', 'feature']);
      await run('git', ['-C', dir, 'push', '-q', repoUrl, `${sha}:${ref}`]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  beforeAll(async () => {
    git = await startGitServer();
    mainSha = git.createRepo(REPO, contentSite('main one'));
    const featureSha = git.commit(REPO, { 'content.txt': 'feature one\n' }, { branch: 'feature' });
    git.commit(REPO, { 'content.txt': 'develop one\n' }, { branch: 'develop' });
    repoUrl = git.url(REPO);
    t = await startBuildApp({ PLANS_JSON: JSON.stringify({ free: { concurrentBuilds: 50, deploymentsPerMonth: 1000 } }) });
    await pushRef(featureSha, 'refs/pull/2/head');
    await pushRef(featureSha, 'refs/pull/7/head');
    await pushRef(featureSha, 'refs/merge-requests/1/head');
    owner = await registerUser(t);
    token = (await createApiToken(t, owner, { scopes: ['deploy', 'read', 'admin'] })).token;
    projectId = (await createProject(t, token, 'hooked')).id;
    await buildsApi(t, token, projectId)
      .connect({
        repository: repoUrl,
        productionBranch: 'main',
        installCommand: 'echo nothing to install',
        buildCommand: 'node build.js',
        outputDirectory: 'dist',
      })
      .expect(200);
  });
  afterAll(async () => {
    await t?.close();
    await git?.close();
  });

  it('refuses every delivery before a secret is created, and for an unknown project, with the same 401 and nothing recorded', async () => {
    const forged = signed('github', 'push', forRepo(GITHUB_PUSH, repoUrl), 'a guess');
    const known = await post(projectId, forged).expect(401);
    const unknown = await post('proj_doesnotexist0000000000000', forged).expect(401);
    expect(known.body).toMatchObject({ statusCode: 401, code: 'invalid_webhook_signature' });
    expect(unknown.body).toEqual(known.body);
    expect(await count('builds')).toBe(0);
    expect(await count('git_deliveries')).toBe(0);
    secret = await rotate();
  });

  it('a push to the production branch, signed by GitHub, queues a build that publishes', async () => {
    const res = await deliver('github', 'push', { ...GITHUB_PUSH, after: mainSha, head_commit: { ...GITHUB_PUSH.head_commit, id: mainSha } }).expect(202);
    expect(res.body).toEqual({ event: 'push', build: expect.objectContaining({ projectId, trigger: 'push', ref: 'main', branch: 'main', pullRequest: null }) });
    const api = buildsApi(t, token, projectId);
    const build = await api.until(res.body.build.id);
    expect(build).toMatchObject({ status: 'ready', commitSha: mainSha });
    const project = (await api.project().expect(200)).body;
    expect(project.live_deployment_id ?? project.liveDeploymentId).toBe(build.deploymentId);
    // The forge is learnt from the verified delivery, as a self-hosted forge's host says nothing.
    expect((await api.settings().expect(200)).body.forge).toBe('github');
  });

  it('a push of another branch, signed by GitLab, Gitea and Forgejo, queues a preview build of that branch', async () => {
    const gitlab = await deliver('gitlab', 'Push Hook', { ...GITLAB_PUSH, ref: 'refs/heads/feature' }).expect(202);
    expect(gitlab.body.build).toMatchObject({ trigger: 'push', ref: 'feature', branch: 'feature' });
    for (const forge of ['gitea', 'forgejo'] as const) {
      const res = await deliver(forge, 'push', GITEA_PUSH).expect(202);
      expect(res.body).toEqual({ event: 'push', build: expect.objectContaining({ trigger: 'push', ref: 'develop', branch: 'develop' }) });
    }
  });

  it('a pull request opened (GitHub), a merge request opened (GitLab) and one updated (Gitea) build their head ref on the base repository', async () => {
    const github = await deliver('github', 'pull_request', GITHUB_PULL_REQUEST_OPENED).expect(202);
    expect(github.body).toEqual({
      event: 'pull_request',
      build: expect.objectContaining({ trigger: 'pull_request', ref: 'refs/pull/2/head', branch: 'changes', pullRequest: 2, fork: false }),
    });
    const gitlab = await deliver('gitlab', 'Merge Request Hook', GITLAB_MERGE_REQUEST_OPENED).expect(202);
    expect(gitlab.body.build).toMatchObject({ trigger: 'pull_request', ref: 'refs/merge-requests/1/head', pullRequest: 1 });
    const gitea = await deliver('gitea', 'pull_request', GITEA_PULL_REQUEST_SYNCHRONIZED).expect(202);
    expect(gitea.body.build).toMatchObject({ trigger: 'pull_request', ref: 'refs/pull/7/head', branch: 'feature/page', pullRequest: 7 });
    const createdBy = await t.dataSource.query(`SELECT DISTINCT created_by FROM builds WHERE project_id = $1 ORDER BY 1`, [projectId]);
    expect(createdBy.map((r: { created_by: string }) => r.created_by)).toEqual(['hook:github', 'hook:gitea', 'hook:gitlab', 'hook:forgejo'].sort());
  });

  it('a replayed delivery answers 200 duplicate and starts no second build', async () => {
    const delivery = randomUUID();
    const first = await deliver('github', 'push', { ...GITHUB_PUSH, ref: 'refs/heads/feature' }, { delivery }).expect(202);
    const builds = await count('builds');
    const again = await deliver('github', 'push', { ...GITHUB_PUSH, ref: 'refs/heads/feature' }, { delivery }).expect(200);
    expect(again.body).toEqual({ duplicate: true, deliveryId: delivery });
    expect(await count('builds')).toBe(builds);
    expect(first.body.build.id).toBeDefined();
  });

  it('a forged or missing signature is refused with 401 and records nothing', async () => {
    const builds = await count('builds');
    const deliveries = await count('git_deliveries');
    for (const forge of ['github', 'gitlab', 'gitea', 'forgejo'] as const) {
      const res = await deliver(forge, forge === 'gitlab' ? 'Push Hook' : 'push', forge === 'gitlab' ? GITLAB_PUSH : GITHUB_PUSH, {
        secret: 'not the secret',
      }).expect(401);
      expect(res.body.code).toBe('invalid_webhook_signature');
    }
    const unsigned = signed('github', 'push', forRepo(GITHUB_PUSH, repoUrl), secret);
    delete unsigned.headers['x-hub-signature-256'];
    expect((await post(projectId, unsigned).expect(401)).body.message).toContain('X-Hub-Signature-256');
    // A signature over other bytes than those sent.
    const tampered = signed('github', 'push', forRepo(GITHUB_PUSH, repoUrl), secret);
    await post(projectId, { ...tampered, body: tampered.body.replace('"main"', '"feature"') }).expect(401);
    expect(await count('builds')).toBe(builds);
    expect(await count('git_deliveries')).toBe(deliveries);
  });

  it('answers a ping with 200, and an event or action it does not act on with 202 ignored', async () => {
    expect((await deliver('github', 'ping', GITHUB_PING).expect(200)).body).toEqual({ event: 'ping' });
    const builds = await count('builds');
    expect((await deliver('github', 'issues', { action: 'opened' }).expect(202)).body).toEqual({ ignored: expect.stringContaining('"issues"') });
    expect((await deliver('github', 'push', GITHUB_TAG_PUSH).expect(202)).body.ignored).toContain('tag push');
    expect((await deliver('github', 'pull_request', { ...GITHUB_PULL_REQUEST_OPENED, action: 'labeled' }).expect(202)).body.ignored).toContain('labeled');
    expect(await count('builds')).toBe(builds);
  });

  it('refuses a fork’s pull request while buildForkPullRequests is off, and builds it marked fork when on', async () => {
    const off = await deliver('github', 'pull_request', GITHUB_PULL_REQUEST_FROM_FORK).expect(202);
    expect(off.body.ignored).toContain('fork');
    const api = buildsApi(t, token, projectId);
    const settings = (await api.settings().expect(200)).body;
    /** Saves the settings as they are, with fork pull requests built (each save counts as a change of the settings). */
    const allowForks = () =>
      api
        .connect({
          repository: settings.repository,
          productionBranch: 'main',
          installCommand: settings.installCommand,
          buildCommand: settings.buildCommand,
          outputDirectory: settings.outputDirectory,
          buildForkPullRequests: true,
        })
        .expect(200);
    await allowForks();
    const on = await deliver('github', 'pull_request', GITHUB_PULL_REQUEST_FROM_FORK).expect(202);
    expect(on.body.build).toMatchObject({ trigger: 'pull_request', ref: 'refs/pull/2/head', pullRequest: 2, fork: true });

    // Built again by hand (the dashboard's Redeploy sends the build's ref): still the fork's
    // code, so still a fork's build, without the project's variables; a pull request the
    // service never heard of is taken for one too.
    const again = await api.start({ ref: 'refs/pull/2/head' }).expect(202);
    expect(again.body).toMatchObject({ trigger: 'manual', ref: 'refs/pull/2/head', pullRequest: 2, branch: on.body.build.branch, fork: true });
    const unknown = await api.start({ ref: 'refs/merge-requests/77/head' }).expect(202);
    expect(unknown.body).toMatchObject({ trigger: 'manual', pullRequest: 77, branch: null, fork: true });
    // git fetches the short form as well.
    expect((await api.start({ ref: 'pull/2/head' }).expect(202)).body).toMatchObject({ pullRequest: 2, fork: true });
    // Pull request 2 of a repository connected before is not this one's: once the settings change, it is unknown again.
    await allowForks();
    await t.dataSource.query(`UPDATE builds SET fork = false WHERE project_id = $1 AND pull_request = 2`, [projectId]);
    expect((await api.start({ ref: 'refs/pull/2/head' }).expect(202)).body).toMatchObject({ pullRequest: 2, fork: true });
  });

  it('a pull request built again by hand replaces its build, though no webhook has told its head branch', async () => {
    const api = buildsApi(t, token, projectId);
    // Merge request 1 is unknown since the settings last changed: its builds have no branch.
    const first = (await api.start({ ref: 'refs/merge-requests/1/head' }).expect(202)).body;
    expect(first).toMatchObject({ pullRequest: 1, branch: null });
    const second = (await api.start({ ref: 'refs/merge-requests/1/head' }).expect(202)).body;
    expect((await api.get(first.id).expect(200)).body).toMatchObject({
      status: 'canceled',
      error: `replaced by a newer build of pull request 1 (${second.id})`,
    });
    // A branch's build leaves the pull request's alone: one push builds both, for two addresses.
    await api.start({ ref: 'feature' }).expect(202);
    expect((await api.get(second.id).expect(200)).body.status).not.toBe('canceled');
    await api.cancel(second.id);
  });

  it('builds a bare commit asked by hand as a fork’s unless a build of a branch checked it out', async () => {
    const api = buildsApi(t, token, projectId);
    // A forge serves a fork's pull-request commits from the repository itself: a commit no
    // build of the repository's branches has seen may be one.
    const unseen = git.commit(REPO, { 'content.txt': 'never built\n' }, { branch: 'unseen' });
    const bare = await api.start({ ref: unseen }).expect(202);
    expect(bare.body).toMatchObject({ trigger: 'manual', ref: unseen, branch: null, pullRequest: null, fork: true });
    // A bare build of it does not make it the repository's own for the next one.
    await t.dataSource.query(`UPDATE builds SET fork = false, commit_sha = ref WHERE id = $1`, [bare.body.id]);
    expect((await api.start({ ref: unseen }).expect(202)).body.fork).toBe(true);
    // Once a build of main has checked out main's commit, that commit builds as the repository's.
    const ofMain = await api.until((await api.start({ ref: 'main' }).expect(202)).body.id);
    expect(ofMain).toMatchObject({ status: 'ready', commitSha: mainSha, fork: false });
    expect((await api.start({ ref: mainSha }).expect(202)).body).toMatchObject({ ref: mainSha, branch: null, fork: false });
  });

  it('a deleted branch and a closed pull request answer with the alias removed (null when there was none)', async () => {
    const deleted = await deliver('github', 'push', GITHUB_BRANCH_DELETED).expect(200);
    expect(deleted.body).toEqual({ event: 'push', removed: null });
    const closed = await deliver('github', 'pull_request', { ...GITHUB_PULL_REQUEST_OPENED, action: 'closed' }).expect(200);
    expect(closed.body.event).toBe('pull_request');
    expect(closed.body.removed === null || typeof closed.body.removed === 'string').toBe(true);
    const aliases = await t.dataSource.query(`SELECT name FROM preview_aliases WHERE project_id = $1 AND kind = 'pull_request'`, [projectId]);
    expect(aliases).not.toContainEqual({ name: '2' });
  });

  it('refuses a payload of another repository with 400 repository_mismatch', async () => {
    const builds = await count('builds');
    const res = await post(projectId, signed('github', 'push', GITHUB_PUSH, secret)).expect(400);
    expect(res.body).toMatchObject({ code: 'repository_mismatch', message: expect.stringContaining('Codertocat/Hello-World') });
    expect(await count('builds')).toBe(builds);
  });

  it('refuses a body that is not JSON, once the signature is verified, with 400 invalid_webhook_payload', async () => {
    const body = '{"ref": "refs/heads/main", ';
    const res = await post(projectId, signedDelivery('github', 'push', body, secret, randomUUID())).expect(400);
    expect(res.body.code).toBe('invalid_webhook_payload');
    // A push payload without the fields the event needs.
    expect((await deliver('github', 'push', { ref: 'refs/heads/main' }).expect(400)).body.message).toContain('after');
  });

  it('refuses a body over GIT_WEBHOOK_MAX_BYTES with 413 before reading it', async () => {
    const big = { ...GITHUB_PUSH, padding: 'x'.repeat(t.config.GIT_WEBHOOK_MAX_BYTES) };
    const res = await deliver('github', 'push', big).expect(413);
    expect(res.body).toMatchObject({ code: 'payload_too_large', message: expect.stringContaining('GIT_WEBHOOK_MAX_BYTES') });
  });

  it('after a rotation the old secret is refused and the new one accepted', async () => {
    const old = secret;
    secret = await rotate();
    await deliver('github', 'ping', GITHUB_PING, { secret: old }).expect(401);
    await deliver('github', 'ping', GITHUB_PING).expect(200);
  });

  it('a token bound to another project cannot rotate this project’s secret', async () => {
    const other = await createProject(t, token, 'hooked-other');
    const bound = await createApiToken(t, owner, { scopes: ['admin', 'read'], projectId: other.id });
    await t.http().post(`/projects/${projectId}/git/webhook-secret`).set(bearer(bound.token)).expect(404);
    await deliver('github', 'ping', GITHUB_PING).expect(200);
  });

  it('the maintenance job forgets deliveries older than 30 days', async () => {
    await t.dataSource.query(`UPDATE git_deliveries SET created_at = now() - interval '31 days' WHERE project_id = $1`, [projectId]);
    const kept = randomUUID();
    await deliver('github', 'push', { ...GITHUB_PUSH, ref: 'refs/heads/feature' }, { delivery: kept }).expect(202);
    const report = await t.app.get(GitDeliveriesPurge).runOnce();
    expect(report.deliveriesPurged).toBeGreaterThan(0);
    const left = await t.dataSource.query(`SELECT delivery_id FROM git_deliveries WHERE project_id = $1`, [projectId]);
    expect(left).toEqual([{ delivery_id: kept }]);
  });
});
