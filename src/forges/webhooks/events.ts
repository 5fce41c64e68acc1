/** The forges whose webhooks we take (issue 29). Forgejo is a Gitea fork with its own headers. */
export const FORGES = ['github', 'gitlab', 'gitea', 'forgejo'] as const;
export type Forge = (typeof FORGES)[number];

/** A push to a branch (tag pushes are `ignored`). */
export interface PushEvent {
  kind: 'push';
  /** The repository's clone, web and ssh URLs from the payload, to match the project's repository (sameRepository). */
  repositoryUrls: string[];
  /** The branch name, without `refs/heads/`. */
  branch: string;
  /** The commit the branch now points at; all zeros when the branch was deleted. */
  after: string;
  /** The branch was deleted: its preview alias goes, nothing is built. */
  deleted: boolean;
  /** The head commit's message; null when the payload has none (a deletion). */
  commitMessage: string | null;
}

export const PULL_REQUEST_ACTIONS = ['opened', 'synchronize', 'reopened', 'closed'] as const;
export type PullRequestAction = (typeof PULL_REQUEST_ACTIONS)[number];

/** A pull request (GitLab: merge request) opened, given new commits, reopened or closed. */
export interface PullRequestEvent {
  kind: 'pull_request';
  action: PullRequestAction;
  /** The number people see (GitLab's `iid`). */
  number: number;
  /** The head branch, in the head repository (a fork's branch for a fork's pull request). */
  headRef: string;
  headSha: string;
  /** The head repository's clone URL; null when the forge no longer knows it (a deleted fork). */
  headRepositoryUrl: string | null;
  /** The repository the pull request targets: the one to match against the project's. */
  baseRepositoryUrl: string;
  /** The head is not the base repository (or is unknown): build without the project's secrets, if at all. */
  isFork: boolean;
  /** Closed by merging. */
  merged: boolean;
}

export type ForgeEvent = PushEvent | PullRequestEvent | { kind: 'ping' } | { kind: 'ignored'; why: string };

/** Why a delivery is refused, with the status the route answers. */
export type WebhookProblem =
  | { problem: 'unknown_forge'; status: 400 }
  | { problem: 'missing_signature'; status: 401 }
  | { problem: 'bad_signature'; status: 401 }
  | { problem: 'too_large'; status: 413 }
  | { problem: 'malformed_payload'; status: 400 };

export type WebhookOutcome =
  | {
      ok: true;
      forge: Forge;
      /** The forge's id of this delivery (a redelivery repeats it); null when the forge sent none. */
      deliveryId: string | null;
      /** The forge's event name as sent (`push`, `Merge Request Hook`…), for logs. */
      eventName: string;
      event: ForgeEvent;
    }
  | (WebhookProblem & { ok: false; message: string });
