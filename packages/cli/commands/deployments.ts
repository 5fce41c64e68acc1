import type { Command } from 'commander';

import { Context, type Io } from '../context';
import { formatBytes, formatTime } from '../format';
import { projectFromFlagOrLink, resolveDeployment, resolveProject } from '../resolve';
import { pageOptions } from './shared';

export function deploymentCommands(program: Command, io: Io): void {
  const deployments = program.command('deployments').description('List, promote (roll back to) and archive deployments');

  pageOptions(deployments.command('list').description('List a project’s deployments, newest first').argument('<project>', 'slug or proj_ id')).action(
    async (ref: string, opts: { page: number; limit: number }, cmd: Command) => {
      const ctx = await Context.of(cmd, io);
      const client = ctx.client();
      const project = await resolveProject(client, ref);
      const result = await client.call(
        client.api.GET('/projects/{projectId}/deployments', { params: { path: { projectId: project.id }, query: { page: opts.page, limit: opts.limit } } }),
      );
      ctx.printPage(result, ['ID', 'VERSION', 'STATUS', 'FILES', 'SIZE', 'EXPIRES', 'CREATED'], (d) => [
        d.id,
        d.version,
        d.status,
        d.fileCount,
        formatBytes(d.size_bytes),
        formatTime(d.expires_at) === '-' ? 'never' : formatTime(d.expires_at),
        formatTime(d.createdAt),
      ]);
    },
  );

  const changes = {
    promote: {
      description: 'Make a deployment the live one again (a rollback; nothing is re-uploaded)',
      done: (d: { version: number; id: string; url: string }) => `Version ${d.version} (${d.id}) is live: ${d.url}`,
    },
    archive: {
      description: 'Archive a deployment; archiving the live one takes the site offline',
      done: (d: { version: number; id: string }, wasLive: boolean) =>
        `Archived version ${d.version} (${d.id})${wasLive ? '; the site is offline until the next deploy or promote' : ''}`,
    },
  } as const;
  for (const action of ['promote', 'archive'] as const) {
    deployments
      .command(action)
      .description(changes[action].description)
      .argument('<project>', 'slug or proj_ id')
      .argument('<deployment>', 'dep_ id or version number')
      .action(async (projectRef: string, deploymentRef: string, _opts, cmd: Command) => {
        const ctx = await Context.of(cmd, io);
        const client = ctx.client();
        const project = await resolveProject(client, projectRef);
        const deploymentId = await resolveDeployment(client, project.id, deploymentRef);
        const path = { params: { path: { projectId: project.id, deploymentId } } };
        const d = await client.call(
          action === 'promote'
            ? client.api.PATCH('/projects/{projectId}/deployments/{deploymentId}/promote', path)
            : client.api.PATCH('/projects/{projectId}/deployments/{deploymentId}/archive', path),
        );
        ctx.print(d, () => changes[action].done(d, project.liveDeploymentId === d.id));
      });
  }

  // The same two actions at the top level, by version number, with the project from
  // --project or from the current folder's link: `statichost promote 3`.
  program
    .command('promote')
    .description('Make version <version> of the project live (roll back or publish a preview); the project: --project, else the current folder’s link')
    .argument('<version>', 'version number (or dep_ id)')
    .option('-p, --project <project>', 'slug or proj_ id (default: the project this folder was deployed to)')
    .action((ref: string, opts: { project?: string }, cmd: Command) =>
      changeVersion(cmd, opts.project, ref, 'promote', (d, project) => `Version ${d.version} (${d.id}) of ${project.slug} is live: ${d.url}`),
    );

  program
    .command('archive')
    .description('Archive version <version> of the project (needs the delete scope); archiving the live one takes the site offline')
    .argument('<version>', 'version number (or dep_ id)')
    .option('-p, --project <project>', 'slug or proj_ id (default: the project this folder was deployed to)')
    .action((ref: string, opts: { project?: string }, cmd: Command) =>
      changeVersion(
        cmd,
        opts.project,
        ref,
        'archive',
        (d, project) =>
          `Archived version ${d.version} (${d.id}) of ${project.slug}${project.liveDeploymentId === d.id ? '; the site is offline until the next deploy or promote' : ''}`,
      ),
    );

  /** `statichost promote|archive <version>`: the project from --project or the folder's link. */
  async function changeVersion(
    cmd: Command,
    projectRef: string | undefined,
    ref: string,
    action: 'promote' | 'archive',
    describe: (d: { id: string; version: number; url: string }, project: { slug: string; liveDeploymentId?: string | null }) => string,
  ): Promise<void> {
    const ctx = await Context.of(cmd, io);
    const client = ctx.client();
    const project = await projectFromFlagOrLink(client, projectRef);
    const deploymentId = await resolveDeployment(client, project.id, ref);
    const path = action === 'promote' ? '/projects/{projectId}/deployments/{deploymentId}/promote' : '/projects/{projectId}/deployments/{deploymentId}/archive';
    const d = await client.call(client.api.PATCH(path, { params: { path: { projectId: project.id, deploymentId } } }));
    ctx.print(d, () => describe(d, project));
  }
}
