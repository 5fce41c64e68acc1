import type * as GitbeakerRest from '@gitbeaker/rest';
import type * as OctokitRest from '@octokit/rest';

import type { Forge } from '../webhooks/events';
import { fetchThrough, forgeDispatcher } from './outbound';
import { causes, DEFAULT_RETRY, policyRefusal, type RetryPolicy, statusOf, withRetries } from './retry';

/**
 * What a build tells the forge (issue 29): a commit status on its commit, and one
 * comment on its pull request, edited in place on every new commit. The API's address
 * follows the repository's host, so GitHub Enterprise and self-hosted GitLab, Gitea and
 * Forgejo work as the public ones do.
 */
export interface ForgeClient {
  readonly forge: Forge;
  setCommitStatus(sha: string, status: CommitStatus): Promise<void>;
  /**
   * Keeps this service's one comment on the pull request: edits comment `known` (the id
   * it was created with, recorded on the build) and creates one when there is none yet or
   * when that one was deleted (the edit answers 404). Never looks for a comment by its text:
   * anyone can write a comment holding our marker, and an edit would then go to theirs.
   * `body` gets PREVIEW_COMMENT_MARKER prepended, so people and tools can tell the comment.
   */
  upsertPullRequestComment(pullRequest: number, body: string, known: number | null): Promise<{ commentId: number; created: boolean }>;
}

export interface CommitStatus {
  state: 'pending' | 'success' | 'failure';
  /** The preview or live URL (or the build's page). */
  targetUrl: string | null;
  description: string;
  /** Tells our status from others on the same commit, e.g. `statichost/<project slug>`. */
  context: string;
}

/** The first line of our pull request comment (an HTML comment, invisible when rendered). */
export const PREVIEW_COMMENT_MARKER = '<!-- statichost:preview -->';

/** GitHub's limit on a status description; the others take at least as much. */
const MAX_DESCRIPTION = 140;

/** A forge call that failed after its retries. Its message names the call and the status, never the token. */
export class ForgeCallError extends Error {
  constructor(
    readonly forge: Forge,
    readonly operation: string,
    readonly status: number | undefined,
    options: { cause: unknown },
  ) {
    super(`${forge} ${operation} failed: ${status === undefined ? errorText(options.cause) : `HTTP ${status}`}`, options);
  }
}

/** Why a call got no answer: the policy's refusal, else the innermost cause (fetch only says "fetch failed"). */
function errorText(err: unknown): string {
  const refusal = policyRefusal(err);
  if (refusal) return refusal.message;
  const chain = causes(err);
  const message = chain.at(-1)?.message;
  return typeof message === 'string' ? message : 'no answer';
}

export interface ForgeClientOptions {
  forge: Forge;
  /** The project's repository URL (`https://host/owner/repo.git`): the API's host and the repository's path come from it. */
  repository: string;
  /** The project's access token for the forge. */
  token: string;
  /** GIT_ALLOW_PRIVATE_ADDRESSES: let calls reach loopback and private addresses (tests, a forge on the LAN). */
  allowPrivateAddresses: boolean;
  /** DNS_SERVERS and DNS_TIMEOUT_MS: how the forge's name is looked up (src/shared/guarded-lookup.ts). */
  dnsServers?: string[];
  dnsTimeoutMs?: number;
  retry?: RetryPolicy;
}

/** The forge a well-known host runs; null for any other host (then the webhook deliveries or the settings say). */
export function forgeOfHost(repository: string): Forge | null {
  let host: string;
  try {
    host = new URL(repository).hostname.toLowerCase();
  } catch {
    return null;
  }
  return ({ 'github.com': 'github', 'gitlab.com': 'gitlab', 'codeberg.org': 'forgejo' } as Record<string, Forge>)[host] ?? null;
}

interface RepositoryLocation {
  /** `https://host[:port]` */
  origin: string;
  /** The path segments, without `.git`. */
  segments: string[];
}

