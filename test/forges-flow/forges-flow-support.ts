import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { type BuildRecord, buildsApi, createProject, startBuildApp } from '../builds/flow-support';
import { ForgeApiServer } from '../forges/forge-api-server';
import type { TestApp } from '../helpers/app';
import { eventually } from '../helpers/eventually';
import { type GitServer, startGitServer } from '../helpers/git-server';
import { bearer, createApiToken, registerUser } from '../helpers/identity';
import { fetchSite } from '../helpers/sites';
import { type Forge, forgeHeaders } from './forge-deliveries';

export * from './forge-deliveries';

/**
 * Plumbing of the issue 29 flow suites (test/forges-flow/*.e2e-spec.ts): the real app
 * with the `process` runner, one host playing a forge (a real Git repository over HTTP
 * from `git http-backend`, and under `/api/*` the recording stand-in of the forge's REST
 * API, so the API address that follows the repository's host reaches it), and the
 * forges' documented webhook payloads pointed at that repository, signed here the way
 * each forge signs them.
 */

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
  /** The git settings it was connected with (without the access token, which a PUT keeps). */
  settings: Record<string, unknown>;
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
  // PUT replaces the settings: a later change sends them all again.
  const settings = {
    repository: git.url(repo),
    productionBranch: 'main',
    buildCommand: 'node build.js',
    outputDirectory: 'dist',
    forge: options.forge,
    ...options.settings,
  };
  const connected = await api.connect({ ...settings, accessToken });
  if (connected.status !== 200) throw new Error(`PUT git: ${connected.status} ${JSON.stringify(connected.body)}`);
  const rotated = await t.http().post(`/projects/${project.id}/git/webhook-secret`).set(bearer(token));
  if (rotated.status !== 200) throw new Error(`POST webhook-secret: ${rotated.status} ${JSON.stringify(rotated.body)}`);
  return {
    ...project,
    settings,
    repo,
    repository: git.url(repo),
    secret: rotated.body.secret,
    webhookUrl: rotated.body.webhookUrl,
    accessToken,
    api,
    firstSha,
  };
}

// ---- sending, as each forge does ----

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

/** POST /hooks/git/:projectId as the forge would (no auth header of ours: the signature is the credential). */
export function deliver(t: TestApp, forge: Forge, project: { id: string; secret: string }, delivery: Delivery) {
  const body = delivery.body ?? Buffer.from(JSON.stringify(delivery.payload));
  const secret = delivery.unsigned ? null : (delivery.secret ?? project.secret);
  const headers = forgeHeaders(forge, delivery.event, body, secret, delivery.deliveryId ?? randomUUID());
  // As a string: superagent would JSON-encode a Buffer sent as application/json.
  return t.http().post(`/hooks/git/${project.id}`).set(headers).set('Content-Type', 'application/json').send(body.toString('utf8'));
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
