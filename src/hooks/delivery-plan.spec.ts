import type { PullRequestEvent, PushEvent } from '../forges/webhooks/events';
import { planDelivery, pullRequestRef } from './delivery-plan';

const REPO = 'https://git.example.com/acme/site.git';
const target = { repository: REPO, buildForkPullRequests: false };

const push = (over: Partial<PushEvent> = {}): PushEvent => ({
  kind: 'push',
  repositoryUrls: ['https://git.example.com/acme/site', 'git@git.example.com:acme/site.git'],
  branch: 'feature/x',
  after: 'a'.repeat(40),
  deleted: false,
  commitMessage: 'change',
  ...over,
});
const pr = (over: Partial<PullRequestEvent> = {}): PullRequestEvent => ({
  kind: 'pull_request',
  action: 'opened',
  number: 7,
  headRef: 'feature/x',
  headSha: 'b'.repeat(40),
  headRepositoryUrl: REPO,
  baseRepositoryUrl: 'https://git.example.com/acme/site',
  isFork: false,
  merged: false,
  ...over,
});

describe('planDelivery', () => {
  it('builds a pushed branch by its name, as the forge that sent it', () => {
    expect(planDelivery('gitea', push(), target)).toEqual({
      kind: 'build',
      event: 'push',
      start: { ref: 'feature/x', trigger: 'push', createdBy: 'hook:gitea' },
    });
  });

  it('removes the alias of a deleted branch', () => {
    expect(planDelivery('github', push({ deleted: true }), target)).toEqual({
      kind: 'remove',
      event: 'push',
      alias: { kind: 'branch', branch: 'feature/x' },
    });
  });

  it('refuses a push or pull request of another repository', () => {
    expect(planDelivery('github', push({ repositoryUrls: ['https://git.example.com/acme/other.git'] }), target)).toMatchObject({
      kind: 'mismatch',
      message: expect.stringContaining('acme/other'),
    });
    expect(planDelivery('github', pr({ baseRepositoryUrl: 'https://git.example.com/evil/site.git' }), target)).toMatchObject({ kind: 'mismatch' });
  });

  it('builds an opened, updated or reopened pull request from its head ref on the base repository', () => {
    for (const action of ['opened', 'synchronize', 'reopened'] as const) {
      expect(planDelivery('github', pr({ action }), target)).toEqual({
        kind: 'build',
        event: 'pull_request',
        start: { ref: 'refs/pull/7/head', trigger: 'pull_request', pullRequest: 7, branch: 'feature/x', fork: false, createdBy: 'hook:github' },
      });
    }
    expect(planDelivery('gitlab', pr(), target)).toMatchObject({ start: { ref: 'refs/merge-requests/7/head', createdBy: 'hook:gitlab' } });
    expect(pullRequestRef('forgejo', 3)).toBe('refs/pull/3/head');
  });

  it('removes the alias of a closed or merged pull request', () => {
    for (const merged of [false, true]) {
      expect(planDelivery('gitea', pr({ action: 'closed', merged }), target)).toEqual({
        kind: 'remove',
        event: 'pull_request',
        alias: { kind: 'pull_request', number: 7 },
      });
    }
  });

  it('ignores a fork’s pull request unless the project builds them, and then marks the build a fork’s', () => {
    const fork = pr({ isFork: true, headRepositoryUrl: 'https://git.example.com/mallory/site.git' });
    expect(planDelivery('github', fork, target)).toEqual({ kind: 'ignored', why: expect.stringContaining('buildForkPullRequests') });
    expect(planDelivery('github', fork, { ...target, buildForkPullRequests: true })).toMatchObject({ kind: 'build', start: { fork: true } });
    // Closing a fork's pull request still removes its alias.
    expect(planDelivery('github', { ...fork, action: 'closed' }, target)).toMatchObject({ kind: 'remove' });
  });

  it('passes pings and ignored events through', () => {
    expect(planDelivery('github', { kind: 'ping' }, target)).toEqual({ kind: 'ping' });
    expect(planDelivery('gitlab', { kind: 'ignored', why: 'tag push' }, target)).toEqual({ kind: 'ignored', why: 'tag push' });
  });
});