function locate(repository: string): RepositoryLocation {
  let url: URL;
  try {
    url = new URL(repository);
  } catch {
    throw new RangeError(`repository ${JSON.stringify(repository)} is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new RangeError(`repository ${JSON.stringify(repository)} is not an http(s) URL`);
  const segments = url.pathname
    .replace(/\.git\/?$/i, '')
    .split('/')
    .filter((s) => s !== '');
  if (segments.length < 2) throw new RangeError(`repository ${JSON.stringify(repository)} does not name an owner and a repository`);
  return { origin: url.origin, segments };
}

/** The client for a project's forge. Throws RangeError for a repository URL it cannot address. */
export function forgeClient(options: ForgeClientOptions): ForgeClient {
  const where = locate(options.repository);
  const retry = options.retry ?? DEFAULT_RETRY;
  switch (options.forge) {
    case 'github':
      return new GitHubClient(where, options, retry);
    case 'gitlab':
      return new GitLabClient(where, options, retry);
    case 'gitea':
    case 'forgejo':
      return new GiteaClient(options.forge, where, options, retry);
  }
}

function withMarker(body: string): string {
  return body.startsWith(PREVIEW_COMMENT_MARKER) ? body : `${PREVIEW_COMMENT_MARKER}\n${body}`;
}

function description(text: string): string {
  return text.length <= MAX_DESCRIPTION ? text : `${text.slice(0, MAX_DESCRIPTION - 1)}…`;
}

abstract class BaseClient implements ForgeClient {
  abstract readonly forge: Forge;

  constructor(protected readonly retry: RetryPolicy) {}

  abstract setCommitStatus(sha: string, status: CommitStatus): Promise<void>;
  protected abstract createComment(pullRequest: number, text: string): Promise<number>;
  protected abstract editComment(pullRequest: number, commentId: number, text: string): Promise<void>;

  async upsertPullRequestComment(pullRequest: number, body: string, known: number | null): Promise<{ commentId: number; created: boolean }> {
    const text = withMarker(body);
    if (known !== null) {
      try {
        await this.editComment(pullRequest, known, text);
        return { commentId: known, created: false };
      } catch (err) {
        // Deleted by someone on the forge: a new one replaces it. Any other failure is reported.
        if (!(err instanceof ForgeCallError && err.status === 404)) throw err;
      }
    }
    return { commentId: await this.createComment(pullRequest, text), created: true };
  }

  /** One API call with retries; a failure after them is a ForgeCallError. */
  protected async call<T>(operation: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await withRetries(fn, this.retry);
    } catch (err) {
      throw new ForgeCallError(this.forge, operation, statusOf(err), { cause: err });
    }
  }
}

// ---- GitHub, through Octokit (REST API v3) ----

/** github.com's API has its own host; GitHub Enterprise Server serves it under /api/v3 of its own. */
export function githubApiBase(origin: string): string {
  return new URL(origin).hostname.toLowerCase() === 'github.com' ? 'https://api.github.com' : `${origin}/api/v3`;
}

class GitHubClient extends BaseClient {
  readonly forge = 'github' as const;
  private readonly owner: string;
  private readonly repo: string;
  private client?: OctokitRest.Octokit;

  constructor(
    private readonly where: RepositoryLocation,
    private readonly options: ForgeClientOptions,
    retry: RetryPolicy,
  ) {
    super(retry);
    if (where.segments.length !== 2) throw new RangeError(`GitHub repository ${JSON.stringify(options.repository)} must be https://<host>/<owner>/<repo>`);
    [this.owner, this.repo] = where.segments;
  }

  /** Octokit is loaded on the first call, not with the app: most starts never talk to a forge. */
  private get octokit(): OctokitRest.Octokit {
    if (this.client) return this.client;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Octokit } = require('@octokit/rest') as typeof OctokitRest;
    return (this.client = new Octokit({
      auth: this.options.token,
      baseUrl: githubApiBase(this.where.origin),
      userAgent: 'statichost',
      request: { fetch: fetchThrough(forgeDispatcher(this.options)) },
      // Octokit logs 4xx/5xx answers itself (with the URL); the caller records what failed.
      log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
    }));
  }

  async setCommitStatus(sha: string, status: CommitStatus): Promise<void> {
    await this.call('commit status', () =>
      this.octokit.rest.repos.createCommitStatus({
        owner: this.owner,
        repo: this.repo,
        sha,
        state: status.state,
        target_url: status.targetUrl ?? undefined,
        description: description(status.description),
        context: status.context,
      }),
    );
  }

  protected async createComment(pullRequest: number, text: string): Promise<number> {
    const made = await this.call('comment on pull request', () =>
      this.octokit.rest.issues.createComment({ owner: this.owner, repo: this.repo, issue_number: pullRequest, body: text }),
    );
    return made.data.id;
  }

  protected async editComment(_pullRequest: number, commentId: number, text: string): Promise<void> {
    await this.call('edit pull request comment', () =>
      this.octokit.rest.issues.updateComment({ owner: this.owner, repo: this.repo, comment_id: commentId, body: text }),
    );
  }
}

