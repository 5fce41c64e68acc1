import type { z } from 'zod';

import { sameRepository } from '../repository-url';
import type { Forge, ForgeEvent, PullRequestAction } from './events';
import type * as Schemas from './payload-schemas';

/**
 * The payload fields each forge documents for the events we act on, and how they
 * become one ForgeEvent. Only these fields are read (zod drops the rest); a payload of
 * an event we act on that lacks one of them is malformed (a 400 naming the field).
 */

const ZERO_SHA = /^0+$/;
const BRANCH_REF = 'refs/heads/';

/** The payload did not have the shape the forge documents. */
export class MalformedPayload extends Error {}

let loaded: typeof Schemas | undefined;

/** The schemas (and zod, a few hundred modules) load with the first webhook, not with the app. */
function schemas(): typeof Schemas {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (loaded ??= require('./payload-schemas') as typeof Schemas);
}

function parse<T>(schema: z.ZodType<T>, payload: unknown, what: string): T {
  const result = schema.safeParse(payload);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue.path.length > 0 ? issue.path.join('.') : '(the body)';
  throw new MalformedPayload(`${what} payload: ${field}: ${issue.message}`);
}

function urls(...values: (string | null | undefined)[]): string[] {
  return [...new Set(values.filter((v): v is string => typeof v === 'string' && v.length > 0))];
}

/** A push of a ref: a branch push, or `ignored` for tags and other refs. */
function branchOf(ref: string): string | { ignored: string } {
  if (ref.startsWith('refs/tags/')) return { ignored: `tag push (${ref.slice('refs/tags/'.length)}): only branches are built` };
  if (!ref.startsWith(BRANCH_REF) || ref.length === BRANCH_REF.length) return { ignored: `push of ${ref}: only branches are built` };
  return ref.slice(BRANCH_REF.length);
}

// ---- GitHub (docs.github.com, "Webhook events and payloads") ----

function github(event: string, payload: unknown): ForgeEvent {
  switch (event) {
    case 'ping':
      return { kind: 'ping' };
    case 'push': {
      const p = parse(schemas().githubPush, payload, 'GitHub push');
      return push(
        p.ref,
        p.after,
        p.deleted === true,
        p.head_commit?.message ?? null,
        urls(p.repository.clone_url, p.repository.html_url, p.repository.ssh_url),
      );
    }
    case 'pull_request': {
      const p = parse(schemas().githubPullRequest, payload, 'GitHub pull_request');
      const action = pullRequestAction(p.action, { opened: 'opened', synchronize: 'synchronize', reopened: 'reopened', closed: 'closed' });
      if (typeof action !== 'string') return action;
      const base = p.pull_request.base.repo.clone_url ?? p.pull_request.base.repo.html_url;
      if (!base) throw new MalformedPayload('GitHub pull_request payload: pull_request.base.repo.clone_url: missing');
      const head = p.pull_request.head.repo?.clone_url ?? p.pull_request.head.repo?.html_url ?? null;
      return pullRequest(action, p.number, p.pull_request.head.ref, p.pull_request.head.sha, head, base, p.pull_request.merged === true);
    }
    default:
      return { kind: 'ignored', why: `GitHub event ${JSON.stringify(event)} is not acted on (push, pull_request and ping are)` };
  }
}

// ---- GitLab (docs.gitlab.com, "Webhook events") ----

function gitlab(event: string, payload: unknown): ForgeEvent {
  switch (event) {
    case 'Push Hook': {
      const p = parse(schemas().gitlabPush, payload, 'GitLab Push Hook');
      // GitLab lists the pushed commits oldest first; the head is the one `after` names.
      const head = p.commits.find((c) => c.id === p.after) ?? p.commits.at(-1);
      const deleted = ZERO_SHA.test(p.after);
      return push(p.ref, p.after, deleted, deleted ? null : (head?.message ?? null), urls(p.project.git_http_url, p.project.web_url, p.project.git_ssh_url));
    }
    case 'Merge Request Hook': {
      const p = parse(schemas().gitlabMergeRequest, payload, 'GitLab Merge Request Hook');
      const a = p.object_attributes;
      if (a.action === 'update' && !a.oldrev) return { kind: 'ignored', why: 'merge request updated without new commits' };
      const action = pullRequestAction(a.action ?? '', { open: 'opened', update: 'synchronize', reopen: 'reopened', close: 'closed', merge: 'closed' });
      if (typeof action !== 'string') return action;
      const base = a.target.git_http_url ?? a.target.web_url;
      if (!base) throw new MalformedPayload('GitLab Merge Request Hook payload: object_attributes.target.git_http_url: missing');
      const head = a.source?.git_http_url ?? a.source?.web_url ?? null;
      return pullRequest(action, a.iid, a.source_branch, a.last_commit.id, head, base, a.action === 'merge');
    }
    case 'Tag Push Hook':
      return { kind: 'ignored', why: 'tag push: only branches are built' };
    default:
      return { kind: 'ignored', why: `GitLab event ${JSON.stringify(event)} is not acted on (Push Hook and Merge Request Hook are)` };
  }
}

