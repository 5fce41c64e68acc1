import type { Command } from 'commander';

import { type paths, type ResponseBody, StatichostApiError, type StatichostClient } from '../../sdk';
import { CliError, Context, type Io } from '../context';
import { formatTime } from '../format';
import { projectFromFlagOrLink } from '../resolve';
import { readStdin } from './shared';

export type GitSettings = ResponseBody<'/projects/{projectId}/git', 'get'>;
/** The body of `PUT /projects/{projectId}/git`. */
export type GitSettingsBody = NonNullable<paths['/projects/{projectId}/git']['put']['requestBody']>['content']['application/json'];

export const projectOption = (cmd: Command) => cmd.option('-p, --project <project>', 'slug or proj_ id (default: the project this folder was deployed to)');

/** The project's Git settings, or null when it is not connected. */
export async function getGitSettings(client: StatichostClient, projectId: string): Promise<GitSettings | null> {
  try {
    return await client.call(client.api.GET('/projects/{projectId}/git', { params: { path: { projectId } } }));
  } catch (err) {
    if (err instanceof StatichostApiError && err.code === 'git_not_connected') return null;
    throw err;
  }
}

/** `PUT /projects/{projectId}/git` (shared by the CLI and the MCP tool). */
export function putGitSettings(client: StatichostClient, projectId: string, body: GitSettingsBody): Promise<GitSettings> {
  return client.call(client.api.PUT('/projects/{projectId}/git', { params: { path: { projectId } }, body }));
}

/** `POST /projects/{projectId}/git/webhook-secret`: a new secret, shown this once (shared by the CLI and the MCP tool). */
export function rotateWebhookSecret(client: StatichostClient, projectId: string): Promise<ResponseBody<'/projects/{projectId}/git/webhook-secret', 'post'>> {
  return client.call(client.api.POST('/projects/{projectId}/git/webhook-secret', { params: { path: { projectId } } }));
}

/** The flags of `git connect` that name a setting, and the setting each one sets. */
const SETTING_FLAGS = {
  rootDirectory: 'root',
  installCommand: 'installCommand',
  buildCommand: 'buildCommand',
  outputDirectory: 'output',
  nodeVersion: 'node',
} as const;

export interface ForgeFlags {
  buildForkPullRequests?: boolean;
  forge?: string;
}

export interface ConnectFlags {
  branch?: string;
  root?: string;
  installCommand?: string;
  buildCommand?: string;
  output?: string;
  node?: string;
}

/**
 * The PUT body of `git connect`: the flags given, and for the others what the project
 * has now, so changing one setting does not clear the rest (PUT replaces them all).
 * An empty flag (`--build-command ''`) clears its setting: the build detects it again.
 */
export function connectBody(repository: string, flags: ConnectFlags, current: GitSettings | null): GitSettingsBody {
  const body: GitSettingsBody = { repository, productionBranch: flags.branch || current?.productionBranch || 'main' };
  for (const [setting, flag] of Object.entries(SETTING_FLAGS) as [keyof typeof SETTING_FLAGS, keyof ConnectFlags][]) {
    const given = flags[flag];
    const value = given !== undefined ? given : (current?.[setting] ?? null);
    if (setting === 'rootDirectory') body.rootDirectory = value ?? '';
    else body[setting] = value === '' ? null : value;
  }
  return body;
}

export const FORGES = ['github', 'gitlab', 'gitea', 'forgejo'] as const;

/** `--forge` and `--[no-]build-fork-pull-requests` as PUT fields; absent flags are left out (the API keeps those). */
export function forgeFlags(flags: ForgeFlags): Pick<GitSettingsBody, 'forge' | 'buildForkPullRequests'> {
  const body: Pick<GitSettingsBody, 'forge' | 'buildForkPullRequests'> = {};
  if (flags.buildForkPullRequests !== undefined) body.buildForkPullRequests = flags.buildForkPullRequests;
  if (flags.forge !== undefined) {
    const forge = flags.forge.trim().toLowerCase();
    if (forge === 'auto') body.forge = null;
    else if ((FORGES as readonly string[]).includes(forge)) body.forge = forge as (typeof FORGES)[number];
    else throw new CliError(`--forge: "${flags.forge}" is not one of ${FORGES.join(', ')}, auto`, 2);
  }
  return body;
}

/** The settings for people: one `name: value` line each; unset commands are detected at build time. */
export function describeSettings(s: GitSettings): string {
  const detected = '(detected at build time)';
  const rows: [string, string][] = [
    ['Repository', s.repository],
    ['Production branch', s.productionBranch],
    ['Root directory', s.rootDirectory || '(the repository’s root)'],
    ['Install command', s.installCommand ?? detected],
    ['Build command', s.buildCommand ?? detected],
    ['Output directory', s.outputDirectory ?? detected],
    ['Node version', s.nodeVersion ?? '(the build image’s)'],
    ['Access token', s.hasAccessToken ? 'set (never shown)' : 'none (a public repository)'],
    ['Webhook URL', s.webhookUrl],
    ['Webhook secret', s.hasWebhookSecret ? 'set (never shown)' : 'none: deliveries are refused (statichost git webhook-secret creates one)'],
    ['Fork pull requests', s.buildForkPullRequests ? 'built, without the environment variables' : 'not built'],
    ['Forge', s.forge ?? '(from the repository’s host)'],
    ['Updated', formatTime(s.updatedAt)],
  ];
  const width = Math.max(...rows.map(([k]) => k.length)) + 1;
  return rows.map(([k, v]) => `${`${k}:`.padEnd(width)} ${v}`).join('\n');
}

