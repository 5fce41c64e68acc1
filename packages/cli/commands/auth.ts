import { hostname } from 'node:os';

import type { Command } from 'commander';

import { StatichostClient } from '../../sdk';
import { deleteConfig, readConfig, writeConfig } from '../config';
import { CliError, Context, type Io, VERSION } from '../context';
import { ask, parseScopes, readSecret, SCOPES } from './shared';

interface SessionOptions {
  email?: string;
  workspace?: string;
  scopes: string;
  tokenName?: string;
}

async function emailOf(io: Io, given: string | undefined): Promise<string> {
  if (given) return given;
  if (!io.stdin.isTTY) throw new CliError('No email: pass --email (the password then comes from STATICHOST_PASSWORD or stdin)', 2, 'no_email');
  const email = await ask(io, 'Email: ');
  if (!email) throw new CliError('No email given', 2, 'no_email');
  return email;
}

/**
 * After register or login (a dashboard session): creates an API token named after
 * this machine in the chosen workspace, stores it (0600) and ends the session, so
 * the only credential left on disk is a revocable token with the scopes asked for.
 */
async function storeTokenFor(
  ctx: Context,
  session: { accessToken: string; user: { email: string } },
  opts: SessionOptions,
  created?: { id: string; name: string },
): Promise<void> {
  const scopes = parseScopes(opts.scopes);
  const jwt = new StatichostClient({ baseUrl: ctx.settings.apiUrl, token: session.accessToken, userAgent: `statichost-cli/${VERSION}` });
  let workspace = created;
  if (!workspace) {
    const list = await jwt.call(jwt.api.GET('/workspaces', { params: { query: { page: 1, limit: 100 } } }));
    const all = list.data as { id: string; name: string; role: string | null }[];
    workspace = opts.workspace
      ? all.find((w) => w.id === opts.workspace || w.name === opts.workspace)
      : // The personal workspace: the first one the user owns (register creates it with the account).
        (all.find((w) => w.role === 'owner') ?? all[0]);
    if (!workspace) {
      throw new CliError(
        opts.workspace
          ? `You are not a member of a workspace "${opts.workspace}" (yours: ${all.map((w) => `${w.name} (${w.id})`).join(', ') || 'none'})`
          : 'You are not a member of any workspace',
        1,
        'no_workspace',
      );
    }
  }
  const name = opts.tokenName || hostname() || 'statichost-cli';
  const token = await jwt.call(jwt.api.POST('/access-tokens', { body: { name, scopes }, headers: { 'X-Workspace-Id': workspace.id } }));
  const stored = await readConfig(ctx.configFile);
  await writeConfig(ctx.configFile, { ...stored, token: token.token, apiUrl: ctx.settings.apiUrl });
  // The token is what the CLI keeps; the session it was made with is not needed any more.
  await jwt.call(jwt.api.POST('/auth/logout', { body: {} })).catch(() => undefined);
  ctx.print(
    {
      email: session.user.email,
      workspaceId: workspace.id,
      workspaceName: workspace.name,
      tokenId: token.id,
      tokenName: token.name,
      scopes: token.scopes,
      apiUrl: ctx.settings.apiUrl,
      configFile: ctx.configFile,
    },
    () =>
      [
        `Logged in to ${ctx.settings.apiUrl} as ${session.user.email}.`,
        `Created API token ${token.id} "${token.name}" (scopes: ${token.scopes.join(', ')}) in workspace ${workspace.name} (${workspace.id}).`,
        `Saved to ${ctx.configFile} (readable by you only). Next: statichost deploy ./your-folder`,
      ].join('\n'),
  );
}

function sessionOptions(cmd: Command): Command {
  return cmd
    .option('--email <email>', 'account email (asked on a terminal when missing)')
    .option('--workspace <workspace>', 'workspace id or name the token acts in (default: your personal workspace)')
    .option('--scopes <list>', `scopes of the token to create, comma-separated: ${SCOPES.join(', ')}`, 'deploy,read')
    .option('--token-name <name>', 'name of the token to create (default: this machine’s host name)');
}

