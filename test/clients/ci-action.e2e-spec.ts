import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { parse } from 'yaml';

import { startTestApp, type TestApp } from '../helpers/app';
import { bearer, createApiToken, registerUser } from '../helpers/identity';
import { fetchSite } from '../helpers/sites';
import { ACTION_PATH, runAction, runScript } from './action-runner';

interface Recorded {
  method: string;
  path: string;
  authorization: string | undefined;
  body: { body?: string } | null;
}

/**
 * A stand-in for api.github.com (GITHUB_API_URL): the issue-comment routes the action
 * uses, kept in memory, every request recorded.
 */
async function startGitHubApi(token: string) {
  const requests: Recorded[] = [];
  const comments: { id: number; body: string; user: { login: string; type: string } }[] = [
    // Someone else's comment on the pull request: the action must leave it alone.
    { id: 1, body: 'Looks good to me', user: { login: 'octocat', type: 'User' } },
    // Someone's comment holding the action's marker: not the action's own, so not edited either.
    { id: 2, body: '<!-- statichost-deploy project=ci-site -->\nPreview: https://phishing.example', user: { login: 'mallory', type: 'User' } },
    // Another app's bot quoting the marker: a bot, but not the one the workflow's token comments as.
    { id: 3, body: 'Renovate quotes: <!-- statichost-deploy project=ci-site -->', user: { login: 'renovate[bot]', type: 'Bot' } },
  ];
  /** Set: the token is a personal one of this login (GET /user answers it, and its comments are that user's). */
  const state: { personalLogin: string | null } = { personalLogin: null };
  let nextId = 100;
  const readBody = async (req: IncomingMessage) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    return text ? (JSON.parse(text) as { body?: string }) : null;
  };
  const server: Server = createServer((req, res) => {
    void readBody(req).then((body) => {
      const path = req.url ?? '';
      requests.push({ method: req.method ?? '', path, authorization: req.headers.authorization, body });
      const send = (status: number, data: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(data));
      };
      if (req.headers.authorization !== `token ${token}`) return send(401, { message: 'Bad credentials' });
      // An installation token (the workflow's GITHUB_TOKEN) is no user: GitHub refuses it this route.
      if (req.method === 'GET' && path === '/user') {
        return state.personalLogin ? send(200, { login: state.personalLogin, type: 'User' }) : send(403, { message: 'Resource not accessible by integration' });
      }
      if (req.method === 'GET' && /^\/repos\/octo-org\/site\/issues\/7\/comments(\?|$)/.test(path)) return send(200, comments);
      if (req.method === 'POST' && path === '/repos/octo-org/site/issues/7/comments') {
        const user = state.personalLogin ? { login: state.personalLogin, type: 'User' } : { login: 'github-actions[bot]', type: 'Bot' };
        const comment = { id: nextId++, body: body?.body ?? '', user };
        comments.push(comment);
        return send(201, comment);
      }
      const edit = /^\/repos\/octo-org\/site\/issues\/comments\/(\d+)$/.exec(path);
      if (req.method === 'PATCH' && edit) {
        const comment = comments.find((c) => c.id === Number(edit[1]));
        if (!comment) return send(404, { message: 'Not Found' });
        comment.body = body?.body ?? '';
        return send(200, comment);
      }
      send(404, { message: 'Not Found' });
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    comments,
    state,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

/**
 * An abridged `pull_request` webhook payload, as GitHub documents it
 * (docs.github.com "Webhook events and payloads", pull_request opened/synchronize):
 * what a workflow sees at GITHUB_EVENT_PATH.
 */
function pullRequestEvent(action: 'opened' | 'synchronize', headSha: string) {
  return {
    action,
    number: 7,
    pull_request: {
      number: 7,
      state: 'open',
      title: 'Add a contact page',
      head: { ref: 'contact-page', sha: headSha, repo: { full_name: 'octo-org/site' } },
      base: { ref: 'main', sha: '6dcb09b5b57875f334f61aebed695e2e4193db5e', repo: { full_name: 'octo-org/site' } },
    },
    repository: { id: 1296269, name: 'site', full_name: 'octo-org/site', default_branch: 'main', private: false },
    sender: { login: 'octocat', type: 'User' },
  };
}

function pushEvent(sha: string) {
  return {
    ref: 'refs/heads/main',
    before: '6dcb09b5b57875f334f61aebed695e2e4193db5e',
    after: sha,
    repository: { id: 1296269, name: 'site', full_name: 'octo-org/site', default_branch: 'main', private: false },
    head_commit: { id: sha, message: 'Update the home page' },
    pusher: { name: 'octocat' },
  };
}

/**
 * The GitHub Action (action.yml at the repository's root), its steps run from the
 * file itself as the runner runs them, against the real app and a recording
 * stand-in of GitHub's REST API.
 */
describe('GitHub Action: deploy a folder built in CI (e2e)', () => {
  let t: TestApp;
  let token: string;
  let workspace: string;
  let github: Awaited<ReturnType<typeof startGitHubApi>>;
  const githubToken = 'ghs_recorded_token';

  const writeSite = async (text: string) => {
    await mkdir(join(workspace, 'dist'), { recursive: true });
    await writeFile(join(workspace, 'dist', 'index.html'), `<h1>${text}</h1>`);
  };

  const run = async (eventName: string, refName: string, event: object, inputs: Record<string, string> = {}) => {
    const eventPath = join(workspace, 'event.json');
    await writeFile(eventPath, JSON.stringify(event));
    return runAction(
      { 'api-url': t.baseUrl, token, project: 'ci-site', directory: 'dist', 'github-token': githubToken, ...inputs },
      {
        GITHUB_ACTIONS: 'true',
        GITHUB_EVENT_NAME: eventName,
        GITHUB_EVENT_PATH: eventPath,
        GITHUB_REF_NAME: refName,
        GITHUB_REPOSITORY: 'octo-org/site',
        GITHUB_SHA: 'ffac537e6cbbf934b08745a378932722df287a53',
        GITHUB_API_URL: github.url,
      },
      { workspace },
    );
  };

  const project = async () => {
    const list = await t.http().get('/projects').set(bearer(token)).query({ limit: 100 });
    return (list.body as { data: { id: string; slug: string; liveDeploymentId: string | null }[] }).data.find((p) => p.slug === 'ci-site');
  };

  beforeAll(async () => {
    t = await startTestApp();
    const user = await registerUser(t);
    token = (await createApiToken(t, user, { scopes: ['deploy', 'read'], name: 'github actions' })).token;
    github = await startGitHubApi(githubToken);
    workspace = await mkdtemp(join(tmpdir(), 'statichost-gha-'));
  });
  afterAll(async () => {
    await t?.close();
    await github?.close();
    await rm(workspace, { recursive: true, force: true });
  });

  let firstPreview: { url: string; id: string };

  it('pull request opened: a preview deployment, url and deployment-id written to $GITHUB_OUTPUT, one comment with the address', async () => {
    await writeSite('contact page v1');
    const res = await run('pull_request', '7/merge', pullRequestEvent('opened', 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678'));
    expect(res).toMatchObject({ code: 0 });
    expect(res.stderr).toContain('Deploying a preview: a pull_request event');
    expect(res.outputs['deployment-id']).toMatch(/^dep_/);
    expect(res.outputs.url).toMatch(/^http:\/\//);
    // The runner's file itself holds both outputs.
    expect(res.outputFiles.deploy).toContain(res.outputs.url);
    expect(res.outputFiles.deploy).toContain(res.outputs['deployment-id']);
    firstPreview = { url: res.outputs.url, id: res.outputs['deployment-id'] };

    expect(await fetchSite(t, res.outputs.url)).toEqual({ status: 200, body: '<h1>contact page v1</h1>' });
    // A preview: nothing went live.
    expect((await project())?.liveDeploymentId ?? null).toBeNull();

    const writes = github.requests.filter((r) => r.method !== 'GET');
    expect(writes).toEqual([expect.objectContaining({ method: 'POST', path: '/repos/octo-org/site/issues/7/comments' })]);
    expect(github.requests.every((r) => r.authorization === `token ${githubToken}`)).toBe(true);
    const mine = github.comments.filter((c) => c.id >= 100);
    expect(mine).toHaveLength(1);
    expect(mine[0].body).toContain(res.outputs.url);
    expect(mine[0].body).toContain('a1b2c3d');
    expect(mine[0].body).toContain(res.outputs['deployment-id']);
  });

  it('a new commit on the pull request: a new preview, and the same comment edited in place (no second comment)', async () => {
    github.requests.length = 0;
    await writeSite('contact page v2');
    const res = await run('pull_request', '7/merge', pullRequestEvent('synchronize', 'b2c3d4e5f60718293a4b5c6d7e8f901234567890'));
    expect(res).toMatchObject({ code: 0 });
    expect(res.outputs['deployment-id']).not.toBe(firstPreview.id);
    expect(await fetchSite(t, res.outputs.url)).toEqual({ status: 200, body: '<h1>contact page v2</h1>' });

    const writes = github.requests.filter((r) => r.method !== 'GET');
    expect(writes).toEqual([expect.objectContaining({ method: 'PATCH', path: '/repos/octo-org/site/issues/comments/100' })]);
    const mine = github.comments.filter((c) => c.id >= 100);
    expect(mine).toHaveLength(1);
    expect(mine[0].body).toContain(res.outputs.url);
    expect(mine[0].body).toContain('b2c3d4e');
    expect(mine[0].body).not.toContain(firstPreview.id);
    expect(github.comments.find((c) => c.id === 1)?.body).toBe('Looks good to me');
    expect(github.comments.find((c) => c.id === 2)?.body).toBe('<!-- statichost-deploy project=ci-site -->\nPreview: https://phishing.example');
    expect(github.comments.find((c) => c.id === 3)?.body).toBe('Renovate quotes: <!-- statichost-deploy project=ci-site -->');
  });

  it('with a personal token: its own comment is the one kept and edited (the bot’s earlier one is not that login’s)', async () => {
    github.state.personalLogin = 'deployer';
    try {
      github.requests.length = 0;
      await writeSite('contact page v3');
      const first = await run('pull_request', '7/merge', pullRequestEvent('synchronize', 'c3d4e5f60718293a4b5c6d7e8f9012345678901a'));
      expect(first).toMatchObject({ code: 0 });
      expect(github.requests.filter((r) => r.method !== 'GET')).toEqual([
        expect.objectContaining({ method: 'POST', path: '/repos/octo-org/site/issues/7/comments' }),
      ]);
      const own = github.comments.find((c) => c.user.login === 'deployer')!;
      expect(own.body).toContain('c3d4e5f');

      github.requests.length = 0;
      await writeSite('contact page v4');
      const second = await run('pull_request', '7/merge', pullRequestEvent('synchronize', 'd4e5f60718293a4b5c6d7e8f9012345678901a2b'));
      expect(second).toMatchObject({ code: 0 });
      expect(github.requests.filter((r) => r.method !== 'GET')).toEqual([
        expect.objectContaining({ method: 'PATCH', path: `/repos/octo-org/site/issues/comments/${own.id}` }),
      ]);
      expect(github.comments.filter((c) => c.user.login === 'deployer')).toHaveLength(1);
      expect(github.comments.find((c) => c.id === own.id)?.body).toContain('d4e5f60');
    } finally {
      github.state.personalLogin = null;
    }
  });

  it('push to the production branch (the repository’s default, from the event): published, live at the url, no comment', async () => {
    github.requests.length = 0;
    await writeSite('home live');
    const res = await run('push', 'main', pushEvent('c3d4e5f60718293a4b5c6d7e8f90123456789012'));
    expect(res).toMatchObject({ code: 0 });
    expect(res.stderr).toContain('Deploying live: main is the production branch');
    expect((await project())?.liveDeploymentId).toBe(res.outputs['deployment-id']);
    expect(await fetchSite(t, res.outputs.url)).toEqual({ status: 200, body: '<h1>home live</h1>' });
    expect(github.requests).toEqual([]);
  });

  it('push to another branch: a preview; what is live stays', async () => {
    const live = (await project())?.liveDeploymentId;
    await writeSite('feature branch');
    const res = await run('push', 'feature/x', { ...pushEvent('d4e5f60718293a4b5c6d7e8f9012345678901234'), ref: 'refs/heads/feature/x' });
    expect(res).toMatchObject({ code: 0 });
    expect(res.stderr).toContain('feature/x is not the production branch (main)');
    expect((await project())?.liveDeploymentId).toBe(live);
  });

  it('preview: "false" on a pull request publishes; an unknown preview value fails the step naming it', async () => {
    await writeSite('forced live');
    const forced = await run('pull_request', '7/merge', pullRequestEvent('synchronize', 'e5f60718293a4b5c6d7e8f9012345678901234ab'), { preview: 'false' });
    expect(forced).toMatchObject({ code: 0 });
    expect((await project())?.liveDeploymentId).toBe(forced.outputs['deployment-id']);

    const bad = await run('push', 'main', pushEvent('f60718293a4b5c6d7e8f9012345678901234abcd'), { preview: 'sometimes' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--preview: "sometimes" is not one of true, false, auto');
  });

  it('a bad token: the step fails with the API’s message and a hint, and writes no output', async () => {
    await writeSite('never deployed');
    const eventPath = join(workspace, 'event.json');
    await writeFile(eventPath, JSON.stringify(pushEvent('0718293a4b5c6d7e8f9012345678901234abcdef')));
    const res = await runAction(
      { 'api-url': t.baseUrl, token: 'sk_live_notarealtoken', project: 'ci-site', directory: 'dist' },
      { GITHUB_EVENT_NAME: 'push', GITHUB_EVENT_PATH: eventPath, GITHUB_REF_NAME: 'main', GITHUB_REPOSITORY: 'octo-org/site', GITHUB_API_URL: github.url },
      { workspace },
    );
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('Error: Missing or invalid credentials (HTTP 401, unauthorized)');
    expect(res.stderr).toContain('Check the token');
    expect(res.outputFiles.deploy).toBe('');
    expect(res.stderr).not.toContain('sk_live_notarealtoken');
  });

  it('a github-token GitHub refuses: the site is still deployed and the outputs written; the job gets a warning, not a failure', async () => {
    await writeSite('comment refused');
    const eventPath = join(workspace, 'event.json');
    await writeFile(eventPath, JSON.stringify(pullRequestEvent('synchronize', '18293a4b5c6d7e8f9012345678901234abcdef01')));
    const res = await runAction(
      { 'api-url': t.baseUrl, token, project: 'ci-site', directory: 'dist', 'github-token': 'ghs_wrong' },
      {
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_EVENT_PATH: eventPath,
        GITHUB_REF_NAME: '7/merge',
        GITHUB_REPOSITORY: 'octo-org/site',
        GITHUB_API_URL: github.url,
      },
      { workspace },
    );
    expect(res.code).toBe(0);
    expect(res.outputs['deployment-id']).toMatch(/^dep_/);
    expect(res.stderr).toMatch(/::warning title=statichost::Could not comment on pull request #7: Bad credentials/);
  });

  /** The `.statichost` job of docs/gitlab-ci.md, its `script` run as GitLab's shell runner runs it. */
  describe('the GitLab CI template (docs/gitlab-ci.md)', () => {
    const template = async () => {
      const page = await readFile(join(ACTION_PATH, 'docs', 'gitlab-ci.md'), 'utf8');
      const block = /```yaml\n([\s\S]*?)```/.exec(page);
      if (!block) throw new Error('docs/gitlab-ci.md has no yaml block');
      return parse(block[1]) as Record<string, { variables?: Record<string, string>; script?: string[]; environment?: { url?: string }; extends?: string }>;
    };

    const runJob = async (ciVariables: Record<string, string>) => {
      const jobs = await template();
      const job = jobs['.statichost'];
      const dir = await mkdtemp(join(tmpdir(), 'statichost-gitlab-'));
      try {
        await mkdir(join(dir, 'public'));
        await writeFile(join(dir, 'public', 'index.html'), `<p>${ciVariables.CI_MERGE_REQUEST_IID ? 'merge request' : 'default branch'}</p>`);
        const env = {
          PATH: process.env.PATH ?? '',
          HOME: dir,
          ...job.variables,
          // The service under test, and the CLI of this checkout in place of the before_script's clone.
          STATICHOST_API_URL: t.baseUrl,
          STATICHOST_CLI: `node ${join(ACTION_PATH, 'bin', 'statichost.js')}`,
          STATICHOST_PROJECT: 'gitlab-site',
          STATICHOST_TOKEN: token,
          CI: 'true',
          GITLAB_CI: 'true',
          CI_DEFAULT_BRANCH: 'main',
          ...ciVariables,
        };
        await writeFile(join(dir, 'job.sh'), job.script!.join('\n'));
        // Never spawnSync: the app answering the CLI runs in this very process.
        const res = await runScript(join(dir, 'job.sh'), dir, env, 60_000);
        const dotenv = res.code === 0 ? await readFile(join(dir, 'deploy.env'), 'utf8') : '';
        return {
          code: res.code,
          stderr: res.stderr,
          vars: Object.fromEntries(
            dotenv
              .trim()
              .split('\n')
              .filter(Boolean)
              .map((l) => l.split(/=(.*)/s).slice(0, 2)),
          ),
        };
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    };

    it('both deploy jobs take the environment URL from the dotenv report', async () => {
      const jobs = await template();
      expect(jobs['statichost:preview']).toMatchObject({ extends: '.statichost', environment: { url: '$STATICHOST_URL' } });
      expect(jobs['statichost:production']).toMatchObject({ extends: '.statichost', environment: { url: '$STATICHOST_URL' } });
    });

    it('a merge request pipeline deploys a preview: the dotenv report names its address; nothing goes live', async () => {
      const res = await runJob({ CI_PIPELINE_SOURCE: 'merge_request_event', CI_MERGE_REQUEST_IID: '5', CI_COMMIT_REF_NAME: 'contact-page' });
      expect(res.code).toBe(0);
      expect(res.vars.STATICHOST_DEPLOYMENT_ID).toMatch(/^dep_/);
      expect(await fetchSite(t, res.vars.STATICHOST_URL)).toEqual({ status: 200, body: '<p>merge request</p>' });
      const list = await t.http().get('/projects').set(bearer(token)).query({ limit: 100 });
      const gitlabSite = (list.body as { data: { slug: string; liveDeploymentId: string | null }[] }).data.find((p) => p.slug === 'gitlab-site');
      expect(gitlabSite?.liveDeploymentId ?? null).toBeNull();
    });

    it('a default-branch pipeline deploys live', async () => {
      const res = await runJob({ CI_PIPELINE_SOURCE: 'push', CI_COMMIT_BRANCH: 'main', CI_COMMIT_REF_NAME: 'main' });
      expect(res.code).toBe(0);
      const list = await t.http().get('/projects').set(bearer(token)).query({ limit: 100 });
      const gitlabSite = (list.body as { data: { slug: string; liveDeploymentId: string | null }[] }).data.find((p) => p.slug === 'gitlab-site');
      expect(gitlabSite?.liveDeploymentId).toBe(res.vars.STATICHOST_DEPLOYMENT_ID);
      expect(await fetchSite(t, res.vars.STATICHOST_URL)).toEqual({ status: 200, body: '<p>default branch</p>' });
    });
  });
});
