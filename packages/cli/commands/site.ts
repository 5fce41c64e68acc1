import { type Command, InvalidArgumentError } from 'commander';

import type { StatichostClient } from '../../sdk';
import { CliError, Context, type Io } from '../context';
import { table } from '../format';
import { projectFromFlagOrLink, type ProjectRecord } from '../resolve';
import { readSecret } from './shared';

const GATES = ['none', 'password', 'email'] as const;
type Gate = (typeof GATES)[number];

interface DomainRecord {
  type: string;
  name: string;
  value: string;
}
type ProjectWithDomain = ProjectRecord & { domainStatus?: string | null; domainRecords?: DomainRecord[] | null };

const projectOption = (cmd: Command) => cmd.option('-p, --project <project>', 'slug or proj_ id (default: the project this folder was deployed to)');

/** PATCH /projects/:id (needs the admin scope). */
async function updateProject(client: StatichostClient, projectId: string, body: Record<string, unknown>): Promise<ProjectWithDomain> {
  return (await client.call(
    client.api.PATCH('/projects/{projectId}', { params: { path: { projectId } }, body: body as never }),
  )) as unknown as ProjectWithDomain;
}

function records(list: DomainRecord[] | null | undefined): string {
  return list && list.length > 0
    ? table(
        ['TYPE', 'NAME', 'VALUE'],
        list.map((r) => [r.type, r.name, r.value]),
      )
    : '';
}

/** gate and domain: what the dashboard's project settings do, and what needed curl before. */
export function siteCommands(program: Command, io: Io): void {
  const gate = program
    .command('gate')
    .description('Who may open the site: everyone (none), visitors with a password, or visitors who leave an email (needs the admin scope)');
  projectOption(
    gate
      .command('set')
      .description('Set the gate; a password gate takes the password from $STATICHOST_GATE_PASSWORD, a prompt, or stdin')
      .argument('<gate>', GATES.join(' | '), (value: string) => {
        if (!(GATES as readonly string[]).includes(value)) throw new InvalidArgumentError(`must be one of ${GATES.join(', ')}`);
        return value as Gate;
      }),
  ).action(async (gateType: Gate, opts: { project?: string }, cmd: Command) => {
    const ctx = await Context.of(cmd, io);
    const client = ctx.client();
    const password = gateType === 'password' ? await readSecret(io, 'STATICHOST_GATE_PASSWORD', 'Site password (8+ characters): ') : undefined;
    const project = await projectFromFlagOrLink(client, opts.project);
    const updated = await updateProject(client, project.id, { gate_type: gateType, ...(password !== undefined ? { password } : {}) });
    ctx.print(updated, () =>
      gateType === 'none'
        ? `${updated.slug} is public: ${updated.url}`
        : gateType === 'password'
          ? `${updated.slug} asks for the password: ${updated.url}`
          : `${updated.slug} asks visitors for their email (statichost leads list --project ${updated.slug}): ${updated.url}`,
    );
  });

  const domain = program.command('domain').description('Serve the site at your own host name once DNS proves it is yours (needs the admin scope)');
  projectOption(
    domain
      .command('add')
      .description('Attach a host name; prints the DNS records to create, then run `statichost domain verify`')
      .argument('<domain>', 'host name, e.g. www.example.com'),
  ).action(async (name: string, opts: { project?: string }, cmd: Command) => {
    const ctx = await Context.of(cmd, io);
    const client = ctx.client();
    const project = await projectFromFlagOrLink(client, opts.project);
    const updated = await updateProject(client, project.id, { custom_domain: name });
    ctx.print(updated, () =>
      [
        `${updated.custom_domain} is attached to ${updated.slug} (${updated.domainStatus ?? 'pending'}). Create these DNS records, then run: statichost domain verify --project ${updated.slug}`,
        records(updated.domainRecords),
      ]
        .filter(Boolean)
        .join('\n'),
    );
  });

  projectOption(domain.command('verify').description('Check the DNS records now; exit 1 while the domain is not verified')).action(
    async (opts: { project?: string }, cmd: Command) => {
      const ctx = await Context.of(cmd, io);
      const client = ctx.client();
      const project = await projectFromFlagOrLink(client, opts.project);
      const result = (await client.call(
        client.api.POST('/projects/{projectId}/verify-domain', { params: { path: { projectId: project.id } }, body: {} }),
      )) as unknown as {
        verified: boolean;
        custom_domain?: string;
        domainStatus: string;
        records: { type: string; name: string; expected?: string; found?: string[] | string | null; ok: boolean; error?: string | null }[];
      };
      ctx.print(result, () =>
        [
          result.verified
            ? `${result.custom_domain ?? 'The domain'} is verified and served.`
            : `${result.custom_domain ?? 'The domain'} is not verified yet (${result.domainStatus}).`,
          table(
            ['TYPE', 'NAME', 'EXPECTED', 'FOUND', 'OK'],
            result.records.map((r) => [r.type, r.name, r.expected, Array.isArray(r.found) ? r.found.join(', ') : (r.found ?? r.error), r.ok ? 'yes' : 'no']),
          ),
        ].join('\n'),
      );
      // Scripts can wait for DNS with `until statichost domain verify; do sleep 60; done`.
      if (!result.verified)
        throw new CliError(`${result.custom_domain ?? 'The domain'} is not verified yet: its TXT record was not found`, 1, 'domain_not_verified');
    },
  );

  projectOption(domain.command('remove').description('Detach the host name; the site stays at its own address')).action(
    async (opts: { project?: string }, cmd: Command) => {
      const ctx = await Context.of(cmd, io);
      const client = ctx.client();
      const project = (await projectFromFlagOrLink(client, opts.project)) as ProjectWithDomain;
      if (!project.custom_domain) throw new CliError(`${project.slug} has no custom domain`, 1, 'no_custom_domain');
      const updated = await updateProject(client, project.id, { custom_domain: null });
      ctx.print(updated, () => `Removed ${project.custom_domain} from ${updated.slug}; it is served at ${updated.url}`);
    },
  );
}
