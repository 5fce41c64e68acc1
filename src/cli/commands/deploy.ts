import type { Command } from 'commander';
import { basename, dirname, resolve } from 'node:path';
import { stat } from 'node:fs/promises';
import { collectFiles, deployDigestFirst, hashFiles } from '../../sdk';
import { CliError, Context, type Io } from '../context';
import { formatBytes, slugFromName } from '../format';
import { uploadProgress } from '../progress';

export function deployCommand(program: Command, io: Io): void {
  program
    .command('deploy')
    .description('Deploy a folder (or one file) to a project; only files the service does not have yet are uploaded')
    .argument('<path>', 'folder or file to deploy')
    .option('-p, --project <slug>', 'project slug; created when missing (default: the folder’s name)')
    .option('--ttl <ttl>', 'how long the deployment lives: <n>h, <n>d or forever (default: the project’s)')
    .option('--preview', 'deploy without going live: the deployment is served at its own preview address; `deployments promote` makes it live')
    .action(async (target: string, opts: { project?: string; ttl?: string; preview?: boolean }, cmd: Command) => {
      const ctx = await Context.of(cmd, io);
      const client = ctx.client();
      const info = await stat(target).catch(() => undefined);
      if (!info) throw new CliError(`${target}: no such file or folder`, 2);
      const folder = info.isDirectory() ? resolve(target) : dirname(resolve(target));
      const project = opts.project ?? slugFromName(basename(folder));
      if (!project) throw new CliError(`Cannot derive a project slug from "${basename(folder)}": pass --project <slug>`, 2);

      const collected = await collectFiles(target);
      if (collected.files.length === 0) throw new CliError(`${target} has no files to deploy${collected.skipped.length ? ` (${collected.skipped.length} hidden or ignored)` : ''}`, 2);
      const totalBytes = collected.files.reduce((n, f) => n + f.size, 0);
      ctx.note(`Deploying ${collected.files.length} file${collected.files.length === 1 ? '' : 's'} (${formatBytes(totalBytes)}) from ${target} to project "${project}"`);
      if (collected.skipped.length > 0) ctx.note(`Skipped ${collected.skipped.length}: ${collected.skipped.slice(0, 5).map((s) => `${s.path} (${s.reason})`).join(', ')}${collected.skipped.length > 5 ? ', ...' : ''}`);

      const files = await hashFiles(collected.files);
      const bar = uploadProgress(io, !ctx.json);
      let asked = 0;
      const result = await deployDigestFirst(client, {
        project,
        ttl: opts.ttl,
        ...(opts.preview ? { publish: false } : {}),
        files,
        onMissing: (m) => {
          asked += m.files;
          ctx.note(
            `Uploading ${m.files} new or changed file${m.files === 1 ? '' : 's'} (${formatBytes(m.bytes)}); ${files.length - m.files} already uploaded` +
              (m.put > 0 && m.inline > 0 ? ` (${m.inline} small ones inline, ${m.put} by PUT /v1/blobs)` : ''),
          );
        },
        onProgress: (p) => bar.update(p),
      }).finally(() => bar.stop());
      if (asked === 0) ctx.note(`Uploading 0 files: all ${files.length} already uploaded`);
      const { deployment } = result;
      ctx.print({ ...deployment, project, files: result.files, uploaded_files: result.uploadedFiles, uploaded_bytes: result.uploadedBytes }, () =>
        [
          `${opts.preview ? 'Deployed a preview of' : 'Deployed'} version ${deployment.version} (${deployment.id}, ${formatBytes(deployment.size_bytes)}, expires ${deployment.expires_at ?? 'never'})`,
          deployment.url,
          ...(opts.preview ? [`Not live; make it live with: statichost deployments promote ${project} ${deployment.version}`] : []),
        ].join('\n'),
      );
    });
}
