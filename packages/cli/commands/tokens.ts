import type { Command } from 'commander';

import { CliError, Context, type Io } from '../context';
import { formatTime } from '../format';
import { resolveProject } from '../resolve';
import { pageOptions, parseScopes, SCOPES } from './shared';

/** `30d`, `12h` or an ISO 8601 timestamp → the ISO timestamp the API takes. */
export function expiryFrom(value: string, now = Date.now()): string {
  const relative = /^(\d+)([hd])$/.exec(value);
  if (relative) return new Date(now + Number(relative[1]) * (relative[2] === 'h' ? 3600_000 : 86_400_000)).toISOString();
  if (!Number.isNaN(Date.parse(value)) && /T.*(Z|[+-]\d\d:?\d\d)$/.test(value)) return value;
  throw new CliError(`--expires must be <n>d, <n>h or an ISO 8601 timestamp with a zone (e.g. 2030-01-01T00:00:00Z), got "${value}"`, 2);
}

export function tokenCommands(program: Command, io: Io): void {
  const tokens = program.command('tokens').description('Create, list and revoke API tokens');

  tokens
    .command('create')
    .description('Create an API token (needs a token with the admin scope); the secret is shown once')
    .argument('<name>', 'what the token is for, e.g. "CI deploys"')
    .option('--scopes <list>', `comma-separated: ${SCOPES.join(', ')}`, 'deploy')
    .option('--expires <when>', '<n>d, <n>h or an ISO 8601 timestamp (default: never)')
    .option('--project <project>', 'bind the token to one project (slug or proj_ id)')
    .action(async (name: string, opts: { scopes: string; expires?: string; project?: string }, cmd: Command) => {
      const ctx = await Context.of(cmd, io);
      const scopes = parseScopes(opts.scopes);
      const client = ctx.client();
      const projectId = opts.project ? (await resolveProject(client, opts.project)).id : undefined;
      const created = await client.call(
        client.api.POST('/access-tokens', {
          body: { name, scopes, ...(opts.expires ? { expires_at: expiryFrom(opts.expires) } : {}), ...(projectId ? { projectId } : {}) },
        }),
      );
      ctx.print(created, () =>
        [
          `Created token ${created.id} "${created.name}" (scopes: ${created.scopes.join(', ')}${created.projectId ? `; project ${created.projectId}` : ''}; expires ${created.expires_at ?? 'never'})`,
          '',
          `  ${created.token}`,
          '',
          'Copy it now: it is not shown again.',
        ].join('\n'),
      );
    });

  pageOptions(tokens.command('list').description('List live tokens, newest first')).action(async (opts: { page: number; limit: number }, cmd: Command) => {
    const ctx = await Context.of(cmd, io);
    const client = ctx.client();
    const result = await client.call(client.api.GET('/access-tokens', { params: { query: { page: opts.page, limit: opts.limit } } }));
    ctx.printPage(result, ['ID', 'NAME', 'SCOPES', 'PREFIX', 'PROJECT', 'EXPIRES', 'LAST USED'], (t) => [
      t.id,
      t.name,
      t.scopes.join(','),
      t.prefix,
      t.projectId,
      t.expires_at ? formatTime(t.expires_at) : 'never',
      formatTime(t.lastUsedAt),
    ]);
  });

  tokens
    .command('revoke')
    .description('Revoke a token; it stops working on its next request')
    .argument('<tokenId>', 'tok_ id (statichost tokens list shows them)')
    .action(async (tokenId: string, _opts, cmd: Command) => {
      const ctx = await Context.of(cmd, io);
      const client = ctx.client();
      await client.call(client.api.DELETE('/access-tokens/{tokenId}', { params: { path: { tokenId } } }));
      ctx.print({ id: tokenId, revoked: true }, () => `Revoked ${tokenId}`);
    });
}