export function authCommands(program: Command, io: Io): void {
  sessionOptions(
    program
      .command('login')
      .description(
        'Sign in with email and password (password typed, piped on stdin or in $STATICHOST_PASSWORD) and store a new API token named after this machine (0600); ' +
          'with --token (or $STATICHOST_TOKEN, for CI) check that token and store it instead',
      ),
  ).action(async (opts: SessionOptions, cmd: Command) => {
    const ctx = await Context.of(cmd, io);
    // --token is the program's global flag: `statichost login --token sk_live_...`.
    const token = ctx.flags.token ?? (opts.email ? undefined : io.env.STATICHOST_TOKEN);
    if (!token) {
      const email = await emailOf(io, opts.email);
      const password = await readSecret(io, 'STATICHOST_PASSWORD', 'Password: ');
      const client = ctx.publicClient();
      const session = await client.call(client.api.POST('/auth/login', { body: { email, password } }));
      await storeTokenFor(ctx, session, opts);
      return;
    }
    if (!token.startsWith('sk_live_')) throw new CliError('--token must be an API token (sk_live_...)', 2);
    const client = new StatichostClient({ baseUrl: ctx.settings.apiUrl, token, userAgent: `statichost-cli/${VERSION}` });
    const me = await client.call(client.api.GET('/v1/me'));
    const stored = await readConfig(ctx.configFile);
    await writeConfig(ctx.configFile, { ...stored, token, apiUrl: ctx.settings.apiUrl });
    ctx.print({ ...me, apiUrl: ctx.settings.apiUrl, configFile: ctx.configFile }, () =>
      [
        `Logged in to ${ctx.settings.apiUrl} as token ${me.tokenId} of workspace ${me.workspaceId} (scopes: ${me.scopes.join(', ')}).`,
        `Saved to ${ctx.configFile}`,
      ].join('\n'),
    );
  });

  sessionOptions(
    program
      .command('signup')
      .description('Create an account (email, password, name), then log in as `login` does: a new API token for this machine, stored 0600')
      .option('--name <name>', 'your name (default: the part of the email before @)'),
  ).action(async (opts: SessionOptions & { name?: string }, cmd: Command) => {
    const ctx = await Context.of(cmd, io);
    const email = await emailOf(io, opts.email);
    const password = await readSecret(io, 'STATICHOST_PASSWORD', 'Choose a password (8+ characters): ');
    const name = opts.name || email.split('@')[0] || email;
    const client = ctx.publicClient();
    const session = await client.call(client.api.POST('/auth/register', { body: { email, password, name } }));
    ctx.note(`Created account ${session.user.email} with workspace ${session.workspace.name} (${session.workspace.id}).`);
    await storeTokenFor(ctx, session, opts, opts.workspace ? undefined : session.workspace);
  });

  program
    .command('logout')
    .description('Forget the stored token (the token itself stays valid: revoke it with statichost tokens revoke)')
    .action(async (_opts, cmd: Command) => {
      const ctx = await Context.of(cmd, io);
      await deleteConfig(ctx.configFile);
      ctx.print({ configFile: ctx.configFile, removed: true }, () => `Removed ${ctx.configFile}`);
    });

  program
    .command('whoami')
    .description('Show the token’s workspace, scopes and project binding')
    .action(async (_opts, cmd: Command) => {
      const ctx = await Context.of(cmd, io);
      const client = ctx.client();
      const me = await client.call(client.api.GET('/v1/me'));
      const workspace = await client
        .call(client.api.GET('/workspaces/{workspaceId}', { params: { path: { workspaceId: me.workspaceId } } }))
        .catch(() => undefined);
      ctx.print({ ...me, workspaceName: workspace?.name ?? null, apiUrl: ctx.settings.apiUrl }, () =>
        [
          `API:        ${ctx.settings.apiUrl}`,
          `Workspace:  ${workspace ? `${workspace.name} (${me.workspaceId})` : me.workspaceId}`,
          `Token:      ${me.tokenId} (from ${ctx.settings.tokenSource === 'config' ? ctx.configFile : ctx.settings.tokenSource === 'env' ? 'STATICHOST_TOKEN' : '--token'})`,
          `Scopes:     ${me.scopes.join(', ')}`,
          `Project:    ${me.projectId ?? 'any (not bound to one project)'}`,
        ].join('\n'),
      );
    });
}