// ---- Gitea and Forgejo (docs.gitea.com "Webhooks"; Forgejo sends the same payloads) ----

function gitea(forge: 'gitea' | 'forgejo', event: string, payload: unknown): ForgeEvent {
  const name = forge === 'gitea' ? 'Gitea' : 'Forgejo';
  switch (event) {
    case 'push': {
      const p = parse(schemas().giteaPush, payload, `${name} push`);
      const head = p.head_commit?.message ?? p.commits?.find((c) => c.id === p.after)?.message ?? null;
      const r = p.repository;
      return push(p.ref, p.after, ZERO_SHA.test(p.after), head, urls(r.clone_url, r.html_url, r.ssh_url));
    }
    case 'delete': {
      // Deleting a branch is a "delete" event with the bare branch name.
      const p = parse(schemas().giteaDelete, payload, `${name} delete`);
      if (p.ref_type !== 'branch') return { kind: 'ignored', why: `deleted ${p.ref_type} ${p.ref}: only branches have previews` };
      const r = p.repository;
      return push(`${BRANCH_REF}${p.ref}`, '0'.repeat(40), true, null, urls(r.clone_url, r.html_url, r.ssh_url));
    }
    case 'pull_request': {
      const p = parse(schemas().giteaPullRequest, payload, `${name} pull_request`);
      const action = pullRequestAction(p.action, { opened: 'opened', synchronized: 'synchronize', reopened: 'reopened', closed: 'closed' });
      if (typeof action !== 'string') return action;
      const base = p.pull_request.base.repo.clone_url ?? p.pull_request.base.repo.html_url;
      if (!base) throw new MalformedPayload(`${name} pull_request payload: pull_request.base.repo.clone_url: missing`);
      const head = p.pull_request.head.repo?.clone_url ?? p.pull_request.head.repo?.html_url ?? null;
      return pullRequest(action, p.number, p.pull_request.head.ref, p.pull_request.head.sha, head, base, p.pull_request.merged === true);
    }
    default:
      return { kind: 'ignored', why: `${name} event ${JSON.stringify(event)} is not acted on (push, delete and pull_request are)` };
  }
}

// ---- one event type ----

function push(ref: string, after: string, deleted: boolean, commitMessage: string | null, repositoryUrls: string[]): ForgeEvent {
  const branch = branchOf(ref);
  if (typeof branch !== 'string') return { kind: 'ignored', why: branch.ignored };
  if (repositoryUrls.length === 0) throw new MalformedPayload('push payload: the repository has no clone or web URL');
  const gone = deleted || ZERO_SHA.test(after);
  return { kind: 'push', repositoryUrls, branch, after, deleted: gone, commitMessage: gone ? null : commitMessage };
}

function pullRequestAction(given: string, map: Record<string, PullRequestAction>): PullRequestAction | { kind: 'ignored'; why: string } {
  return Object.hasOwn(map, given) ? map[given] : { kind: 'ignored', why: `pull request action ${JSON.stringify(given)} is not acted on` };
}

function pullRequest(
  action: PullRequestAction,
  number: number,
  headRef: string,
  headSha: string,
  headRepositoryUrl: string | null,
  baseRepositoryUrl: string,
  merged: boolean,
): ForgeEvent {
  const isFork = !sameRepository(headRepositoryUrl, baseRepositoryUrl);
  return { kind: 'pull_request', action, number, headRef, headSha, headRepositoryUrl, baseRepositoryUrl, isFork, merged };
}

/** The one event a verified, parsed payload stands for. Throws MalformedPayload. */
export function normalise(forge: Forge, event: string, payload: unknown): ForgeEvent {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) throw new MalformedPayload('the payload is not a JSON object');
  switch (forge) {
    case 'github':
      return github(event, payload);
    case 'gitlab':
      return gitlab(event, payload);
    case 'gitea':
    case 'forgejo':
      return gitea(forge, event, payload);
  }
}
