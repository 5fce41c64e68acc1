import { BuildsService } from '../../src/builds/builds.service';
import { ForgeFeedback } from '../../src/builds/feedback/forge-feedback';
import { Builder } from '../../src/builds/queue/builder.service';
import { PREVIEW_COMMENT_MARKER } from '../../src/forges/clients/forge-client';
import { type BuildRecord, buildsApi, createProject, nodeSite, RENDER_CONTENT, startBuildApp } from '../builds/flow-support';
import { ForgeApiServer, type RecordedCall } from '../forges/forge-api-server';
import type { TestApp } from '../helpers/app';
import { eventually } from '../helpers/eventually';
import { type GitServer, startGitServer } from '../helpers/git-server';
import { createApiToken, registerUser, type UserSession } from '../helpers/identity';

jest.setTimeout(240_000);

const FORGE_TOKEN = 'forge-feedback-token-5f1c9e';
// Short waits between the client's retries: the policy's shape is what is tested, not its timing.
const FAST_RETRY = { retries: 3, minTimeoutMs: 5, maxTimeoutMs: 20 };

/**
 * Issue 29, "The forge hears back": builds from a real Git server whose host also serves
 * the forge's API (the recording stand-in), so the real clients find the API where they
 * do in production: GitHub Enterprise at /api/v3 of the repository's host, a self-hosted
 * GitLab at /api/v4, Gitea at /api/v1.
 */
const FORGES = [
  { forge: 'github', pullRequest: 7, auth: `token ${FORGE_TOKEN}`, api: (repo: string) => `/api/v3/repos/acme/${repo}` },
  { forge: 'gitlab', pullRequest: 8, auth: FORGE_TOKEN, api: (repo: string) => `/api/v4/projects/acme%2F${repo}` },
  { forge: 'gitea', pullRequest: 9, auth: `token ${FORGE_TOKEN}`, api: (repo: string) => `/api/v1/repos/acme/${repo}` },
] as const;

const FAILING_BUILD = `console.error('the build script fails on purpose'); process.exit(1);\n`;