export function gitCommands(program: Command, io: Io): void {
  const git = program.command('git').description('Connect a project to a Git repository, so `statichost build` builds it (needs the admin scope to change)');

  projectOption(
    git
      .command('connect')
      .description(
        'Connect the project to a repository (an https:// clone URL), or change its build settings. Flags not given keep their current value; ' +
          'an empty one (--build-command "") goes back to detecting it',
      )
      .argument('<repo-url>', 'https:// clone URL, e.g. https://github.com/you/site.git')
      .option('--branch <branch>', 'the production branch: its builds go live, other refs are previews (default: the current one, else main)')
      .option('--build-command <command>', 'e.g. "npm run build" (default: detected from the repository)')
      .option('--install-command <command>', 'e.g. "npm ci" (default: detected from the lock file)')
      .option('--output <dir>', 'the folder the build writes the site to, relative to --root (default: detected)')
      .option('--root <dir>', 'the site’s folder inside the repository (default: its root)')
      .option('--node <version>', 'Node version the build asks for, e.g. 22 (default: the build image’s)')
      .option('--token-stdin', 'read an access token for a private repository from stdin (never from the command line: shell history and ps would show it)')
      .option('--remove-token', 'forget the stored access token (the repository is public now)')
      .option('--build-fork-pull-requests', 'build pull requests from forks too, without the project’s environment variables')
      .option('--no-build-fork-pull-requests', 'do not build pull requests from forks (the default)')
      .option('--forge <forge>', `the forge the repository lives on, for webhooks and statuses: ${FORGES.join(', ')}, or auto (from the host)`),
  ).action(async (repository: string, opts: ConnectFlags & ForgeFlags & { project?: string; tokenStdin?: boolean; removeToken?: boolean }, cmd: Command) => {
    if (opts.tokenStdin && opts.removeToken) throw new CliError('--token-stdin and --remove-token contradict each other: give one', 2);
    const ctx = await Context.of(cmd, io);
    let accessToken: string | null | undefined;
    if (opts.tokenStdin) {
      if (io.stdin.isTTY) ctx.note('Paste the access token, then press Ctrl-D:');
      accessToken = (await readStdin(io)).trim();
      if (!accessToken)
        throw new CliError('--token-stdin: stdin was empty; pipe the token in, e.g. `statichost git connect <url> --token-stdin < token.txt`', 2);
    } else if (opts.removeToken) {
      accessToken = null;
    }
    const client = ctx.client();
    const project = await projectFromFlagOrLink(client, opts.project);
    const current = await getGitSettings(client, project.id);
    const settings = await putGitSettings(client, project.id, {
      ...connectBody(repository, opts, current),
      ...(accessToken !== undefined ? { accessToken } : {}),
      ...forgeFlags(opts),
    });
    ctx.print(settings, () =>
      [
        `${current ? 'Updated the Git settings of' : 'Connected'} ${project.slug} ${current ? `(${settings.repository})` : `to ${settings.repository}`}`,
        describeSettings(settings),
        '',
        `Build the ${settings.productionBranch} branch now: statichost build${opts.project ? ` --project ${project.slug}` : ''} --follow`,
      ].join('\n'),
    );
  });

  projectOption(git.command('show').description('Show the project’s repository and build settings (never the access token)')).action(
    async (opts: { project?: string }, cmd: Command) => {
      const ctx = await Context.of(cmd, io);
      const client = ctx.client();
      const project = await projectFromFlagOrLink(client, opts.project);
      const settings = await client.call(client.api.GET('/projects/{projectId}/git', { params: { path: { projectId: project.id } } }));
      ctx.print(settings, () => describeSettings(settings));
    },
  );

  projectOption(
    git
      .command('webhook-secret')
      .description(
        'Create a new webhook secret and print it with the webhook URL, once: give both to the forge (push and pull request events). ' +
          'The previous secret stops working at once',
      ),
  ).action(async (opts: { project?: string }, cmd: Command) => {
    const ctx = await Context.of(cmd, io);
    const client = ctx.client();
    const project = await projectFromFlagOrLink(client, opts.project);
    const rotated = await rotateWebhookSecret(client, project.id);
    ctx.print(rotated, () =>
      [
        `Payload URL: ${rotated.webhookUrl}`,
        `Secret:      ${rotated.secret}`,
        '',
        'Shown only now. GitHub, Gitea, Forgejo: content type application/json, this secret as the "Secret"; GitLab: the "Secret token". ' +
          'Events: push and pull requests (merge requests).',
      ].join('\n'),
    );
  });

  projectOption(
    git.command('disconnect').description('Disconnect the repository and forget its access token; deployments and builds already made stay'),
  ).action(async (opts: { project?: string }, cmd: Command) => {
    const ctx = await Context.of(cmd, io);
    const client = ctx.client();
    const project = await projectFromFlagOrLink(client, opts.project);
    await client.call(client.api.DELETE('/projects/{projectId}/git', { params: { path: { projectId: project.id } } }));
    ctx.print({ projectId: project.id, disconnected: true }, () => `Disconnected ${project.slug} from its repository`);
  });
}
