import type { Command } from 'commander';

import { CliError, Context, type Io } from '../context';
import { formatTime } from '../format';
import { listProjects, type ProjectRecord, resolveProject } from '../resolve';
import { confirm, pageOptions } from './shared';

export function projectCommands(program: Command, io: Io): void {
  const projects = program.command('projects').description('List, create and delete projects');

  pageOptions(projects.command('list').description('List the workspace’s projects, newest first')).action(
    async (opts: { page: number; limit: number }, cmd: Command) => {
      const ctx = await Context.of(cmd, io);
      const result = await listProjects(ctx.client(), opts.page, opts.limit);
      ctx.printPage(result, ['ID', 'SLUG', 'NAME', 'GATE', 'LIVE DEPLOYMENT', 'URL', 'CREATED'], (p) => [
        p.id,
        p.slug,
        p.name,
        p.gate_type,
        p.liveDeploymentId,
        p.url,
        formatTime(p.createdAt),
      ]);
    },
  );

  projects
    .command('create')
    .description('Create a project (deploy creates one too, from its slug)')
    .argument('<name>', 'project name')
    .option('--slug <slug>', 'address label: <slug>.<sites domain> (default: derived from the name)')
    .option('--ttl <ttl>', 'default lifetime of its deployments (<n>h, <n>d or forever)')
    .action(async (name: string, opts: { slug?: string; ttl?: string }, cmd: Command) => {
      const ctx = await Context.of(cmd, io);
      const client = ctx.client();
      const created = (await client.call(
        client.api.POST('/projects', { body: { name, ...(opts.slug ? { slug: opts.slug } : {}), ...(opts.ttl ? { default_ttl: opts.ttl } : {}) } }),
      )) as unknown as ProjectRecord;
      ctx.print(created, () => `Created project ${created.slug} (${created.id}), default ttl ${created.default_ttl}`);
    });

  projects
    .command('delete')
    .description('Delete a project with all its deployments and leads; its site stops at once')
    .argument('<project>', 'slug or proj_ id')
    .option('-y, --yes', 'do not ask for confirmation (needed when not on a terminal)')
    .action(async (ref: string, opts: { yes?: boolean }, cmd: Command) => {
      const ctx = await Context.of(cmd, io);
      const client = ctx.client();
      const project = await resolveProject(client, ref);
      if (!opts.yes && !(await confirm(io, `Delete project ${project.slug} (${project.id}) with all its deployments and leads?`))) {
        throw new CliError('Not deleted (confirm with --yes)', 1);
      }
      await client.call(client.api.DELETE('/projects/{projectId}', { params: { path: { projectId: project.id } } }));
      ctx.print({ id: project.id, slug: project.slug, deleted: true }, () => `Deleted project ${project.slug} (${project.id})`);
    });
}