// ---- GitLab, through Gitbeaker (REST API v4) ----

class GitLabClient extends BaseClient {
  readonly forge = 'gitlab' as const;
  /** `group/subgroup/project`: Gitbeaker encodes it for the path. */
  private readonly project: string;
  private client?: InstanceType<typeof GitbeakerRest.Gitlab>;

  constructor(
    private readonly where: RepositoryLocation,
    private readonly options: ForgeClientOptions,
    retry: RetryPolicy,
  ) {
    super(retry);
    this.project = where.segments.join('/');
  }

  /** Gitbeaker is loaded on the first call, not with the app: most starts never talk to a forge. */
  private get api(): InstanceType<typeof GitbeakerRest.Gitlab> {
    if (this.client) return this.client;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Gitlab } = require('@gitbeaker/rest') as typeof GitbeakerRest;
    return (this.client = new Gitlab({ host: this.where.origin, token: this.options.token, agent: forgeDispatcher(this.options) as never }));
  }

  async setCommitStatus(sha: string, status: CommitStatus): Promise<void> {
    await this.call('commit status', () =>
      this.api.Commits.editStatus(this.project, sha, status.state === 'failure' ? 'failed' : status.state, {
        name: status.context,
        description: description(status.description),
        ...(status.targetUrl ? { targetUrl: status.targetUrl } : {}),
      }),
    );
  }

  protected async createComment(pullRequest: number, text: string): Promise<number> {
    const made = await this.call('comment on merge request', () => this.api.MergeRequestNotes.create(this.project, pullRequest, text));
    return made.id;
  }

  protected async editComment(pullRequest: number, commentId: number, text: string): Promise<void> {
    await this.call('edit merge request note', () => this.api.MergeRequestNotes.edit(this.project, pullRequest, commentId, { body: text }));
  }
}

// ---- Gitea and Forgejo (REST API v1), with fetch ----

/** An answer outside 2xx from a forge's API. */
class ForgeHttpError extends Error {
  constructor(
    readonly status: number,
    what: string,
  ) {
    super(`${what}: HTTP ${status}`);
  }
}

class GiteaClient extends BaseClient {
  private readonly fetch: typeof fetch;
  private readonly api: string;

  constructor(
    readonly forge: 'gitea' | 'forgejo',
    where: RepositoryLocation,
    private readonly options: ForgeClientOptions,
    retry: RetryPolicy,
  ) {
    super(retry);
    if (where.segments.length !== 2) throw new RangeError(`${forge} repository ${JSON.stringify(options.repository)} must be https://<host>/<owner>/<repo>`);
    const [owner, repo] = where.segments.map(encodeURIComponent);
    this.api = `${where.origin}/api/v1/repos/${owner}/${repo}`;
    this.fetch = fetchThrough(forgeDispatcher(options));
  }

  private async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.fetch(`${this.api}${path}`, {
      method,
      headers: { authorization: `token ${this.options.token}`, accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      redirect: 'error',
      signal: AbortSignal.timeout(30_000),
    });
    if (!res.ok) {
      await res.body?.cancel();
      throw new ForgeHttpError(res.status, `${method} ${path}`);
    }
    return (await res.json()) as T;
  }

  async setCommitStatus(sha: string, status: CommitStatus): Promise<void> {
    await this.call('commit status', () =>
      this.request('POST', `/statuses/${encodeURIComponent(sha)}`, {
        state: status.state,
        target_url: status.targetUrl ?? '',
        description: description(status.description),
        context: status.context,
      }),
    );
  }

  // A pull request is an issue to Gitea: its conversation is the issue's comments.
  protected async createComment(pullRequest: number, text: string): Promise<number> {
    const made = await this.call('comment on pull request', () => this.request<{ id: number }>('POST', `/issues/${pullRequest}/comments`, { body: text }));
    return made.id;
  }

  protected async editComment(_pullRequest: number, commentId: number, text: string): Promise<void> {
    await this.call('edit pull request comment', () => this.request('PATCH', `/issues/comments/${commentId}`, { body: text }));
  }
}
