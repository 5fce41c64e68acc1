import { GITEA_BRANCH_DELETED } from '../../src/forges/webhooks/examples.fixture';
import { eventually } from '../helpers/eventually';
import { fetchSite } from '../helpers/sites';
import {
  buildEnded,
  deliver,
  type Forge,
  type ForgeHost,
  giteaPullRequest,
  giteaPush,
  gitlabMergeRequest,
  gitlabPush,
  type HookedProject,
  hookedProject,
  hostnameOf,
  previews,
  pushRef,
  serves,
  startForgeHost,
  tlsAsk,
} from './forges-flow-support';

jest.setTimeout(180_000);

/**
 * Issue 29, "What it must show", for GitLab, Gitea and Forgejo: their documented webhook
 * payloads pointed at a real repository here, authenticated as each forge does
 * (`X-Gitlab-Token`, `X-Gitea-Signature`, `X-Forgejo-Signature`), build the real app;
 * the host's `/api/v4` (GitLab) and `/api/v1` (Gitea, Forgejo) are the recording stand-in
 * of their REST APIs. GitHub, with every refusal, is test/forges-flow/github.e2e-spec.ts.
 */
describe('GitLab, Gitea and Forgejo webhooks: push → live, merge/pull request → alias and one comment (e2e)', () => {
  let host: ForgeHost;

  beforeAll(async () => {
    host = await startForgeHost();
  });
  afterAll(async () => host?.close());

  const comments = (pullRequest: number, ok: (list: { id: number; body: string }[]) => boolean) =>
    eventually(async () => {
      const list = host.forgeApi.comments.get(pullRequest) ?? [];
      if (!ok(list)) throw new Error(`comments on #${pullRequest}: ${JSON.stringify(list)}`);
      return list.map((c) => ({ ...c }));
    }, 30_000);

  async function pushToMain(
    forge: Forge,
    project: HookedProject,
    payloadOf: (repository: string, branch: string, sha: string, message: string) => unknown,
    event: string,
    content: string,
  ) {
    const sha = host.git.commit(project.repo, { 'content.txt': `${content}\n` }, { message: `publish ${content}` });
    const res = await deliver(host.t, forge, project, { event, payload: payloadOf(project.repository, 'main', sha, `publish ${content}`) }).expect(202);
    expect(res.body).toMatchObject({ event: 'push', build: { trigger: 'push', branch: 'main', pullRequest: null } });
    const build = await buildEnded(project, res.body.build.id);
    expect(build).toMatchObject({ status: 'ready', commitSha: sha, url: project.url });
    expect((await serves(host.t, project.url, content)).body).toBe(`<h1>${content}</h1>\n`);
    return { sha, build };
  }

  describe('GitLab (X-Gitlab-Token, Push Hook, Merge Request Hook)', () => {
    let project: HookedProject;
    let noteId: number;
    let firstMrSha: string;

    beforeAll(async () => {
      project = await hookedProject(host, 'gl-site', { forge: 'gitlab' });
    });

    it('a wrong token: 401 invalid_webhook_signature, nothing built', async () => {
      const payload = gitlabPush(project.repository, 'main', project.firstSha, 'first commit');
      const res = await deliver(host.t, 'gitlab', project, { event: 'Push Hook', payload, secret: `${project.secret}x` }).expect(401);
      expect(res.body).toMatchObject({ code: 'invalid_webhook_signature' });
      expect((await project.api.list().expect(200)).body.meta.total).toBe(0);
    });

    it('Push Hook on the production branch: built and live, the commit status set through /api/v4', async () => {
      const { sha } = await pushToMain('gitlab', project, gitlabPush, 'Push Hook', 'gitlab live');
      await eventually(async () => {
        const states = host.forgeApi.statuses.filter((s) => s.sha === sha).map((s) => s.body.state as string);
        // GitLab's own names: pending, then success.
        expect(states[0]).toBe('pending');
        expect(states.at(-1)).toBe('success');
      }, 30_000);
      expect(host.forgeApi.calls.some((c) => c.method === 'POST' && c.path === `/api/v4/projects/acme%2Fgl-site/statuses/${sha}`)).toBe(true);
    });

    it('Merge Request Hook (open): refs/merge-requests/<iid>/head builds into pr-<iid>, one note on the merge request', async () => {
      firstMrSha = host.git.commit(project.repo, { 'content.txt': 'gitlab mr one\n' }, { branch: 'ms-viewport', message: 'viewport' });
      await pushRef(host.git, project.repo, 'ms-viewport', 'refs/merge-requests/1/head');
      const res = await deliver(host.t, 'gitlab', project, {
        event: 'Merge Request Hook',
        payload: gitlabMergeRequest(project.repository, { action: 'open', iid: 1, sourceBranch: 'ms-viewport', sha: firstMrSha }),
      }).expect(202);
      expect(res.body).toMatchObject({
        event: 'pull_request',
        build: { trigger: 'pull_request', ref: 'refs/merge-requests/1/head', branch: 'ms-viewport', pullRequest: 1 },
      });
      const build = await buildEnded(project, res.body.build.id);
      expect(build).toMatchObject({ status: 'ready', commitSha: firstMrSha, url: host.t.config.siteUrl(`pr-1--${project.slug}`) });
      expect((await serves(host.t, build.url!, 'gitlab mr one')).status).toBe(200);
      const notes = await comments(1, (list) => list.length === 1 && list[0].body.includes(build.url!));
      expect(notes[0].body).toContain(firstMrSha.slice(0, 12));
      noteId = notes[0].id;
    });

    it('Merge Request Hook (update with new commits): the same alias, the same note edited', async () => {
      const sha = host.git.commit(project.repo, { 'content.txt': 'gitlab mr two\n' }, { branch: 'ms-viewport', message: 'viewport, reviewed' });
      await pushRef(host.git, project.repo, 'ms-viewport', 'refs/merge-requests/1/head');
      const res = await deliver(host.t, 'gitlab', project, {
        event: 'Merge Request Hook',
        payload: gitlabMergeRequest(project.repository, { action: 'update', iid: 1, sourceBranch: 'ms-viewport', sha, oldrev: firstMrSha }),
      }).expect(202);
      const build = await buildEnded(project, res.body.build.id);
      expect(build).toMatchObject({ status: 'ready', commitSha: sha, url: host.t.config.siteUrl(`pr-1--${project.slug}`) });
      expect((await serves(host.t, build.url!, 'gitlab mr two')).status).toBe(200);
      const notes = await comments(1, (list) => list.some((c) => c.body.includes(sha.slice(0, 7))));
      expect(notes).toEqual([expect.objectContaining({ id: noteId })]);
      expect(host.forgeApi.calls.some((c) => c.method === 'PUT' && c.path === `/api/v4/projects/acme%2Fgl-site/merge_requests/1/notes/${noteId}`)).toBe(true);
    });

    it('Merge Request Hook (merge): the alias is removed', async () => {
      const alias = `pr-1--${project.slug}`;
      const res = await deliver(host.t, 'gitlab', project, {
        event: 'Merge Request Hook',
        payload: gitlabMergeRequest(project.repository, { action: 'merge', iid: 1, sourceBranch: 'ms-viewport', sha: firstMrSha }),
      }).expect(200);
      expect(res.body).toEqual({ event: 'pull_request', removed: alias });
      expect((await previews(host, project.id)).map((p) => p.alias)).not.toContain(alias);
      expect((await fetchSite(host.t, host.t.config.siteUrl(alias))).status).toBe(404);
      await tlsAsk(host.t, hostnameOf(host.t.config.siteUrl(alias))).expect(404);
    });
  });

  describe('Gitea (X-Gitea-Signature, push, delete, pull_request)', () => {
    let project: HookedProject;

    beforeAll(async () => {
      project = await hookedProject(host, 'gt-site', { forge: 'gitea' });
    });

    it('push to the production branch: built and live', async () => {
      await pushToMain('gitea', project, giteaPush, 'push', 'gitea live');
    });

    it('a branch push makes its alias; the delete event removes it', async () => {
      const sha = host.git.commit(project.repo, { 'content.txt': 'gitea develop\n' }, { branch: 'develop', message: 'develop' });
      const res = await deliver(host.t, 'gitea', project, { event: 'push', payload: giteaPush(project.repository, 'develop', sha, 'develop') }).expect(202);
      const build = await buildEnded(project, res.body.build.id);
      const alias = `develop--${project.slug}`;
      expect(build).toMatchObject({ status: 'ready', url: host.t.config.siteUrl(alias) });
      expect((await serves(host.t, build.url!, 'gitea develop')).status).toBe(200);

      host.git.deleteBranch(project.repo, 'develop');
      const deleted = await deliver(host.t, 'gitea', project, {
        event: 'delete',
        payload: { ...GITEA_BRANCH_DELETED, repository: giteaPush(project.repository, 'develop', sha, '').repository },
      }).expect(200);
      expect(deleted.body).toEqual({ event: 'push', removed: alias });
      expect((await fetchSite(host.t, build.url!)).status).toBe(404);
    });

    it('pull_request opened: pr-<n> alias from refs/pull/<n>/head, one comment through /api/v1', async () => {
      const sha = host.git.commit(project.repo, { 'content.txt': 'gitea pull seven\n' }, { branch: 'feature/page', message: 'add a page' });
      await pushRef(host.git, project.repo, 'feature/page', 'refs/pull/7/head');
      const res = await deliver(host.t, 'gitea', project, {
        event: 'pull_request',
        payload: giteaPullRequest(project.repository, { action: 'opened', number: 7, headRef: 'feature/page', headSha: sha }),
      }).expect(202);
      expect(res.body.build).toMatchObject({ trigger: 'pull_request', ref: 'refs/pull/7/head', pullRequest: 7, branch: 'feature/page' });
      const build = await buildEnded(project, res.body.build.id);
      expect(build).toMatchObject({ status: 'ready', commitSha: sha, url: host.t.config.siteUrl(`pr-7--${project.slug}`) });
      expect((await serves(host.t, build.url!, 'gitea pull seven')).status).toBe(200);
      const list = await comments(7, (l) => l.length === 1 && l[0].body.includes(build.url!));
      expect(list[0].body).toContain(sha.slice(0, 12));
      expect(host.forgeApi.calls.some((c) => c.method === 'POST' && c.path === '/api/v1/repos/acme/gt-site/issues/7/comments')).toBe(true);
    });
  });

  describe('Forgejo (X-Forgejo-Signature; the forge left unset, known from its verified deliveries)', () => {
    let project: HookedProject;

    beforeAll(async () => {
      project = await hookedProject(host, 'fj-site', { forge: null });
    });

    it('a Gitea signature header alone does not pass for a forged Forgejo one', async () => {
      const payload = giteaPush(project.repository, 'main', project.firstSha, 'first commit');
      const res = await deliver(host.t, 'forgejo', project, { event: 'push', payload, secret: 'guessed' }).expect(401);
      expect(res.body).toMatchObject({ code: 'invalid_webhook_signature' });
    });

    it('push to the production branch: built and live', async () => {
      await pushToMain('forgejo', project, giteaPush, 'push', 'forgejo live');
    });

    it('pull_request synchronized: pr-<n> alias serving the head, one comment', async () => {
      const sha = host.git.commit(project.repo, { 'content.txt': 'forgejo pull nine\n' }, { branch: 'topic', message: 'topic' });
      await pushRef(host.git, project.repo, 'topic', 'refs/pull/9/head');
      const res = await deliver(host.t, 'forgejo', project, {
        event: 'pull_request',
        payload: giteaPullRequest(project.repository, { action: 'synchronized', number: 9, headRef: 'topic', headSha: sha }),
      }).expect(202);
      const build = await buildEnded(project, res.body.build.id);
      expect(build).toMatchObject({ status: 'ready', trigger: 'pull_request', commitSha: sha, url: host.t.config.siteUrl(`pr-9--${project.slug}`) });
      expect((await serves(host.t, build.url!, 'forgejo pull nine')).status).toBe(200);
      expect(await previews(host, project.id)).toContainEqual(
        expect.objectContaining({ alias: `pr-9--${project.slug}`, kind: 'pull_request', pullRequest: 9 }),
      );
      const list = await comments(9, (l) => l.length === 1 && l[0].body.includes(build.url!));
      expect(list[0].body).toContain(sha.slice(0, 12));
      expect(host.forgeApi.calls.some((c) => c.method === 'POST' && c.path === '/api/v1/repos/acme/fj-site/issues/9/comments')).toBe(true);
    });
  });
});
