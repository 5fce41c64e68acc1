import { execFile } from 'node:child_process';
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import {
  GITEA_PULL_REQUEST_SYNCHRONIZED,
  GITEA_PUSH,
  GITHUB_BRANCH_DELETED,
  GITHUB_PULL_REQUEST_FROM_FORK,
  GITHUB_PULL_REQUEST_OPENED,
  GITHUB_PUSH,
  GITLAB_MERGE_REQUEST_OPENED,
  GITLAB_PUSH,
} from '../../src/forges/webhooks/examples.fixture';
import { type BuildRecord, buildsApi, createProject, startBuildApp } from '../builds/flow-support';
import { ForgeApiServer } from '../forges/forge-api-server';
import type { TestApp } from '../helpers/app';
import { eventually } from '../helpers/eventually';
import { type GitServer, startGitServer } from '../helpers/git-server';
import { bearer, createApiToken, registerUser } from '../helpers/identity';
import { fetchSite } from '../helpers/sites';

/**
 * Plumbing of the issue 29 flow suites (test/forges-flow/*.e2e-spec.ts): the real app
 * with the `process` runner, one host playing a forge (a real Git repository over HTTP
 * from `git http-backend`, and under `/api/*` the recording stand-in of the forge's REST
 * API, so the API address that follows the repository's host reaches it), and the
 * forges' documented webhook payloads pointed at that repository, signed here the way
 * each forge signs them.
 */

export type Forge = 'github' | 'gitlab' | 'gitea' | 'forgejo';

/** The build view with the fields issue 29 adds. */
export type HookBuild = BuildRecord & { fork: boolean; forgeStatus: 'pending' | 'posted' | 'failed' | null; forgeError: string | null };

export interface Preview {
  alias: string;
  kind: 'branch' | 'pull_request';
  branch: string | null;
  pullRequest: number | null;
  url: string;
  deploymentId: string;
  buildId: string;
  commitSha: string;
  createdAt: string;
  updatedAt: string;
}

export interface ForgeHost {
  t: TestApp;
  git: GitServer;
  forgeApi: ForgeApiServer;
  token: string;
  close(): Promise<void>;
}

/** The app, a user with an admin token, and a Git host whose `/api/*` is the recording forge API. */
export async function startForgeHost(env: Record<string, string> = {}): Promise<ForgeHost> {
  const forgeApi = new ForgeApiServer();
  const [t, git] = await Promise.all([startBuildApp(env), startGitServer({ api: forgeApi.handler })]);
  const user = await registerUser(t);
  const token = (await createApiToken(t, user, { scopes: ['deploy', 'read', 'admin'] })).token;
  return {
    t,
    git,
    forgeApi,
    token,
    async close() {
      await t?.close();
      await git?.close();
    },
  };
}

/**
 * A site with no install step: no package.json, the build command is `node build.js`
 * (set in the git settings). It renders content.txt, and writes to env.txt whether the
 * build saw `SECRET_TOKEN` (its SHA-256, never the value), to prove a fork build never has it.
 */
export const BUILD_JS = `const fs = require('node:fs');
const crypto = require('node:crypto');
const content = fs.readFileSync('content.txt', 'utf8').trim();
const secret = process.env.SECRET_TOKEN;
const seen = secret === undefined ? 'absent' : 'sha256:' + crypto.createHash('sha256').update(secret).digest('hex');
fs.mkdirSync('dist', { recursive: true });
fs.writeFileSync('dist/index.html', '<h1>' + content + '</h1>\\n');
fs.writeFileSync('dist/env.txt', 'SECRET_TOKEN ' + seen + '\\n');
console.log('rendered ' + content + '; SECRET_TOKEN ' + seen + '; value: ' + secret);
`;

/** What env.txt says for a build that saw `value` (null: saw none). */
export const secretSeen = (value: string | null) =>
  value === null ? 'SECRET_TOKEN absent' : `SECRET_TOKEN sha256:${createHash('sha256').update(value).digest('hex')}`;

export const siteFiles = (content: string): Record<string, string> => ({ 'build.js': BUILD_JS, 'content.txt': `${content}\n` });

