import { z } from 'zod';

/**
 * The payload fields each forge documents for the events we act on (payloads.ts reads them
 * into one ForgeEvent). A file of its own so zod loads with the first webhook, not the app.
 */

export const url = z.string().min(1);
export const optionalUrl = url.nullish();
export const sha = z.string().regex(/^[0-9a-f]{7,64}$/i, 'expected a commit id');
// A build records its pull request as a PostgreSQL integer: a larger number is no forge's.
export const pullRequestNumber = z
  .number()
  .int()
  .positive()
  .max(2 ** 31 - 1);

// ---- GitHub (docs.github.com, "Webhook events and payloads") ----

export const githubRepository = z.object({ clone_url: optionalUrl, html_url: optionalUrl, ssh_url: optionalUrl });
export const githubPush = z.object({
  ref: z.string(),
  after: sha,
  deleted: z.boolean().optional(),
  head_commit: z.object({ message: z.string() }).nullish(),
  repository: githubRepository,
});
export const githubPullRequest = z.object({
  action: z.string(),
  number: pullRequestNumber,
  pull_request: z.object({
    merged: z.boolean().nullish(),
    head: z.object({ ref: z.string(), sha, repo: githubRepository.nullable() }),
    base: z.object({ repo: githubRepository }),
  }),
});

// ---- GitLab (docs.gitlab.com, "Webhook events") ----

export const gitlabProject = z.object({ git_http_url: optionalUrl, web_url: optionalUrl, git_ssh_url: optionalUrl });
export const gitlabPush = z.object({
  object_kind: z.literal('push'),
  ref: z.string(),
  after: sha,
  checkout_sha: z.string().nullish(),
  commits: z.array(z.object({ id: z.string(), message: z.string() })).default([]),
  project: gitlabProject,
});
export const gitlabMergeRequest = z.object({
  object_kind: z.literal('merge_request'),
  object_attributes: z.object({
    iid: pullRequestNumber,
    action: z.string().nullish(),
    source_branch: z.string(),
    // Present on "update" only when the update pushed new commits (the previous head).
    oldrev: z.string().nullish(),
    last_commit: z.object({ id: sha }),
    source: gitlabProject.nullish(),
    target: gitlabProject,
  }),
});

// ---- Gitea and Forgejo (docs.gitea.com "Webhooks"; Forgejo sends the same payloads) ----

export const giteaRepository = z.object({ clone_url: optionalUrl, html_url: optionalUrl, ssh_url: optionalUrl });
export const giteaPush = z.object({
  ref: z.string(),
  after: sha,
  head_commit: z.object({ message: z.string() }).nullish(),
  commits: z.array(z.object({ id: z.string(), message: z.string() })).nullish(),
  repository: giteaRepository,
});
export const giteaDelete = z.object({ ref: z.string(), ref_type: z.string(), repository: giteaRepository });
export const giteaPullRequest = z.object({
  action: z.string(),
  number: pullRequestNumber,
  pull_request: z.object({
    merged: z.boolean().nullish(),
    head: z.object({ ref: z.string(), sha, repo: giteaRepository.nullish() }),
    base: z.object({ repo: giteaRepository }),
  }),
});
