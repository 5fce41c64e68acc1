import { randomUUID } from 'node:crypto';

import { GITHUB_PING, GITHUB_TAG_PUSH } from '../../src/forges/webhooks/examples.fixture';
import { eventually } from '../helpers/eventually';
import { bearer } from '../helpers/identity';
import { fetchSite } from '../helpers/sites';
import {
  buildEnded,
  deliver,
  forgeHeaders,
  type ForgeHost,
  githubBranchDeleted,
  githubPullRequest,
  githubPush,
  type HookBuild,
  type HookedProject,
  hookedProject,
  hostnameOf,
  previews,
  pushRef,
  secretSeen,
  serves,
  startForgeHost,
  tlsAsk,
} from './forges-flow-support';

jest.setTimeout(180_000);

const SECRET_VALUE = 'sk-secret-of-the-project-4f1c9a';

/**
 * Issue 29, "What it must show", for GitHub: the documented webhook payloads, pointed at a
 * real repository on a Git host here and signed with the project's secret
 * (`X-Hub-Signature-256`), drive builds of the real app; the host's `/api/v3` is the
 * recording stand-in of GitHub's REST API, which the app reaches because the API address
 * follows the repository's host (as for GitHub Enterprise).
 */
describe('GitHub webhooks: push → live, branch and pull request previews, one comment, forks (e2e)', () => {
  let host: ForgeHost;
  let project: HookedProject;
  const hook = (delivery: Parameters<typeof deliver>[3]) => deliver(host.t, 'github', project, delivery);
  const ping = () => ({ ...GITHUB_PING, repository: githubPush(project.repository, 'main', project.firstSha, '').repository });
  const builds = async () => (await project.api.list().expect(200)).body.data as HookBuild[];

  beforeAll(async () => {
    host = await startForgeHost();
    project = await hookedProject(host, 'gh-site', { forge: 'github' });
    await project.api.setEnv('SECRET_TOKEN', { value: SECRET_VALUE, targets: ['production', 'preview'] }).expect(200);
  });
  afterAll(async () => host?.close());

  it('the settings name the webhook and say a secret is set; forks are not built by default', async () => {
    const settings = (await project.api.settings().expect(200)).body;
    expect(settings).toMatchObject({ hasWebhookSecret: true, buildForkPullRequests: false, forge: 'github', webhookUrl: project.webhookUrl });
    expect(project.webhookUrl).toMatch(new RegExp(`/hooks/git/${project.id}$`));
    expect(project.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(JSON.stringify(settings)).not.toContain(project.secret);
  });

  it('a forged, a missing or a stale signature, or an unknown project: 401, the same answer, nothing built', async () => {
    const payload = githubPush(project.repository, 'main', project.firstSha, 'first commit');
    const forged = await hook({ event: 'push', payload, secret: 'not-the-secret' }).expect(401);
    expect(forged.body).toMatchObject({ code: 'invalid_webhook_signature' });
    const missing = await hook({ event: 'push', payload, unsigned: true }).expect(401);
    expect(missing.body).toMatchObject({ code: 'invalid_webhook_signature' });
    const unknown = await deliver(host.t, 'github', { id: 'proj_doesnotexist00000000000', secret: project.secret }, { event: 'push', payload }).expect(401);
    expect(unknown.body.message).toBe(forged.body.message);
    // A body changed after signing: the signature is over the bytes received.
    const signed = Buffer.from(JSON.stringify(payload));
    const changed = Buffer.from(JSON.stringify({ ...payload, ref: 'refs/heads/evil' }));
    const tampered = await host.t
      .http()
      .post(`/hooks/git/${project.id}`)
      .set(forgeHeaders('github', 'push', signed, project.secret, randomUUID()))
      .set('Content-Type', 'application/json')
      .send(changed.toString('utf8'))
      .expect(401);
    expect(tampered.body).toMatchObject({ code: 'invalid_webhook_signature' });
    expect(await builds()).toEqual([]);
  });

  it("ping: 200 { event: 'ping' }, nothing built", async () => {
    const res = await hook({ event: 'ping', payload: ping() }).expect(200);
    expect(res.body).toEqual({ event: 'ping' });
    expect(await builds()).toEqual([]);
  });

  let liveBuild: HookBuild;
  const deliveryId = randomUUID();

  it('a push to the production branch builds and publishes it (trigger push); the commit gets pending, then success, pointing at the live site', async () => {
    const sha = host.git.commit(project.repo, { 'content.txt': 'gh-site v2\n' }, { message: 'second commit' });
    const res = await hook({ event: 'push', payload: githubPush(project.repository, 'main', sha, 'second commit'), deliveryId }).expect(202);
    expect(res.body).toMatchObject({
      event: 'push',
      build: { id: expect.stringMatching(/^bld_/), trigger: 'push', branch: 'main', pullRequest: null, fork: false },
    });

    liveBuild = await buildEnded(project, res.body.build.id);
    expect(liveBuild).toMatchObject({ status: 'ready', trigger: 'push', branch: 'main', commitSha: sha, url: project.url, fork: false });
    expect((await serves(host.t, project.url, 'gh-site v2')).body).toBe('<h1>gh-site v2</h1>\n');
    expect((await project.api.project().expect(200)).body.liveDeploymentId).toBe(liveBuild.deploymentId);

    // What GitHub shows on the commit: our status, pending then success, linking to the live site.
    const statuses = await waitForStatuses(sha, ['pending', 'success']);
    expect(statuses[1]).toMatchObject({ state: 'success', target_url: project.url, context: expect.stringContaining('gh-site') });
    const call = host.forgeApi.calls.find((c) => c.path.includes(`/statuses/${sha}`))!;
    expect(call.path).toBe(`/api/v3/repos/acme/gh-site/statuses/${sha}`);
    expect(call.authorization).toContain(project.accessToken);
    // The record is written after the forge answered, so the fake forge can have the call a moment before the build says so.
    const settled = await eventually(async () => {
      const build = await buildEnded(project, liveBuild.id);
      if (build.forgeStatus === 'pending') throw new Error('forgeStatus still pending');
      return build;
    });
    expect(settled.forgeStatus).toBe('posted');
  });

  it('the same delivery again (a redelivery): 200 duplicate, no second build', async () => {
    const before = (await builds()).length;
    const sha = liveBuild.commitSha!;
    const res = await hook({ event: 'push', payload: githubPush(project.repository, 'main', sha, 'second commit'), deliveryId }).expect(200);
    expect(res.body).toEqual({ duplicate: true, deliveryId });
    expect(await builds()).toHaveLength(before);
  });

  let branchAlias: string;

  it('a push to another branch builds a preview at the branch alias; the live site stays', async () => {
    const sha = host.git.commit(project.repo, { 'content.txt': 'feature one\n' }, { branch: 'feature/Login_Page', message: 'start the login page' });
    const res = await hook({ event: 'push', payload: githubPush(project.repository, 'feature/Login_Page', sha, 'start the login page') }).expect(202);
    expect(res.body.build).toMatchObject({ trigger: 'push', branch: 'feature/Login_Page' });
    const build = await buildEnded(project, res.body.build.id);
    expect(build).toMatchObject({ status: 'ready', commitSha: sha, branch: 'feature/Login_Page' });

    branchAlias = `feature-login-page--${project.slug}`;
    expect(build.url).toBe(host.t.config.siteUrl(branchAlias));
    expect((await serves(host.t, build.url!, 'feature one')).body).toBe('<h1>feature one</h1>\n');
    const page = await host.t.http().get('/').set('Host', new URL(build.url!).host);
    expect(page.headers['x-robots-tag']).toBe('noindex');
    // The production site did not move.
    expect((await fetchSite(host.t, project.url)).body).toBe('<h1>gh-site v2</h1>\n');
    expect((await project.api.project().expect(200)).body.liveDeploymentId).toBe(liveBuild.deploymentId);
    // A branch of the project's own repository builds with the variables that target previews.
    expect((await fetchSite(host.t, build.url!, '/env.txt')).body.trim()).toBe(secretSeen(SECRET_VALUE));

    const listed = await previews(host, project.id);
    expect(listed).toContainEqual(
      expect.objectContaining({
        alias: branchAlias,
        kind: 'branch',
        branch: 'feature/Login_Page',
        pullRequest: null,
        url: build.url,
        buildId: build.id,
        commitSha: sha,
      }),
    );
    await tlsAsk(host.t, hostnameOf(build.url!)).expect(200);
  });

  it('a second push to the branch: the same alias serves the new commit', async () => {
    const sha = host.git.commit(project.repo, { 'content.txt': 'feature two\n' }, { branch: 'feature/Login_Page', message: 'finish the login page' });
    const res = await hook({ event: 'push', payload: githubPush(project.repository, 'feature/Login_Page', sha, 'finish the login page') }).expect(202);
    const build = await buildEnded(project, res.body.build.id);
    expect(build).toMatchObject({ status: 'ready', commitSha: sha, url: host.t.config.siteUrl(branchAlias) });
    expect((await serves(host.t, build.url!, 'feature two')).body).toBe('<h1>feature two</h1>\n');
    const listed = (await previews(host, project.id)).filter((p) => p.alias === branchAlias);
    expect(listed).toEqual([expect.objectContaining({ buildId: build.id, commitSha: sha })]);
  });

  let prBuild: HookBuild;
  let commentId: number;

  it('a pull request opened builds its head into the pr-<n> alias, and one comment says where it is', async () => {
    const sha = host.git.commit(project.repo, { 'content.txt': 'pull request one\n' }, { branch: 'changes', message: 'propose changes' });
    await pushRef(host.git, project.repo, 'changes', 'refs/pull/2/head');
    const res = await hook({
      event: 'pull_request',
      payload: githubPullRequest(project.repository, { action: 'opened', number: 2, headRef: 'changes', headSha: sha }),
    }).expect(202);
    expect(res.body).toMatchObject({
      event: 'pull_request',
      build: { trigger: 'pull_request', ref: 'refs/pull/2/head', branch: 'changes', pullRequest: 2, fork: false },
    });
    prBuild = await buildEnded(project, res.body.build.id);
    const alias = `pr-2--${project.slug}`;
    expect(prBuild).toMatchObject({ status: 'ready', commitSha: sha, url: host.t.config.siteUrl(alias) });
    expect((await serves(host.t, prBuild.url!, 'pull request one')).body).toBe('<h1>pull request one</h1>\n');
    expect(await previews(host, project.id)).toContainEqual(
      expect.objectContaining({ alias, kind: 'pull_request', pullRequest: 2, branch: 'changes', url: prBuild.url }),
    );

    // One comment on the pull request, with the preview URL and the commit; a status on the head commit.
    // It is written when the build is queued and edited when it ends: wait for the end.
    const comments = await waitForComments(2, (list) => list.length === 1 && list[0].body.includes(prBuild.url!));
    expect(comments[0].body).toContain(sha.slice(0, 12));
    commentId = comments[0].id;
    expect((await waitForStatuses(sha, ['pending', 'success']))[1]).toMatchObject({ target_url: prBuild.url });
    expect(host.forgeApi.calls.some((c) => c.method === 'POST' && c.path === '/api/v3/repos/acme/gh-site/issues/2/comments')).toBe(true);
  });

  it('synchronize (new commits): the same alias serves them and the same comment is edited, not a new one', async () => {
    const sha = host.git.commit(project.repo, { 'content.txt': 'pull request two\n' }, { branch: 'changes', message: 'address review' });
    await pushRef(host.git, project.repo, 'changes', 'refs/pull/2/head');
    const res = await hook({
      event: 'pull_request',
      payload: githubPullRequest(project.repository, { action: 'synchronize', number: 2, headRef: 'changes', headSha: sha }),
    }).expect(202);
    const build = await buildEnded(project, res.body.build.id);
    expect(build).toMatchObject({ status: 'ready', commitSha: sha, url: prBuild.url });
    expect((await serves(host.t, build.url!, 'pull request two')).body).toBe('<h1>pull request two</h1>\n');
    const comments = await waitForComments(2, (list) => list.some((c) => c.body.includes(sha.slice(0, 7))));
    expect(comments).toEqual([expect.objectContaining({ id: commentId })]);
    expect(comments[0].body).not.toContain(prBuild.commitSha!.slice(0, 7));
    expect(host.forgeApi.calls.some((c) => c.method === 'PATCH' && c.path === `/api/v3/repos/acme/gh-site/issues/comments/${commentId}`)).toBe(true);
  });

  it('a pull request action we do not act on (labeled): 202 ignored, nothing built', async () => {
    const before = (await builds()).length;
    const res = await hook({
      event: 'pull_request',
      payload: githubPullRequest(project.repository, { action: 'labeled', number: 2, headRef: 'changes', headSha: prBuild.commitSha! }),
    }).expect(202);
    expect(res.body).toEqual({ ignored: expect.stringContaining('labeled') });
    expect(await builds()).toHaveLength(before);
  });

  it('closed (merged): the pr-<n> alias is gone: not listed, not served, no certificate', async () => {
    const res = await hook({
      event: 'pull_request',
      payload: githubPullRequest(project.repository, { action: 'closed', number: 2, headRef: 'changes', headSha: prBuild.commitSha!, merged: true }),
    }).expect(200);
    expect(res.body).toEqual({ event: 'pull_request', removed: `pr-2--${project.slug}` });
    expect((await previews(host, project.id)).map((p) => p.alias)).not.toContain(`pr-2--${project.slug}`);
    expect((await fetchSite(host.t, prBuild.url!)).status).toBe(404);
    await tlsAsk(host.t, hostnameOf(prBuild.url!)).expect(404);
    // The branch preview is untouched.
    expect((await fetchSite(host.t, host.t.config.siteUrl(branchAlias))).body).toBe('<h1>feature two</h1>\n');
  });

  it('a deleted branch removes its alias', async () => {
    host.git.deleteBranch(project.repo, 'feature/Login_Page');
    const res = await hook({ event: 'push', payload: githubBranchDeleted(project.repository, 'feature/Login_Page') }).expect(200);
    expect(res.body).toEqual({ event: 'push', removed: branchAlias });
    expect((await previews(host, project.id)).map((p) => p.alias)).not.toContain(branchAlias);
    expect((await fetchSite(host.t, host.t.config.siteUrl(branchAlias))).status).toBe(404);
    await tlsAsk(host.t, `${branchAlias}.${host.t.config.SITES_DOMAIN}`).expect(404);
  });

  describe('pull requests from forks', () => {
    const forkUrl = () => `${host.git.baseUrl}/octocat/gh-site.git`;

    it('are not built unless the project allows it: 202 ignored', async () => {
      const sha = host.git.commit(project.repo, { 'content.txt': 'from a fork\n' }, { branch: 'fork-work', message: 'a stranger proposes' });
      await pushRef(host.git, project.repo, 'fork-work', 'refs/pull/3/head');
      host.git.deleteBranch(project.repo, 'fork-work');
      const before = (await builds()).length;
      const res = await hook({
        event: 'pull_request',
        payload: githubPullRequest(project.repository, { action: 'opened', number: 3, headRef: 'changes', headSha: sha, fork: forkUrl() }),
      }).expect(202);
      expect(res.body).toEqual({ ignored: expect.stringMatching(/fork/i) });
      expect(await builds()).toHaveLength(before);
    });

    it('when allowed, build without the project’s environment variables: the build cannot read the secret', async () => {
      await project.api.connect({ ...project.settings, buildForkPullRequests: true }).expect(200);
      const sha = host.git.commit(project.repo, { 'content.txt': 'from a fork, again\n' }, { branch: 'fork-work', message: 'a stranger tries again' });
      await pushRef(host.git, project.repo, 'fork-work', 'refs/pull/3/head');
      host.git.deleteBranch(project.repo, 'fork-work');
      const res = await hook({
        event: 'pull_request',
        payload: githubPullRequest(project.repository, { action: 'synchronize', number: 3, headRef: 'changes', headSha: sha, fork: forkUrl() }),
      }).expect(202);
      expect(res.body.build).toMatchObject({ trigger: 'pull_request', pullRequest: 3, fork: true, ref: 'refs/pull/3/head' });
      const build = await buildEnded(project, res.body.build.id);
      expect(build).toMatchObject({ status: 'ready', fork: true, commitSha: sha, url: host.t.config.siteUrl(`pr-3--${project.slug}`) });
      expect((await serves(host.t, build.url!, 'from a fork, again')).status).toBe(200);
      expect((await fetchSite(host.t, build.url!, '/env.txt')).body.trim()).toBe(secretSeen(null));
      const log = (await project.api.logs(build.id).expect(200)).text;
      expect(log).toContain('SECRET_TOKEN absent');
      expect(log).not.toContain(SECRET_VALUE);
      // The production site never moved.
      expect((await fetchSite(host.t, project.url)).body).toBe('<h1>gh-site v2</h1>\n');
    });
  });

  describe('deliveries refused or ignored', () => {
    it('an event we do not act on (issues) and a tag push: 202 ignored, nothing built', async () => {
      const before = (await builds()).length;
      const issues = await hook({
        event: 'issues',
        payload: { action: 'opened', issue: { number: 1 }, repository: githubPush(project.repository, 'main', project.firstSha, '').repository },
      }).expect(202);
      expect(issues.body).toEqual({ ignored: expect.stringContaining('issues') });
      const tag = await hook({
        event: 'push',
        payload: { ...githubPush(project.repository, 'main', project.firstSha, 'tag'), ref: GITHUB_TAG_PUSH.ref },
      }).expect(202);
      expect(tag.body).toEqual({ ignored: expect.stringContaining('tag') });
      expect(await builds()).toHaveLength(before);
    });

    it('a payload over GIT_WEBHOOK_MAX_BYTES: 413, nothing built', async () => {
      const before = (await builds()).length;
      const payload = githubPush(project.repository, 'main', project.firstSha, 'x'.repeat(2 * 1024 * 1024 + 1));
      const res = await hook({ event: 'push', payload });
      expect(res.status).toBe(413);
      expect(await builds()).toHaveLength(before);
    });

    it('signed but not what the event needs: 400 invalid_webhook_payload; another repository: 400 repository_mismatch', async () => {
      const before = (await builds()).length;
      const broken = await hook({ event: 'push', payload: { ref: 'refs/heads/main' } }).expect(400);
      expect(broken.body).toMatchObject({ code: 'invalid_webhook_payload' });
      const notJson = await hook({ event: 'push', payload: null, body: Buffer.from('{"ref": ') }).expect(400);
      expect(notJson.body).toMatchObject({ code: 'invalid_webhook_payload' });
      const other = await hook({
        event: 'push',
        payload: githubPush(`${host.git.baseUrl}/acme/another-site.git`, 'main', project.firstSha, 'elsewhere'),
      }).expect(400);
      expect(other.body).toMatchObject({ code: 'repository_mismatch' });
      expect(await builds()).toHaveLength(before);
    });

    it('rotating the secret: the old one stops working at once', async () => {
      const rotated = await host.t.http().post(`/projects/${project.id}/git/webhook-secret`).set(bearer(host.token)).expect(200);
      expect(rotated.body.secret).not.toBe(project.secret);
      await hook({ event: 'ping', payload: ping() }).expect(401);
      const res = await deliver(host.t, 'github', { id: project.id, secret: rotated.body.secret as string }, { event: 'ping', payload: ping() }).expect(200);
      expect(res.body).toEqual({ event: 'ping' });
    });
  });

  /** The statuses posted for `sha`, once their states are `states` in order. */
  async function waitForStatuses(sha: string, states: string[]) {
    return eventually(async () => {
      const mine = host.forgeApi.statuses.filter((s) => s.sha === sha).map((s) => s.body as { state: string; target_url?: string });
      // The first and the last: a retried call may post a state twice.
      if (mine[0]?.state !== states[0] || mine.at(-1)?.state !== states.at(-1)) throw new Error(`statuses of ${sha}: ${JSON.stringify(mine)}`);
      return [mine[0], mine.at(-1)!];
    }, 30_000);
  }

  async function waitForComments(pullRequest: number, ok: (list: { id: number; body: string }[]) => boolean) {
    return eventually(async () => {
      const list = host.forgeApi.comments.get(pullRequest) ?? [];
      if (!ok(list)) throw new Error(`comments on #${pullRequest}: ${JSON.stringify(list)}`);
      return list.map((c) => ({ ...c }));
    }, 30_000);
  }
});