/** One project connected to a repository on the forge host, with a webhook secret. */
export interface HookedProject {
  id: string;
  slug: string;
  /** The live site's URL. */
  url: string;
  /** `owner/name` on the Git host. */
  repo: string;
  /** Its clone URL. */
  repository: string;
  secret: string;
  webhookUrl: string;
  /** The access token the forge API must be called with. */
  accessToken: string;
  api: ReturnType<typeof buildsApi>;
  /** The first commit on main. */
  firstSha: string;
}

export async function hookedProject(
  host: ForgeHost,
  slug: string,
  options: { forge: Forge | null; content?: string; settings?: Record<string, unknown> },
): Promise<HookedProject> {
  const { t, git, token } = host;
  const project = await createProject(t, token, slug);
  const repo = `acme/${slug}`;
  const firstSha = git.createRepo(repo, siteFiles(options.content ?? `${slug} v1`));
  const accessToken = `forge-token-${slug}`;
  const api = buildsApi(t, token, project.id);
  const connected = await api.connect({
    repository: git.url(repo),
    productionBranch: 'main',
    buildCommand: 'node build.js',
    outputDirectory: 'dist',
    accessToken,
    forge: options.forge,
    ...options.settings,
  });
  if (connected.status !== 200) throw new Error(`PUT git: ${connected.status} ${JSON.stringify(connected.body)}`);
  const rotated = await t.http().post(`/projects/${project.id}/git/webhook-secret`).set(bearer(token));
  if (rotated.status !== 200) throw new Error(`POST webhook-secret: ${rotated.status} ${JSON.stringify(rotated.body)}`);
  return { ...project, repo, repository: git.url(repo), secret: rotated.body.secret, webhookUrl: rotated.body.webhookUrl, accessToken, api, firstSha };
}

// ---- signing and sending, as each forge does ----

export interface Delivery {
  /** The forge's event name (header value): `push`, `pull_request`, `Push Hook`… */
  event: string;
  payload: unknown;
  /** Default: a fresh UUID, as the forges send. */
  deliveryId?: string;
  /** Sign with this instead of the project's secret (a forged delivery). */
  secret?: string;
  /** Send no signature header at all. */
  unsigned?: boolean;
  /** The exact body bytes (default: JSON of `payload`). */
  body?: Buffer;
}

/** The headers a forge sends with a delivery of `body`, signed with `secret`. */
export function forgeHeaders(forge: Forge, event: string, body: Buffer, secret: string | null, deliveryId: string): Record<string, string> {
  const hmac = secret === null ? null : createHmac('sha256', secret).update(body).digest('hex');
  switch (forge) {
    case 'github':
      return {
        'X-GitHub-Event': event,
        'X-GitHub-Delivery': deliveryId,
        'X-GitHub-Hook-ID': '30',
        'User-Agent': 'GitHub-Hookshot/044aadd',
        ...(hmac === null ? {} : { 'X-Hub-Signature-256': `sha256=${hmac}` }),
      };
    case 'gitlab':
      // GitLab sends the secret itself, not a signature.
      return {
        'X-Gitlab-Event': event,
        'X-Gitlab-Event-UUID': deliveryId,
        'X-Gitlab-Webhook-UUID': '9b9b4b2c-0b6b-4b6b-8b6b-0b6b4b6b8b6b',
        'User-Agent': 'GitLab/17.5.0',
        ...(secret === null ? {} : { 'X-Gitlab-Token': secret }),
      };
    case 'gitea':
      // Gitea also sends GitHub's and Gogs' headers: the receiver must go by X-Gitea-*.
      return {
        'X-Gitea-Event': event,
        'X-Gitea-Event-Type': event,
        'X-Gitea-Delivery': deliveryId,
        'X-GitHub-Event': event,
        'X-GitHub-Delivery': deliveryId,
        'X-Gogs-Event': event,
        ...(hmac === null ? {} : { 'X-Gitea-Signature': hmac, 'X-Gogs-Signature': hmac }),
      };
    case 'forgejo':
      return {
        'X-Forgejo-Event': event,
        'X-Forgejo-Delivery': deliveryId,
        'X-Gitea-Event': event,
        'X-Gitea-Delivery': deliveryId,
        'X-GitHub-Event': event,
        ...(hmac === null ? {} : { 'X-Forgejo-Signature': hmac, 'X-Gitea-Signature': hmac }),
      };
  }
}

