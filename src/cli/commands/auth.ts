import type { Command } from 'commander';
import { StatichostClient } from '../../sdk';
import { deleteConfig, readConfig, writeConfig } from '../config';
import { CliError, Context, type Io, VERSION } from '../context';

export function authCommands(program: Command, io: Io): void {
  program
    .command('login')
    .description('Check an API token (--token, or $STATICHOST_TOKEN) and store it with the API address in the user config file, mode 0600')
    .action(async (_opts, cmd: Command) => {
      const ctx = await Context.of(cmd, io);
      // --token is the program's global flag: `statichost login --token sk_live_...`.
      const token = ctx.flags.token ?? io.env.STATICHOST_TOKEN;
      if (!token) throw new CliError('login needs a token: statichost login --token sk_live_...', 2);
      if (!token.startsWith('sk_live_')) throw new CliError('--token must be an API token (sk_live_...)', 2);
      const client = new StatichostClient({ baseUrl: ctx.settings.apiUrl, token, userAgent: `statichost-cli/${VERSION}` });
      const me = await client.call(client.api.GET('/v1/me'));
      const stored = await readConfig(ctx.configFile);
      await writeConfig(ctx.configFile, { ...stored, token, apiUrl: ctx.settings.apiUrl });
      ctx.print({ ...me, apiUrl: ctx.settings.apiUrl, configFile: ctx.configFile }, () =>
        [`Logged in to ${ctx.settings.apiUrl} as token ${me.tokenId} of workspace ${me.workspaceId} (scopes: ${me.scopes.join(', ')}).`, `Saved to ${ctx.configFile}`].join('\n'),
      );
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
