import type { Command } from 'commander';

import type { ResponseBody, StatichostClient } from '../../sdk';
import { Context, type Io } from '../context';
import { formatTime } from '../format';
import { projectFromFlagOrLink } from '../resolve';
import { projectOption } from './git';
import { pageOptions } from './shared';

export type PreviewPage = ResponseBody<'/projects/{projectId}/previews', 'get'>;
export type Preview = PreviewPage['data'][number];

/** `GET /projects/{projectId}/previews` (shared by the CLI and the MCP tool). */
export function listPreviews(client: StatichostClient, projectId: string, page: number, limit: number): Promise<PreviewPage> {
  return client.call(client.api.GET('/projects/{projectId}/previews', { params: { path: { projectId }, query: { page, limit } } }));
}

/** What a preview follows, for people: `#12 (feature/login)` or `feature/login`. */
export function describePreview(p: Pick<Preview, 'kind' | 'branch' | 'pullRequest'>): string {
  if (p.kind === 'pull_request') return `#${p.pullRequest ?? '?'}${p.branch ? ` (${p.branch})` : ''}`;
  return p.branch ?? '-';
}

export function previewCommands(program: Command, io: Io): void {
  pageOptions(
    projectOption(
      program
        .command('previews')
        .description(
          'List the project’s branch and pull request previews: each address serves the newest ready build of its branch or pull request, most recently updated first',
        ),
    ),
  ).action(async (opts: { page: number; limit: number; project?: string }, cmd: Command) => {
    const ctx = await Context.of(cmd, io);
    const client = ctx.client();
    const project = await projectFromFlagOrLink(client, opts.project);
    const page = await listPreviews(client, project.id, opts.page, opts.limit);
    if (!ctx.json && page.data.length === 0 && page.meta.total === 0) {
      io.stdout.write(`${project.slug} has no previews: a push to a branch other than the production branch, or a pull request, makes one\n`);
      return;
    }
    ctx.printPage(page, ['KIND', 'FOR', 'COMMIT', 'UPDATED', 'URL'], (p) => [
      p.kind === 'pull_request' ? 'pull request' : 'branch',
      describePreview(p),
      p.commitSha?.slice(0, 7),
      formatTime(p.updatedAt),
      p.url,
    ]);
  });
}