/** POST /hooks/git/:projectId as the forge would (no auth header of ours: the signature is the credential). */
export function deliver(t: TestApp, forge: Forge, project: { id: string; secret: string }, delivery: Delivery) {
  const body = delivery.body ?? Buffer.from(JSON.stringify(delivery.payload));
  const secret = delivery.unsigned ? null : (delivery.secret ?? project.secret);
  const headers = forgeHeaders(forge, delivery.event, body, secret, delivery.deliveryId ?? randomUUID());
  return t.http().post(`/hooks/git/${project.id}`).set(headers).set('Content-Type', 'application/json').send(body);
}

// ---- the forges' documented payloads, pointed at the test repository ----

/** The URLs a forge writes for a repository: clone, web (no `.git`), ssh. */
function repositoryUrls(cloneUrl: string) {
  const u = new URL(cloneUrl);
  const path = u.pathname.replace(/^\//, '').replace(/\.git$/, '');
  return { clone: cloneUrl, web: `${u.origin}/${path}`, ssh: `git@${u.hostname}:${path}.git` };
}

export function githubPush(repository: string, branch: string, sha: string, message: string) {
  const r = repositoryUrls(repository);
  const commit = { ...GITHUB_PUSH.head_commit, id: sha, message };
  return {
    ...GITHUB_PUSH,
    ref: `refs/heads/${branch}`,
    after: sha,
    commits: [commit],
    head_commit: commit,
    repository: { ...GITHUB_PUSH.repository, clone_url: r.clone, html_url: r.web, url: r.web, ssh_url: r.ssh, default_branch: 'main', master_branch: 'main' },
  };
}

export function githubBranchDeleted(repository: string, branch: string) {
  return { ...GITHUB_BRANCH_DELETED, ref: `refs/heads/${branch}`, repository: githubPush(repository, branch, '0'.repeat(40), '').repository };
}

export function githubPullRequest(
  repository: string,
  options: { action: string; number: number; headRef: string; headSha: string; fork?: string; merged?: boolean },
) {
  const base = githubPush(repository, 'main', '0'.repeat(40), '').repository;
  const source = options.fork === undefined ? GITHUB_PULL_REQUEST_OPENED : GITHUB_PULL_REQUEST_FROM_FORK;
  const forkUrls = options.fork === undefined ? null : repositoryUrls(options.fork);
  const headRepo = forkUrls === null ? base : { ...source.pull_request.head.repo, clone_url: forkUrls.clone, html_url: forkUrls.web, ssh_url: forkUrls.ssh };
  return {
    ...source,
    action: options.action,
    number: options.number,
    pull_request: {
      ...source.pull_request,
      number: options.number,
      state: options.action === 'closed' ? 'closed' : 'open',
      merged: options.merged ?? false,
      head: { ...source.pull_request.head, ref: options.headRef, sha: options.headSha, repo: headRepo },
      base: { ...source.pull_request.base, ref: 'main', repo: base },
    },
    repository: base,
  };
}

function gitlabProjectOf(repository: string) {
  const r = repositoryUrls(repository);
  return {
    ...GITLAB_PUSH.project,
    web_url: r.web,
    git_http_url: r.clone,
    git_ssh_url: r.ssh,
    http_url: r.clone,
    ssh_url: r.ssh,
    url: r.ssh,
    homepage: r.web,
    default_branch: 'main',
  };
}

export function gitlabPush(repository: string, branch: string, sha: string, message: string) {
  const project = gitlabProjectOf(repository);
  const commit = { ...GITLAB_PUSH.commits[1], id: sha, message, title: message };
  return {
    ...GITLAB_PUSH,
    ref: `refs/heads/${branch}`,
    after: sha,
    checkout_sha: sha,
    commits: [commit],
    total_commits_count: 1,
    project,
    repository: { ...GITLAB_PUSH.repository, git_http_url: project.git_http_url, git_ssh_url: project.git_ssh_url, homepage: project.web_url },
  };
}

export function gitlabMergeRequest(
  repository: string,
  options: { action: 'open' | 'update' | 'close' | 'merge'; iid: number; sourceBranch: string; sha: string; oldrev?: string },
) {
  const project = gitlabProjectOf(repository);
  const a = GITLAB_MERGE_REQUEST_OPENED.object_attributes;
  return {
    ...GITLAB_MERGE_REQUEST_OPENED,
    project,
    object_attributes: {
      ...a,
      iid: options.iid,
      source_branch: options.sourceBranch,
      target_branch: 'main',
      state: { open: 'opened', update: 'opened', close: 'closed', merge: 'merged' }[options.action],
      action: options.action,
      ...(options.oldrev ? { oldrev: options.oldrev } : {}),
      source: project,
      target: project,
      last_commit: { ...a.last_commit, id: options.sha },
    },
    repository: { ...GITLAB_MERGE_REQUEST_OPENED.repository, url: project.git_http_url, homepage: project.web_url },
  };
}

function giteaRepositoryOf(repository: string) {
  const r = repositoryUrls(repository);
  return { ...GITEA_PUSH.repository, clone_url: r.clone, html_url: r.web, ssh_url: r.ssh, default_branch: 'main' };
}

export function giteaPush(repository: string, branch: string, sha: string, message: string) {
  const commit = { ...GITEA_PUSH.head_commit, id: sha, message };
  return { ...GITEA_PUSH, ref: `refs/heads/${branch}`, after: sha, commits: [commit], head_commit: commit, repository: giteaRepositoryOf(repository) };
}

export function giteaPullRequest(repository: string, options: { action: string; number: number; headRef: string; headSha: string; merged?: boolean }) {
  const repo = giteaRepositoryOf(repository);
  const pr = GITEA_PULL_REQUEST_SYNCHRONIZED.pull_request;
  return {
    ...GITEA_PULL_REQUEST_SYNCHRONIZED,
    action: options.action,
    number: options.number,
    pull_request: {
      ...pr,
      number: options.number,
      state: options.action === 'closed' ? 'closed' : 'open',
      merged: options.merged ?? false,
      head: { ...pr.head, label: options.headRef, ref: options.headRef, sha: options.headSha, repo },
      base: { ...pr.base, label: 'main', ref: 'main', repo },
    },
    repository: repo,
  };
}

// ---- the Git host's side ----

const run = promisify(execFile);

/**
 * Points `ref` (e.g. `refs/pull/2/head`) of the repository at `branch`'s head, pushed
 * over HTTP as the forge keeps a pull request's head on the base repository. Async: the
 * Git server runs in this process.
 */
export async function pushRef(git: GitServer, repo: string, branch: string, ref: string): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'forge-ref-'));
  const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: tmpdir(), GIT_TERMINAL_PROMPT: '0' };
  try {
    await run('git', ['init', '-q', '--bare', dir], { env });
    await run('git', ['fetch', '-q', git.url(repo), `refs/heads/${branch}`], { cwd: dir, env });
    await run('git', ['push', '-q', '--force', git.url(repo), `FETCH_HEAD:${ref}`], { cwd: dir, env });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// ---- what a user sees ----

/** Re-reads a build until it has ended (ready, failed…). */
export async function buildEnded(project: HookedProject, buildId: string): Promise<HookBuild> {
  return (await project.api.until(buildId)) as HookBuild;
}

/** The previews of a project, as GET /projects/:id/previews lists them (first page). */
export async function previews(host: ForgeHost, projectId: string): Promise<Preview[]> {
  const res = await host.t.http().get(`/projects/${projectId}/previews`).set(bearer(host.token));
  if (res.status !== 200) throw new Error(`GET previews: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as Preview[];
}

/** GET / of a site URL until it serves `text` (another instance may take a moment to hear an alias moved). */
export function serves(t: TestApp, url: string, text: string, path = '/'): Promise<{ status: number; body: string }> {
  return eventually(async () => {
    const res = await fetchSite(t, url, path);
    if (res.status !== 200 || !res.body.includes(text)) throw new Error(`${url}${path}: ${res.status} ${res.body.slice(0, 200)}, waiting for ${text}`);
    return res;
  });
}

/** The TLS proxy's question about a host name. */
export const tlsAsk = (t: TestApp, domain: string) => t.http().get('/internal/tls/allowed').query({ domain });

/** The host name of a URL, without its port. */
export const hostnameOf = (url: string) => new URL(url).hostname;
