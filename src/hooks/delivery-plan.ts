import type { StartBuild } from '../builds/builds.service';
import { namesRepository, sameRepository } from '../forges/repository-url';
import type { Forge, ForgeEvent } from '../forges/webhooks/events';
import type { AliasSource } from '../shared/preview-alias';

/** What a verified delivery asks of us, decided before anything is written. */
export type DeliveryPlan =
  | { kind: 'ping' }
  | { kind: 'ignored'; why: string }
  | { kind: 'mismatch'; message: string }
  | { kind: 'build'; event: 'push' | 'pull_request'; start: StartBuild }
  | { kind: 'remove'; event: 'push' | 'pull_request'; alias: AliasSource };

export interface PlanTarget {
  repository: string;
  buildForkPullRequests: boolean;
}

/**
 * The ref a pull request's head is fetched by from the base repository: forks' commits
 * are there too, so the build never clones a repository the project did not name.
 */
export function pullRequestRef(forge: Forge, number: number): string {
  return forge === 'gitlab' ? `refs/merge-requests/${number}/head` : `refs/pull/${number}/head`;
}

/**
 * A verified event turned into one action. Pushes are never skipped by the paths they
 * touch: a payload lists at most 20 commits (GitHub) and 3000 changed files, so a skip
 * could miss a change under rootDirectory that a build needed (docs/decisions.md).
 */
export function planDelivery(forge: Forge, event: ForgeEvent, target: PlanTarget): DeliveryPlan {
  const createdBy = `hook:${forge}`;
  switch (event.kind) {
    case 'ping':
      return { kind: 'ping' };
    case 'ignored':
      return { kind: 'ignored', why: event.why };
    case 'push': {
      if (!namesRepository(event.repositoryUrls, target.repository)) {
        return { kind: 'mismatch', message: mismatch(event.repositoryUrls[0], target.repository) };
      }
      if (event.deleted) return { kind: 'remove', event: 'push', alias: { kind: 'branch', branch: event.branch } };
      // The branch, not the pushed commit: the build takes the branch's newest commit, which is what its alias should show.
      return { kind: 'build', event: 'push', start: { ref: event.branch, trigger: 'push', createdBy } };
    }
    case 'pull_request': {
      if (!sameRepository(event.baseRepositoryUrl, target.repository)) {
        return { kind: 'mismatch', message: mismatch(event.baseRepositoryUrl, target.repository) };
      }
      if (event.action === 'closed') return { kind: 'remove', event: 'pull_request', alias: { kind: 'pull_request', number: event.number } };
      if (event.isFork && !target.buildForkPullRequests) {
        return {
          kind: 'ignored',
          why: `pull request #${event.number} comes from a fork (${event.headRepositoryUrl ?? 'a deleted repository'}); set buildForkPullRequests to build such pull requests`,
        };
      }
      return {
        kind: 'build',
        event: 'pull_request',
        start: {
          ref: pullRequestRef(forge, event.number),
          trigger: 'pull_request',
          pullRequest: event.number,
          branch: event.headRef,
          fork: event.isFork,
          createdBy,
        },
      };
    }
  }
}

function mismatch(sent: string, project: string): string {
  return `the delivery is for the repository ${sent}, but this project builds ${project}`;
}
