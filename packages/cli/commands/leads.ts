import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import type { Command } from 'commander';

import type { components, StatichostClient } from '../../sdk';
import { Context, type Io } from '../context';
import { formatTime } from '../format';
import { resolveProject } from '../resolve';
import { pageOptions } from './shared';

export type LeadsPage = components['schemas']['LeadsPageDto'] | components['schemas']['WorkspaceLeadsPageDto'];

/** One project's leads, or (without a project) the workspace's across projects, each naming its project. */
export async function listLeads(client: StatichostClient, options: { projectId?: string; search?: string; page?: number; limit?: number }): Promise<LeadsPage> {
  const query = { page: options.page, limit: options.limit, search: options.search };
  return options.projectId
    ? client.call(client.api.GET('/projects/{projectId}/gate/leads', { params: { path: { projectId: options.projectId }, query } }))
    : client.call(client.api.GET('/projects/gate/leads', { params: { query } }));
}

export function leadCommands(program: Command, io: Io): void {
  const leads = program.command('leads').description('List and export emails captured by email gates');

  pageOptions(
    leads
      .command('list')
      .description('List leads, newest first: one project’s, or the whole workspace’s')
      .option('--project <project>', 'slug or proj_ id (default: every project)')
      .option('--search <text>', 'only emails containing this text'),
    20,
  ).action(async (opts: { project?: string; search?: string; page: number; limit: number }, cmd: Command) => {
    const ctx = await Context.of(cmd, io);
    const client = ctx.client();
    const projectId = opts.project ? (await resolveProject(client, opts.project)).id : undefined;
    const result = await listLeads(client, { projectId, search: opts.search, page: opts.page, limit: opts.limit });
    if (projectId) ctx.printPage(result, ['ID', 'EMAIL', 'CAPTURED'], (l) => [l.id, l.email, formatTime(l.capturedAt)]);
    else
      ctx.printPage<LeadsPage['data'][number]>(result, ['ID', 'EMAIL', 'PROJECT', 'CAPTURED'], (l) => [
        l.id,
        l.email,
        'projectSlug' in l ? l.projectSlug : '',
        formatTime(l.capturedAt),
      ]);
  });

  leads
    .command('export')
    .description('Export a project’s leads as CSV, streamed, to stdout or a file')
    .requiredOption('--project <project>', 'slug or proj_ id')
    .option('--search <text>', 'only emails containing this text')
    .option('-o, --output <file>', 'write to this file instead of stdout')
    .action(async (opts: { project: string; search?: string; output?: string }, cmd: Command) => {
      const ctx = await Context.of(cmd, io);
      const client = ctx.client();
      const project = await resolveProject(client, opts.project);
      const csv = await client.call(
        client.api.GET('/projects/{projectId}/gate/leads/export', {
          params: { path: { projectId: project.id }, query: { search: opts.search } },
          parseAs: 'stream',
        }),
      );
      const body = Readable.fromWeb(csv as import('node:stream/web').ReadableStream);
      if (opts.output) {
        await pipeline(body, createWriteStream(opts.output));
        ctx.note(`Wrote ${opts.output}`);
      } else {
        await pipeline(body, io.stdout, { end: false });
      }
    });
}
