import type { CommitStatus } from '../../forges/clients/forge-client';
import type { Build } from '../build.entity';

/**
 * What the forge is told about a build (docs/forges.md, "The forge hears back"): the
 * commit status and the pull request comment, computed from the build record alone so
 * every instance says the same for the same record.
 */

/** The build record's fields the messages read. */
export type FeedbackBuild = Pick<Build, 'id' | 'projectId' | 'workspaceId' | 'status' | 'commitSha' | 'pullRequest' | 'url' | 'trigger'>;

export interface FeedbackContext {
  /** The product's name (PRODUCT_NAME), the first part of the status context. */
  product: string;
  projectSlug: string;
  /** The project's live site: a ready build whose url is it published. */
  liveUrl: string;
  /** Public base of the API and dashboard (AppConfig.apiBaseUrl). */
  apiBaseUrl: string;
}

/** The dashboard's page of a build, where its log is (web/src/routes.tsx). */
export function buildPageUrl(apiBaseUrl: string, build: Pick<Build, 'id' | 'projectId' | 'workspaceId'>): string {
  return `${apiBaseUrl}/app/w/${build.workspaceId}/projects/${build.projectId}/builds/${build.id}`;
}

/** Tells this project's status from others on the same commit (CI, another project built from the same repository). */
export function statusContext(product: string, projectSlug: string): string {
  return `${product.toLowerCase().replace(/[^a-z0-9._-]+/g, '-')}/${projectSlug}`;
}

/**
 * The commit status of a build: pending while it is queued or running, success when
 * ready (pointing at the alias or the live site), failure otherwise. A cancel is a
 * failure saying "canceled": the forges have no state that all three share for it.
 */
export function commitStatusOf(build: FeedbackBuild, ctx: FeedbackContext): CommitStatus {
  const context = statusContext(ctx.product, ctx.projectSlug);
  const page = buildPageUrl(ctx.apiBaseUrl, build);
  switch (build.status) {
    case 'queued':
      return { state: 'pending', targetUrl: page, description: 'Build queued', context };
    case 'running':
      return { state: 'pending', targetUrl: page, description: 'Building', context };
    case 'ready': {
      const live = build.url !== null && sameUrl(build.url, ctx.liveUrl);
      return { state: 'success', targetUrl: build.url ?? page, description: live ? 'Deployed to the live site' : 'Preview ready', context };
    }
    case 'failed':
      return { state: 'failure', targetUrl: page, description: 'Build failed', context };
    case 'timed_out':
      return { state: 'failure', targetUrl: page, description: 'Build timed out', context };
    case 'canceled':
      return { state: 'failure', targetUrl: page, description: 'Build canceled', context };
  }
}

function sameUrl(a: string, b: string): boolean {
  return a.replace(/\/+$/, '') === b.replace(/\/+$/, '');
}

const RESULT: Record<Build['status'], string> = {
  queued: '⏳ Queued',
  running: '⏳ Building',
  ready: '✅ Ready',
  failed: '❌ Failed',
  timed_out: '❌ Timed out',
  canceled: '⚪ Canceled',
};

/**
 * The pull request comment (the marker is added by the client): the preview URL, the
 * commit and the result. Markdown every forge renders (GitHub, GitLab, Gitea, Forgejo).
 */
export function pullRequestComment(build: FeedbackBuild, ctx: FeedbackContext): string {
  const preview = build.status === 'ready' && build.url ? build.url : null;
  return [
    `**${ctx.product}** preview of \`${ctx.projectSlug}\``,
    '',
    '| | |',
    '|---|---|',
    `| Result | ${RESULT[build.status]} |`,
    `| Preview | ${preview ?? '—'} |`,
    `| Commit | \`${(build.commitSha ?? '').slice(0, 12)}\` |`,
    `| Build | [${build.id}](${buildPageUrl(ctx.apiBaseUrl, build)}) |`,
    '',
    '_Edited in place on every new commit._',
  ].join('\n');
}
