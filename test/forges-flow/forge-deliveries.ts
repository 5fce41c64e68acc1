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

/**
 * Webhook deliveries as the forges send them: their documented example payloads
 * (src/forges/webhooks/examples.fixture.ts) pointed at a repository of the test Git host,
 * and the headers each forge sends, signed here with a given secret the way that forge
 * signs. No app in here: bench/builds.ts sends these too.
 */

export { type Forge, forgeHeaders } from '../helpers/forge-webhooks';

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
