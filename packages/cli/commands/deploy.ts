import { stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';

import type { Command } from 'commander';

import {
  collectFiles,
  deployDigestFirst,
  type DeployPreflight,
  hashFiles,
  type LocalFile,
  preflightDeploy,
  StatichostApiError,
  type StatichostClient,
} from '../../sdk';
import { slugFromName } from '../../shared/slug';
import { CliError, Context, type Io } from '../context';
import { formatBytes, withRandomSuffix } from '../format';
import { LINK_FILE, type ProjectLink, readLink, writeLink } from '../link';
import { uploadProgress } from '../progress';
import { resolveProject } from '../resolve';
import { formatRuleWarning, hasRuleFiles, type RuleWarning } from '../rule-warnings';

/** Tries at a free slug when the folder's name is taken (6 random characters: a clash twice in a row is next to impossible). */
const SLUG_ATTEMPTS = 4;

type SlugSource = 'flag' | 'link' | 'folder';

/** The slug a linked project has now (it may have been renamed); the stored one when the token cannot read projects. */
async function linkedSlug(client: StatichostClient, link: ProjectLink, folder: string): Promise<string> {
  if (!link.project_id) return link.project_slug;
  try {
    const project = await client.call(client.api.GET('/projects/{projectId}', { params: { path: { projectId: link.project_id } } }));
    return (project as unknown as { slug: string }).slug;
  } catch (err) {
    if (err instanceof StatichostApiError && err.status === 404) {
      throw new CliError(
        `${join(folder, LINK_FILE)} links this folder to project ${link.project_slug} (${link.project_id}), which this workspace no longer has. ` +
          'Delete the file to deploy to a new project, or pass --project.',
        1,
        'linked_project_gone',
      );
    }
    if (err instanceof StatichostApiError && err.status === 403) return link.project_slug;
    throw err;
  }
}

/**
 * The preflight, and the slug to deploy to: when the slug only came from the
 * folder's name and another workspace has it (or it is reserved), a free one
 * with a random suffix, before anything is uploaded.
 */
async function checkBeforeUpload(
  ctx: Context,
  client: StatichostClient,
  slug: string,
  source: SlugSource,
  request: { ttl?: string; publish?: boolean; files: LocalFile[] },
): Promise<{ slug: string; preflight?: DeployPreflight }> {
  const base = slug;
  for (let attempt = 0; ; attempt++) {
    try {
      return { slug, preflight: await preflightDeploy(client, { project: slug, ...request }) };
    } catch (err) {
      if (!(err instanceof StatichostApiError)) throw err;
      // A service from before the preflight route: the deploy itself checks (after uploading).
      if (err.status === 404) return { slug };
      // A name derived from the folder may be changed; one the user chose (or linked) may not.
      if (source !== 'folder' || (err.code !== 'slug_taken' && err.code !== 'invalid_slug') || attempt >= SLUG_ATTEMPTS) throw err;
      const next = withRandomSuffix(base);
      ctx.note(
        `Project slug "${slug}" ${err.code === 'slug_taken' ? 'is taken by another workspace' : `cannot be used (${err.message})`}; using "${next}" instead.`,
      );
      slug = next;
    }
  }
}

export function deployCommand(program: Command, io: Io): void {
  program
    .command('deploy')
    .description(
      'Deploy a folder (or one file) to a project; only files the service does not have yet are uploaded, and nothing is uploaded when the deploy would be refused. ' +
        'The folder remembers its project in .statichost/project.json',
    )
    .argument('<path>', 'folder or file to deploy')
    .option('-p, --project <slug>', 'project slug; created when missing (default: the one the folder is linked to, else the folder’s name)')
    .option('--ttl <ttl>', 'how long the deployment lives: <n>h, <n>d or forever (default: the project’s)')
    .option('--preview', 'deploy without going live: the deployment is served at its own preview address; `promote` makes it live')
    .action(async (target: string, opts: DeployOptions, cmd: Command) => {
      const ctx = await Context.of(cmd, io);
      const { deployment, output } = await deployPath(ctx, target, opts);
      ctx.print(output, () =>
        [
          `${opts.preview ? 'Deployed a preview of' : 'Deployed'} version ${deployment.version} (${deployment.id}, ${formatBytes(deployment.size_bytes)}, expires ${deployment.expires_at ?? 'never'})`,
          deployment.url,
          ...(opts.preview ? [`Not live; make it live with: statichost promote ${deployment.version} --project ${output.project}`] : []),
        ].join('\n'),
      );
    });
}

export interface DeployOptions {
  project?: string;
  ttl?: string;
  preview?: boolean;
  /** false: leave the folder's link file alone (CI deploys a build output that is thrown away). */
  link?: boolean;
}

/**
 * `statichost deploy` without the printing: collects, hashes, checks, uploads and
 * deploys `target`, links the folder to its project, and returns the deployment and
 * the --json record (also what `statichost ci` deploys with).
 */
export async function deployPath(ctx: Context, target: string, opts: DeployOptions) {
  const io = ctx.io;
  const client = ctx.client();
  const info = await stat(target).catch(() => undefined);
  if (!info) throw new CliError(`${target}: no such file or folder`, 2, 'no_such_path');
  const isFolder = info.isDirectory();
  const folder = isFolder ? resolve(target) : dirname(resolve(target));
  // Only a deployed folder is linked: a single file's folder is not the site.
  const link = isFolder ? await readLink(folder) : undefined;
  let slug: string;
  let source: SlugSource;
  if (opts.project) {
    slug = opts.project;
    source = 'flag';
  } else if (link) {
    slug = await linkedSlug(client, link, folder);
    source = 'link';
  } else {
    slug = slugFromName(basename(folder)) || 'site';
    source = 'folder';
  }

  const collected = await collectFiles(target);
  for (const s of collected.skipped.filter((x) => x.outside)) ctx.warn(`skipped ${s.path}: ${s.reason} (links out of the deployed folder are never followed)`);
  if (collected.files.length === 0) {
    throw new CliError(`${target} has no files to deploy${collected.skipped.length ? ` (${collected.skipped.length} hidden or ignored)` : ''}`, 2, 'no_files');
  }
  const totalBytes = collected.files.reduce((n, f) => n + f.size, 0);
  const files = await hashFiles(collected.files);

  const checked = await checkBeforeUpload(ctx, client, slug, source, { ttl: opts.ttl, publish: opts.preview ? false : undefined, files });
  slug = checked.slug;
  if (source === 'link' && link?.workspace_id && checked.preflight && checked.preflight.workspaceId !== link.workspace_id) {
    throw new CliError(
      `${join(folder, LINK_FILE)} links this folder to a project of workspace ${link.workspace_id}, but the token acts in ${checked.preflight.workspaceId}. ` +
        'Use that workspace’s token, pass --project, or delete the file.',
      1,
      'linked_workspace_mismatch',
    );
  }

  ctx.note(
    `Deploying ${collected.files.length} file${collected.files.length === 1 ? '' : 's'} (${formatBytes(totalBytes)}) from ${target} to project "${slug}"`,
  );
  const quiet = collected.skipped.filter((x) => !x.outside);
  if (quiet.length > 0)
    ctx.note(
      `Skipped ${quiet.length}: ${quiet
        .slice(0, 5)
        .map((s) => `${s.path} (${s.reason})`)
        .join(', ')}${quiet.length > 5 ? ', ...' : ''}`,
    );

  const bar = uploadProgress(io, !ctx.json);
  let asked = 0;
  const result = await deployDigestFirst(client, {
    project: slug,
    ttl: opts.ttl,
    ...(opts.preview ? { publish: false } : {}),
    files,
    // Done just above (and again by the deploy itself, under the workspace lock).
    preflight: checked.preflight === undefined,
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

  let knownProjectId: Promise<string | null> | undefined;
  const projectIdOf = () =>
    (knownProjectId ??= Promise.resolve(
      checked.preflight?.projectId ??
        (link?.project_slug === slug ? link.project_id : null) ??
        // A new project: its id, when the token may read projects.
        resolveProject(client, slug).then(
          (p) => p.id,
          () => null,
        ),
    ));

  // The lazy deploy's answer keeps its five fields; the warnings are on the deployment's record.
  const warnings = hasRuleFiles(files) ? await ruleWarnings(ctx, client, await projectIdOf(), result.deployment.id) : [];
  for (const w of warnings) ctx.warn(formatRuleWarning(w));

  if (isFolder && opts.link !== false) {
    const projectId = await projectIdOf();
    const next: ProjectLink = {
      project_slug: slug,
      project_id: projectId,
      workspace_id: checked.preflight?.workspaceId ?? link?.workspace_id ?? null,
      api_url: ctx.settings.apiUrl,
    };
    if (
      !link ||
      link.project_slug !== next.project_slug ||
      link.project_id !== next.project_id ||
      link.workspace_id !== next.workspace_id ||
      link.api_url !== next.api_url
    ) {
      await writeLink(folder, next);
      ctx.note(
        `Linked ${target} to project "${slug}" (${relative(process.cwd(), join(folder, LINK_FILE)) || LINK_FILE}): the next deploy of this folder goes there too.`,
      );
    }
  }
  const { deployment } = result;
  return {
    deployment,
    output: {
      ...deployment,
      project: slug,
      files: result.files,
      uploaded_files: result.uploadedFiles,
      uploaded_bytes: result.uploadedBytes,
      skipped: collected.skipped,
      warnings,
    },
  };
}

/**
 * The deployment record's rule warnings (lines of `_redirects`/`_headers` that deployed but
 * never apply). The deploy has succeeded whatever happens here: a token that may not read
 * projects gets a note saying where to look instead of an error.
 */
async function ruleWarnings(ctx: Context, client: StatichostClient, projectId: string | null, deploymentId: string): Promise<RuleWarning[]> {
  const unread = (why: string) => {
    ctx.note(`Could not read the deployment's rule warnings (${why}); they are on the deployment in the dashboard.`);
    return [];
  };
  if (!projectId) return unread('the token cannot read projects');
  try {
    const record = await client.call(client.api.GET('/projects/{projectId}/deployments/{deploymentId}', { params: { path: { projectId, deploymentId } } }));
    return record.warnings;
  } catch (err) {
    if (err instanceof StatichostApiError) return unread(err.message);
    throw err;
  }
}