describe('Forge feedback: commit statuses and one pull request comment (e2e)', () => {
  let t: TestApp;
  let git: GitServer;
  const forgeApi = new ForgeApiServer();
  let user: UserSession;
  let token: string;

  beforeAll(async () => {
    [t, git] = await Promise.all([startBuildApp(), startGitServer({ api: forgeApi.handler })]);
    t.app.get(ForgeFeedback).retry = FAST_RETRY;
    user = await registerUser(t);
    token = (await createApiToken(t, user, { scopes: ['deploy', 'read', 'admin'] })).token;
  });
  afterAll(async () => {
    await t?.close();
    await git?.close();
  });

  /** Every build has ended on the builder and the forge calls it queued have ended. */
  async function settled(): Promise<void> {
    const builder = t.app.get(Builder) as unknown as { running: Map<string, unknown> };
    await eventually(async () => {
      if (builder.running.size > 0) throw new Error(`${builder.running.size} build(s) still running`);
    }, 60_000);
    await t.app.get(ForgeFeedback).idle();
  }

  /** The record's forge columns (the build view shows them once the previews area's view lands). */
  async function forgeColumns(buildId: string): Promise<{ forgeStatus: string | null; forgeError: string | null }> {
    const [row] = await t.dataSource.query('SELECT forge_status AS "forgeStatus", forge_error AS "forgeError" FROM builds WHERE id = $1', [buildId]);
    return row;
  }

  const callsOf = (prefix: string): RecordedCall[] => forgeApi.calls.filter((c) => c.path.startsWith(prefix));

  describe.each(FORGES)('$forge', ({ forge, pullRequest, auth, api }) => {
    const repo = `${forge}-site`;
    let project: { id: string; slug: string; url: string };
    let builds: ReturnType<typeof buildsApi>;

    beforeAll(async () => {
      git.createRepo(`acme/${repo}`, nodeSite(RENDER_CONTENT, { 'content.txt': `Hello from ${forge}\n` }), { token: FORGE_TOKEN });
      project = await createProject(t, token, `feedback-${forge}`);
      builds = buildsApi(t, token, project.id);
      await builds.connect({ repository: git.url(`acme/${repo}`), productionBranch: 'main', outputDirectory: 'dist', accessToken: FORGE_TOKEN }).expect(200);
      // The repository is on 127.0.0.1, no public forge's host: the project says which forge it is.
      await t.dataSource.query('UPDATE project_git SET forge = $2 WHERE project_id = $1', [project.id, forge]);
    });

    it('a build sets pending, then success, on its commit, with the live site as the target', async () => {
      const { build } = await builds.run({});
      expect(build.status).toBe('ready');
      await settled();
      const statuses = forgeApi.statuses.filter((s) => s.sha === build.commitSha);
      const state = (s: { body: any }) => s.body.state;
      expect(statuses.map(state)).toEqual(['pending', 'success']);
      const context = forge === 'gitlab' ? 'name' : 'context';
      expect(statuses[1].body).toMatchObject({ target_url: build.url, [context]: `statichost/${project.slug}`, description: 'Deployed to the live site' });
      expect(statuses[0].body.target_url).toBe(`${t.config.apiBaseUrl}/app/w/${user.workspaceId}/projects/${project.id}/builds/${build.id}`);
      const calls = callsOf(api(repo));
      expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([
        `POST ${api(repo)}/statuses/${build.commitSha}`,
        `POST ${api(repo)}/statuses/${build.commitSha}`,
      ]);
      expect(calls.every((c) => c.authorization === auth)).toBe(true);
      expect(await forgeColumns(build.id)).toEqual({ forgeStatus: 'posted', forgeError: null });
    });

    it('a failing build sets failure, pointing at the build’s page', async () => {
      git.commit(`acme/${repo}`, { 'build.js': FAILING_BUILD }, { branch: 'broken' });
      const { build } = await builds.run({ ref: 'broken' });
      expect(build.status).toBe('failed');
      await settled();
      const statuses = forgeApi.statuses.filter((s) => s.sha === build.commitSha).map((s) => s.body);
      expect(statuses.map((s) => s.state)).toEqual(['pending', forge === 'gitlab' ? 'failed' : 'failure']);
      expect(statuses[1]).toMatchObject({
        description: 'Build failed',
        target_url: `${t.config.apiBaseUrl}/app/w/${user.workspaceId}/projects/${project.id}/builds/${build.id}`,
      });
      expect(await forgeColumns(build.id)).toEqual({ forgeStatus: 'posted', forgeError: null });
    });

    it('a pull request built twice keeps one comment, created once and then edited in place', async () => {
      const someoneElse = forgeApi.addComment(pullRequest, 'Nice change!');
      // Written before any build, with our marker copied in: never taken for ours.
      const impostor = forgeApi.addComment(pullRequest, `${PREVIEW_COMMENT_MARKER}\n| Preview | https://evil.example/ |`);
      const service = t.app.get(BuildsService);
      const principal = { kind: 'user' as const, workspaceId: user.workspaceId, scopes: ['deploy' as const, 'read' as const], userId: user.userId };
      const prBuild = async (content: string): Promise<BuildRecord> => {
        git.commit(`acme/${repo}`, { 'content.txt': `${content}\n` }, { branch: `feature-${forge}` });
        const started = await service.start(principal, project.id, { ref: `feature-${forge}`, trigger: 'pull_request', pullRequest });
        const build = await builds.until(started.id);
        expect(build.status).toBe('ready');
        await settled();
        return build;
      };
      const first = await prBuild('first change');
      const second = await prBuild('second change');

      const comments = forgeApi.comments.get(pullRequest)!;
      expect(comments).toHaveLength(3);
      expect(comments.find((c) => c.id === someoneElse)!.body).toBe('Nice change!');
      expect(comments.find((c) => c.id === impostor)!.body).toBe(`${PREVIEW_COMMENT_MARKER}\n| Preview | https://evil.example/ |`);
      const ours = comments.find((c) => c.id !== someoneElse && c.id !== impostor)!;
      expect(ours.body.startsWith(PREVIEW_COMMENT_MARKER)).toBe(true);
      expect(ours.body).toContain(`| Commit | \`${second.commitSha!.slice(0, 12)}\` |`);
      expect(ours.body).toContain(`| Preview | ${second.url} |`);
      expect(ours.body).toContain('✅ Ready');
      expect(ours.body).not.toContain(first.commitSha!.slice(0, 12));

      const commentCalls = callsOf(api(repo)).filter((c) => !c.path.includes('/statuses/'));
      // Created once (the first build's pending), edited by its id on every later change: never a second comment, never a listing.
      expect(commentCalls.map((c) => c.method)).toEqual(['POST', ...Array(3).fill(forge === 'gitlab' ? 'PUT' : 'PATCH')]);
      for (const build of [first, second]) {
        expect(forgeApi.statuses.filter((s) => s.sha === build.commitSha).map((s) => s.body.state)).toEqual(['pending', 'success']);
        expect(await forgeColumns(build.id)).toEqual({ forgeStatus: 'posted', forgeError: null });
      }

      // The retention sweep may delete every build of a pull request in review: the comment is still the one edited.
      await t.dataSource.query('DELETE FROM builds WHERE project_id = $1 AND pull_request = $2', [project.id, pullRequest]);
      const third = await prBuild('third change');
      expect(forgeApi.comments.get(pullRequest)).toHaveLength(3);
      expect(forgeApi.comments.get(pullRequest)!.find((c) => c.id === ours.id)!.body).toContain(`| Commit | \`${third.commitSha!.slice(0, 12)}\` |`);
    });

    it('a forge answering 500 every time: the build still ends ready, the record says why, without the token', async () => {
      forgeApi.failNext(...Array(100).fill(500));
      try {
        git.commit(`acme/${repo}`, { 'content.txt': 'while the forge is down\n' });
        const { build, log } = await builds.run({});
        expect(build.status).toBe('ready');
        await settled();
        const columns = await forgeColumns(build.id);
        expect(columns.forgeStatus).toBe('failed');
        expect(columns.forgeError).toBe(`${forge} commit status failed: HTTP 500`);
        // Both the pending and the final status were tried, each with its retries.
        expect(callsOf(`${api(repo)}/statuses/${build.commitSha}`)).toHaveLength(2 * (1 + FAST_RETRY.retries));
        expect(forgeApi.statuses.filter((s) => s.sha === build.commitSha)).toHaveLength(0);
        expect(JSON.stringify((await builds.get(build.id).expect(200)).body)).not.toContain(FORGE_TOKEN);
        expect(log).not.toContain(FORGE_TOKEN);
        expect(t.logs.join('\n')).not.toContain(FORGE_TOKEN);
        expect(t.logs.some((line) => line.includes(build.id) && line.includes(`${forge} commit status failed: HTTP 500`))).toBe(true);
      } finally {
        forgeApi.reset();
      }
    });

    it('without an access token nothing is posted and the record’s forgeStatus stays null', async () => {
      const publicRepo = `${forge}-public`;
      git.createRepo(`acme/${publicRepo}`, nodeSite(RENDER_CONTENT, { 'content.txt': 'public\n' }));
      const other = await createProject(t, token, `feedback-${forge}-public`);
      const otherBuilds = buildsApi(t, token, other.id);
      await otherBuilds.connect({ repository: git.url(`acme/${publicRepo}`), productionBranch: 'main', outputDirectory: 'dist' }).expect(200);
      await t.dataSource.query('UPDATE project_git SET forge = $2 WHERE project_id = $1', [other.id, forge]);
      const { build } = await otherBuilds.run({});
      expect(build.status).toBe('ready');
      await settled();
      expect(callsOf(api(publicRepo))).toEqual([]);
      expect(await forgeColumns(build.id)).toEqual({ forgeStatus: null, forgeError: null });
    });
  });
});
