import { type Command, InvalidArgumentError } from 'commander';

import type { paths, ResponseBody, StatichostClient } from '../../sdk';
import { CliError, Context, type Io } from '../context';
import { formatTime, table } from '../format';
import { projectFromFlagOrLink } from '../resolve';
import { projectOption } from './git';
import { askHidden, readStdin } from './shared';

export type EnvVar = ResponseBody<'/projects/{projectId}/env/{name}', 'put'>;
export type EnvTarget = NonNullable<paths['/projects/{projectId}/env/{name}']['put']['requestBody']>['content']['application/json']['targets'][number];

/** The API's rule for a name, checked here too so a typo fails before a prompt asks for the value. */
const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,255}$/;

export function envName(value: string): string {
  if (!NAME.test(value)) throw new InvalidArgumentError('must be letters, digits and _, not starting with a digit (at most 256)');
  return value;
}

/** --production / --preview → the targets; neither flag means both, as Netlify and Vercel default to every context. */
export function envTargets(flags: { production?: boolean; preview?: boolean }): EnvTarget[] {
  if (!flags.production && !flags.preview) return ['production', 'preview'];
  return [...(flags.production ? (['production'] as const) : []), ...(flags.preview ? (['preview'] as const) : [])];
}

/** `PUT /projects/{projectId}/env/{name}` (shared by the CLI and the MCP tool); the answer never holds the value. */
export function putEnvVar(client: StatichostClient, projectId: string, name: string, value: string, targets: EnvTarget[]): Promise<EnvVar> {
  return client.call(client.api.PUT('/projects/{projectId}/env/{name}', { params: { path: { projectId, name } }, body: { value, targets } }));
}

export function listEnvVars(client: StatichostClient, projectId: string): Promise<ResponseBody<'/projects/{projectId}/env', 'get'>> {
  return client.call(client.api.GET('/projects/{projectId}/env', { params: { path: { projectId } } }));
}

export function envCommands(program: Command, io: Io): void {
  const env = program
    .command('env')
    .description(
      'Environment variables of the project’s builds: values are write-only (never shown again) and masked in build logs (needs the admin scope to change)',
    );

  projectOption(
    env
      .command('set')
      .description(
        'Set a variable; the value is typed at a hidden prompt, or read from stdin (`statichost env set API_KEY < key.txt`), never taken from the command line',
      )
      .argument('<NAME>', 'letters, digits and _', envName)
      .option('--production', 'only for builds of the production branch')
      .option('--preview', 'only for builds of other branches (previews)')
      .option('--value-stdin', 'read the value from stdin even on a terminal (no prompt)'),
  ).action(async (name: string, opts: { production?: boolean; preview?: boolean; valueStdin?: boolean; project?: string }, cmd: Command) => {
    const ctx = await Context.of(cmd, io);
    // Only a final line break goes: a value may span lines (a certificate), and `echo` adds one.
    const value = opts.valueStdin || !io.stdin.isTTY ? await readStdin(io) : await askHidden(io, `Value of ${name} (hidden): `);
    if (value === '') {
      throw new CliError(
        `No value for ${name}: type it at the prompt or pipe it on stdin (an empty value is refused, to catch a forgotten pipe)`,
        2,
        'no_value',
      );
    }
    const client = ctx.client();
    const project = await projectFromFlagOrLink(client, opts.project);
    const saved = await putEnvVar(client, project.id, name, value, envTargets(opts));
    ctx.print(saved, () => `Set ${saved.name} for ${saved.targets.join(' and ')} builds of ${project.slug}; the next build uses it`);
  });

  projectOption(env.command('ls').alias('list').description('List the variables: names and targets (values are never shown)')).action(
    async (opts: { project?: string }, cmd: Command) => {
      const ctx = await Context.of(cmd, io);
      const client = ctx.client();
      const project = await projectFromFlagOrLink(client, opts.project);
      const vars = await listEnvVars(client, project.id);
      ctx.print(vars, () =>
        vars.data.length === 0
          ? `${project.slug} has no environment variables (statichost env set NAME adds one)`
          : table(
              ['NAME', 'TARGETS', 'UPDATED'],
              vars.data.map((v) => [v.name, v.targets.join(','), formatTime(v.updatedAt)]),
            ),
      );
    },
  );

  projectOption(env.command('rm').alias('remove').description('Remove a variable').argument('<NAME>', 'the variable’s name')).action(
    async (name: string, opts: { project?: string }, cmd: Command) => {
      const ctx = await Context.of(cmd, io);
      const client = ctx.client();
      const project = await projectFromFlagOrLink(client, opts.project);
      await client.call(client.api.DELETE('/projects/{projectId}/env/{name}', { params: { path: { projectId: project.id, name } } }));
      ctx.print({ name, removed: true }, () => `Removed ${name} from ${project.slug}`);
    },
  );
}
