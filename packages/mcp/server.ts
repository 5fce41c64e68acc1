import { isAbsolute, resolve } from 'node:path';

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';

import { getAnalytics } from '../cli/commands/analytics';
import { envTargets, listEnvVars, putEnvVar } from '../cli/commands/env';
import { connectBody, FORGES, getGitSettings, putGitSettings, rotateWebhookSecret } from '../cli/commands/git';
import { listLeads } from '../cli/commands/leads';
import { listPreviews } from '../cli/commands/previews';
import { VERSION } from '../cli/context';
import { listProjects, resolveDeployment, resolveProject } from '../cli/resolve';
import { collectFiles, deployDigestFirst, getBuild, hashFiles, isBuildFinished, readBuildLog, StatichostApiError, type StatichostClient } from '../sdk';
import { logTail } from './log-tail';

const projectSlug = z.string().min(1).describe('The project’s slug, as in the API’s project_slug (e.g. "my-site"; its id, proj_..., works too)');
const newSlug = z
  .string()
  .regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, 'a lowercase DNS label: letters, digits and dashes')
  .describe('Project slug (the API’s project_slug); the site is served at <slug>.<sites domain>. An unknown slug creates the project.');
const publish = z
  .boolean()
  .optional()
  .describe(
    'false: a preview only. The deployment gets its own address (returned as url) and the live site does not change; promote_deployment makes it live. Default true',
  );
const ttl = z.string().optional().describe('Lifetime of the deployment: "<n>h", "<n>d" or "forever" (default: the project’s, usually 7d)');
const page = z.number().int().min(1).optional().describe('Page number (a number), from 1');
const limit = z.number().int().min(1).max(100).optional().describe('Items per page (a number), at most 100');
const version = z.number().int().min(1).describe('The deployment’s version number (a number, e.g. 3), as list_deployments shows');

// Output schemas: what the tools return, as structuredContent. Loose objects: the
// API may add fields, and a client must not reject an answer for carrying more.
const pageMeta = z.object({ total: z.number().int(), page: z.number().int(), limit: z.number().int(), totalPages: z.number().int() }).loose();
const deploymentOut = {
  id: z.string().describe('dep_...'),
  url: z.string().describe('Where it is served: the site when live, its preview address when published: false'),
  version: z.number().int(),
  size_bytes: z.number().int(),
  expires_at: z.string().nullable(),
};
const deploymentRecord = z.object({ ...deploymentOut, status: z.string().describe('live, archived or expired'), previewUrl: z.string().optional() }).loose();
const projectRecord = z
  .object({
    id: z.string(),
    slug: z.string(),
    name: z.string(),
    gate_type: z.string().optional(),
    custom_domain: z.string().nullable().optional(),
    url: z.string().optional(),
  })
  .loose();
const leadRecord = z.object({ id: z.string(), email: z.string() }).loose();
const buildId = z.string().regex(/^bld_/, 'a build id: bld_...').describe('The build’s id (bld_...), as start_build and list_builds return it');
const buildStatus = z.enum(['queued', 'running', 'ready', 'failed', 'canceled', 'timed_out']);
const buildRecord = z
  .object({
    id: z.string().describe('bld_...'),
    status: buildStatus.describe('queued and running end as ready (deployed), failed, canceled or timed_out'),
    trigger: z.string(),
    ref: z.string(),
    branch: z.string().nullable(),
    commitSha: z.string().nullable(),
    deploymentId: z.string().nullable(),
    url: z.string().nullable().describe('Where the output is served once ready: the site for the production branch, a preview address for other refs'),
    error: z.string().nullable().describe('Why it failed, when it did'),
    pullRequest: z.number().int().nullable().optional(),
    fork: z
      .boolean()
      .optional()
      .describe(
        'Built as code from outside the repository (a fork’s pull request, or a bare commit no build of the repository had checked out): without the project’s environment variables',
      ),
    forgeStatus: z
      .enum(['pending', 'posted', 'failed'])
      .nullable()
      .optional()
      .describe('Whether the commit status and pull request comment reached the forge; null: nothing to post (no access token)'),
    forgeError: z.string().nullable().optional().describe('Why the forge could not be told, when forgeStatus is failed'),
  })
  .loose();
const gitSettingsRecord = z
  .object({
    projectId: z.string(),
    repository: z.string(),
    productionBranch: z.string(),
    hasAccessToken: z.boolean(),
    webhookUrl: z.string(),
    hasWebhookSecret: z.boolean().describe('false: every webhook delivery is refused until rotate_webhook_secret creates a secret'),
    buildForkPullRequests: z.boolean(),
    forge: z.enum(FORGES).nullable().describe('null: inferred from the repository’s host'),
  })
  .loose();
const previewRecord = z
  .object({
    alias: z.string().describe('The DNS label under the sites domain'),
    kind: z.enum(['branch', 'pull_request']),
    branch: z.string().nullable(),
    pullRequest: z.number().int().nullable(),
    url: z.string().describe('The stable address: it always serves the newest ready build of the branch or pull request'),
    deploymentId: z.string(),
    buildId: z.string().nullable(),
    commitSha: z.string().nullable(),
    updatedAt: z.string(),
  })
  .loose();
const envVarRecord = z.object({ name: z.string(), targets: z.array(z.string()), updatedAt: z.string() }).loose();
const optionalSetting = (what: string) =>
  z.string().optional().describe(`${what}; "" goes back to detecting it from the repository at build time; absent keeps the current value`);

/** Bounds of read_build_log: enough to see why a build failed, not a whole log in the agent's context. */
const LOG_LINES_DEFAULT = 200;
const LOG_LINES_MAX = 2000;
const LOG_BYTES_MAX = 64 * 1024;

function ok(result: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(result, null, 2) }], structuredContent: result };
}

/**
 * Tool failures go back to the agent as text it can act on, never as a protocol
 * error. No structuredContent on them: clients check it against the tool's
 * outputSchema, which describes success.
 */
async function run(work: () => Promise<unknown>): Promise<CallToolResult> {
  try {
    return ok((await work()) as Record<string, unknown>);
  } catch (err) {
    const text =
      err instanceof StatichostApiError
        ? `statichost API error (HTTP ${err.status}, ${err.code}): ${err.message}${err.body.missing ? `\nmissing: ${JSON.stringify(err.body.missing)}` : ''}`
        : `Error: ${err instanceof Error ? err.message : String(err)}`;
    return { isError: true, content: [{ type: 'text', text }] };
  }
}

/** A deployment of the project by version number. */
async function deploymentByVersion(client: StatichostClient, projectSlug: string, v: number): Promise<{ projectId: string; deploymentId: string }> {
  const { id } = await resolveProject(client, projectSlug);
  return { projectId: id, deploymentId: await resolveDeployment(client, id, String(v)) };
}

async function updateProject(client: StatichostClient, projectSlug: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { id } = await resolveProject(client, projectSlug);
  return (await client.call(client.api.PATCH('/projects/{projectId}', { params: { path: { projectId: id } }, body: body as never }))) as unknown as Record<
    string,
    unknown
  >;
}

/**
 * The agent-tool server: the statichost API as MCP tools, each with a JSON
 * schema for its input and for its output (structuredContent), acting with the
 * API token it was started with. Argument names are the API's (project_slug).
 */
export function createMcpServer(client: StatichostClient, options: { cwd?: string } = {}): McpServer {
  const server = new McpServer({ name: 'statichost', version: VERSION });
  const cwd = options.cwd ?? process.cwd();

  server.registerTool(
    'deploy_files',
    {
      title: 'Deploy files',
      description:
        'Publish files given inline as a new live deployment of a project (or, with publish: false, a preview at its own address), and return its public URL. ' +
        'Use for generated pages and small sites; for a folder on disk use deploy_directory.',
      inputSchema: {
        project_slug: newSlug,
        files: z
          .array(
            z.object({
              path: z.string().min(1).describe('Path in the site, e.g. "index.html" or "css/site.css"; no leading "/" or ".."'),
              content: z.string().describe('The file’s text, or its bytes in base64 when encoding is "base64"'),
              encoding: z.enum(['utf8', 'base64']).optional().describe('Default utf8'),
            }),
          )
          .min(1)
          .describe('Every file of the site (a deployment replaces the previous one; index.html is served at "/")'),
        ttl,
        publish,
      },
      outputSchema: z.object(deploymentOut).loose(),
      annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    ({ project_slug, files, ttl: lifetime, publish: live }) =>
      run(() =>
        client.call(
          client.api.POST('/v1/deployments', {
            body: { project_slug, type: 'static_file', files, ...(lifetime ? { ttl: lifetime } : {}), ...(live === false ? { publish: false } : {}) },
          }),
        ),
      ),
  );

  server.registerTool(
    'deploy_directory',
    {
      title: 'Deploy a local folder',
      description:
        'Publish a folder of this machine as a new live deployment (or, with publish: false, a preview) and return its public URL. Files are hashed; only those the ' +
        'service does not have yet are uploaded, and nothing is uploaded when the deploy would be refused (plan limits, slug taken). Hidden files, node_modules and ' +
        'symbolic links out of the folder are left out (listed in skipped).',
      inputSchema: {
        directory: z.string().min(1).describe('Folder (or single file) to deploy; relative paths are from the server’s working directory'),
        project_slug: newSlug,
        ttl,
        publish,
      },
      outputSchema: z
        .object({
          ...deploymentOut,
          files: z.number().int().describe('Files deployed'),
          uploaded_files: z.number().int().describe('Files the service lacked and that were uploaded'),
          uploaded_bytes: z.number().int(),
          skipped: z.array(z.object({ path: z.string(), reason: z.string() }).loose()).describe('Left out, with why'),
        })
        .loose(),
      annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    ({ directory, project_slug, ttl: lifetime, publish: live }) =>
      run(async () => {
        const collected = await collectFiles(isAbsolute(directory) ? directory : resolve(cwd, directory));
        if (collected.files.length === 0) throw new Error(`${directory} has no files to deploy`);
        const result = await deployDigestFirst(client, { project: project_slug, ttl: lifetime, publish: live, files: await hashFiles(collected.files) });
        return {
          ...result.deployment,
          files: result.files,
          uploaded_files: result.uploadedFiles,
          uploaded_bytes: result.uploadedBytes,
          skipped: collected.skipped,
        };
      }),
  );

  server.registerTool(
    'list_projects',
    {
      title: 'List projects',
      description: 'The projects of the token’s workspace, newest first, with their slug, public URL, gate and custom domain.',
      inputSchema: { page, limit },
      outputSchema: z.object({ data: z.array(projectRecord), meta: pageMeta }).loose(),
      annotations: { readOnlyHint: true },
    },
    ({ page: p, limit: l }) => run(() => listProjects(client, p ?? 1, l ?? 20)),
  );

  server.registerTool(
    'list_deployments',
    {
      title: 'List deployments',
      description: 'A project’s deployments, newest first: id, version, status (live, archived, expired), url, previewUrl, size and expiry.',
      inputSchema: { project_slug: projectSlug, page, limit },
      outputSchema: z.object({ data: z.array(deploymentRecord), meta: pageMeta }).loose(),
      annotations: { readOnlyHint: true },
    },
    ({ project_slug, page: p, limit: l }) =>
      run(async () => {
        const { id } = await resolveProject(client, project_slug);
        return client.call(
          client.api.GET('/projects/{projectId}/deployments', { params: { path: { projectId: id }, query: { page: p ?? 1, limit: l ?? 20 } } }),
        );
      }),
  );

  /** A PATCH on one version of the project, which answers the deployment. */
  const deploymentAction = (action: 'promote' | 'archive', title: string, description: string, destructiveHint: boolean) =>
    server.registerTool(
      `${action}_deployment`,
      {
        title,
        description,
        inputSchema: { project_slug: projectSlug, version },
        outputSchema: deploymentRecord,
        annotations: { destructiveHint, idempotentHint: true },
      },
      ({ project_slug, version: v }) =>
        run(async () => {
          const { projectId, deploymentId } = await deploymentByVersion(client, project_slug, v);
          return client.call(client.api.PATCH(`/projects/{projectId}/deployments/{deploymentId}/${action}`, { params: { path: { projectId, deploymentId } } }));
        }),
    );
  deploymentAction(
    'promote',
    'Promote a deployment',
    'Make a version of the project the live one: a rollback, or publishing a preview; nothing is re-uploaded.',
    false,
  );
  deploymentAction(
    'archive',
    'Archive a deployment',
    'Archive a version of the project (the token needs the delete scope). Archiving the live version takes the site offline until a deploy or promote.',
    true,
  );

  server.registerTool(
    'set_gate',
    {
      title: 'Set the site’s gate',
      description:
        'Who may open the site: "none" (everyone), "password" (visitors type the password given here) or "email" (visitors leave an email, listed by list_leads). ' +
        'The token needs the admin scope.',
      inputSchema: {
        project_slug: projectSlug,
        gate_type: z.enum(['none', 'password', 'email']).describe('The API’s gate_type'),
        password: z.string().min(8).optional().describe('Required with gate_type "password": at least 8 characters; never returned'),
      },
      outputSchema: projectRecord,
      annotations: { destructiveHint: false, idempotentHint: true },
    },
    ({ project_slug, gate_type, password }) =>
      run(() => {
        if (gate_type === 'password' && !password) throw new Error('password is required with gate_type "password"');
        return updateProject(client, project_slug, { gate_type, ...(password ? { password } : {}) });
      }),
  );

  server.registerTool(
    'add_domain',
    {
      title: 'Attach a custom domain',
      description:
        'Serve the site at a host name of the user’s once DNS proves it is theirs. Returns the project with domainRecords: the TXT and CNAME records the user must create; ' +
        'then call verify_domain. The token needs the admin scope.',
      inputSchema: { project_slug: projectSlug, custom_domain: z.string().min(1).describe('Host name, e.g. "www.example.com" (the API’s custom_domain)') },
      outputSchema: projectRecord,
      annotations: { destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    ({ project_slug, custom_domain }) => run(() => updateProject(client, project_slug, { custom_domain })),
  );

  server.registerTool(
    'verify_domain',
    {
      title: 'Verify a custom domain',
      description:
        'Check the custom domain’s DNS records now: verified true once the TXT record is found (the domain is then served); else what each record should be and what was found.',
      inputSchema: { project_slug: projectSlug },
      outputSchema: z
        .object({
          verified: z.boolean(),
          custom_domain: z.string().nullable(),
          domainStatus: z.string().nullable(),
          records: z.array(z.object({ type: z.string(), name: z.string(), ok: z.boolean() }).loose()),
        })
        .loose(),
      annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: true },
    },
    ({ project_slug }) =>
      run(async () => {
        const { id } = await resolveProject(client, project_slug);
        return client.call(client.api.POST('/projects/{projectId}/verify-domain', { params: { path: { projectId: id } }, body: {} }));
      }),
  );

  server.registerTool(
    'remove_domain',
    {
      title: 'Remove the custom domain',
      description: 'Detach the project’s custom domain; the site stays at its own address. The token needs the admin scope.',
      inputSchema: { project_slug: projectSlug },
      outputSchema: projectRecord,
      annotations: { destructiveHint: true, idempotentHint: true },
    },
    ({ project_slug }) => run(() => updateProject(client, project_slug, { custom_domain: null })),
  );

  server.registerTool(
    'list_leads',
    {
      title: 'List leads',
      description: 'Emails captured by email-gated projects, newest first: one project’s, or every project’s of the workspace.',
      inputSchema: {
        project_slug: projectSlug.optional().describe('Only this project (its slug); default: every project'),
        search: z.string().optional().describe('Only emails containing this text (case-insensitive)'),
        page,
        limit,
      },
      outputSchema: z.object({ data: z.array(leadRecord), meta: pageMeta }).loose(),
      annotations: { readOnlyHint: true },
    },
    ({ project_slug, search, page: p, limit: l }) =>
      run(async () => {
        const projectId = project_slug ? (await resolveProject(client, project_slug)).id : undefined;
        return listLeads(client, { projectId, search, page: p, limit: l });
      }),
  );

  server.registerTool(
    'get_analytics',
    {
      title: 'Get site analytics',
      description:
        'Traffic of a project’s site (UTC): totals (page views, unique visitors, requests, bytes, 4xx, 5xx, bots), a series by hour or day, top pages, top referrers, top 404 paths, and for gated projects the gate funnel (views → unlocks / captured emails). Counted on the server, no cookies, no addresses stored.',
      inputSchema: {
        project_slug: projectSlug,
        from: z.string().optional().describe('ISO 8601 date or UTC time; default 30 days before `to`'),
        to: z.string().optional().describe('ISO 8601 date (included) or UTC time; default now; at most 400 days after `from`'),
        interval: z.enum(['hour', 'day']).optional().describe('Series buckets; default day'),
      },
      outputSchema: z
        .object({ totals: z.object({}).loose(), series: z.array(z.object({}).loose()), funnel: z.object({}).loose().nullable().optional() })
        .loose(),
      annotations: { readOnlyHint: true },
    },
    ({ project_slug, from, to, interval }) =>
      run(async () => {
        const { id } = await resolveProject(client, project_slug);
        return getAnalytics(client, id, { from, to, interval });
      }),
  );

  registerBuildTools(server, client);
  return server;
}

/** Builds from Git: connect a repository, variables, start a build, its status and log. */
function registerBuildTools(server: McpServer, client: StatichostClient): void {
  server.registerTool(
    'connect_git',
    {
      title: 'Connect a Git repository',
      description:
        'Connect the project to a Git repository (an https:// clone URL) so start_build can build it, or change its build settings. Settings not given keep their ' +
        'current value; unset commands are detected from the repository at build time. Builds of productionBranch go live, other refs are previews. ' +
        'The token needs the admin scope. Returns the settings (never the access token) and the webhook URL for push builds.',
      inputSchema: {
        project_slug: projectSlug,
        repository: z.string().min(1).describe('https:// clone URL, e.g. "https://github.com/you/site.git"'),
        productionBranch: z.string().min(1).optional().describe('The branch whose builds go live (default: the current one, else "main")'),
        rootDirectory: z.string().optional().describe('The site’s folder inside the repository; "" for its root'),
        installCommand: optionalSetting('Install command, e.g. "npm ci"'),
        buildCommand: optionalSetting('Build command, e.g. "npm run build"'),
        outputDirectory: optionalSetting('The folder the build writes the site to, relative to rootDirectory, e.g. "dist"'),
        nodeVersion: optionalSetting('Node version the build asks for, e.g. "22"'),
        accessToken: z
          .string()
          .min(1)
          .nullable()
          .optional()
          .describe('Token of a private repository (stored encrypted, never returned); null removes it; absent keeps the stored one'),
        buildForkPullRequests: z
          .boolean()
          .optional()
          .describe('Build pull requests from forks (without the project’s environment variables); absent keeps the setting (default false)'),
        forge: z
          .enum([...FORGES, 'auto'])
          .optional()
          .describe('The forge of the repository, for webhooks, statuses and comments; "auto" infers it from the host; absent keeps the setting'),
      },
      outputSchema: gitSettingsRecord,
      annotations: { destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    ({
      project_slug,
      repository,
      productionBranch,
      rootDirectory,
      installCommand,
      buildCommand,
      outputDirectory,
      nodeVersion,
      accessToken,
      buildForkPullRequests,
      forge,
    }) =>
      run(async () => {
        const { id } = await resolveProject(client, project_slug);
        const current = await getGitSettings(client, id);
        const body = connectBody(
          repository,
          { branch: productionBranch, root: rootDirectory, installCommand, buildCommand, output: outputDirectory, node: nodeVersion },
          current,
        );
        return putGitSettings(client, id, {
          ...body,
          ...(accessToken !== undefined ? { accessToken } : {}),
          ...(buildForkPullRequests !== undefined ? { buildForkPullRequests } : {}),
          ...(forge !== undefined ? { forge: forge === 'auto' ? null : forge } : {}),
        });
      }),
  );

  server.registerTool(
    'rotate_webhook_secret',
    {
      title: 'Create a webhook secret',
      description:
        'Create a new secret for the project’s push webhook and return it with the webhook URL. It is shown only in this answer: give both to the forge ' +
        '(GitHub, Gitea, Forgejo: "Secret", content type application/json; GitLab: "Secret token"; events: push and pull/merge requests). ' +
        'The previous secret stops working at once. Needs the admin scope and a connected repository.',
      inputSchema: { project_slug: projectSlug },
      outputSchema: z.object({ webhookUrl: z.string(), secret: z.string() }).loose(),
      annotations: { destructiveHint: true, idempotentHint: false },
    },
    ({ project_slug }) =>
      run(async () => {
        const { id } = await resolveProject(client, project_slug);
        return rotateWebhookSecret(client, id);
      }),
  );

  server.registerTool(
    'list_previews',
    {
      title: 'List branch and pull request previews',
      description:
        'The project’s live preview addresses: one per branch (other than the production branch) and per open pull request, each serving the newest ready ' +
        'build of it, most recently updated first.',
      inputSchema: { project_slug: projectSlug, page, limit },
      outputSchema: z.object({ data: z.array(previewRecord), meta: pageMeta }).loose(),
      annotations: { readOnlyHint: true },
    },
    ({ project_slug, page: p, limit: l }) =>
      run(async () => {
        const { id } = await resolveProject(client, project_slug);
        return listPreviews(client, id, p ?? 1, l ?? 20);
      }),
  );

  server.registerTool(
    'set_env_var',
    {
      title: 'Set a build environment variable',
      description:
        'Set an environment variable of the project’s builds. The value is stored encrypted, never returned, and masked (***) in build logs. ' +
        'It applies from the next build. The token needs the admin scope.',
      inputSchema: {
        project_slug: projectSlug,
        name: z
          .string()
          .regex(/^[A-Za-z_][A-Za-z0-9_]{0,255}$/, 'letters, digits and _, not starting with a digit')
          .describe('e.g. "API_URL"'),
        value: z.string().describe('The value (write-only)'),
        targets: z
          .array(z.enum(['production', 'preview']))
          .min(1)
          .optional()
          .describe('Builds it applies to: of the production branch, of other refs (previews), or both (default)'),
      },
      outputSchema: envVarRecord,
      annotations: { destructiveHint: false, idempotentHint: true },
    },
    ({ project_slug, name, value, targets }) =>
      run(async () => {
        const { id } = await resolveProject(client, project_slug);
        return putEnvVar(client, id, name, value, targets ?? envTargets({}));
      }),
  );

  server.registerTool(
    'list_env_vars',
    {
      title: 'List build environment variables',
      description: 'The project’s build environment variables: names, targets and when each was set (values are write-only, never shown).',
      inputSchema: { project_slug: projectSlug },
      outputSchema: z.object({ data: z.array(envVarRecord) }).loose(),
      annotations: { readOnlyHint: true },
    },
    ({ project_slug }) =>
      run(async () => {
        const { id } = await resolveProject(client, project_slug);
        return listEnvVars(client, id);
      }),
  );

  server.registerTool(
    'start_build',
    {
      title: 'Start a build',
      description:
        'Build the project from its connected Git repository (connect_git) in a sandbox and deploy the output. A build of the production branch goes live; ' +
        'any other ref is a preview at its own url. Returns the build at once (status queued): follow it with get_build and read_build_log. ' +
        'A newer build of the same branch cancels an older one still running.',
      inputSchema: {
        project_slug: projectSlug,
        ref: z.string().min(1).optional().describe('Branch, tag or commit to build (default: the production branch)'),
      },
      outputSchema: buildRecord,
      annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    ({ project_slug, ref }) =>
      run(async () => {
        const { id } = await resolveProject(client, project_slug);
        return client.call(client.api.POST('/projects/{projectId}/builds', { params: { path: { projectId: id } }, body: ref ? { ref } : {} }));
      }),
  );

  server.registerTool(
    'get_build',
    {
      title: 'Get a build',
      description:
        'A build’s record: status (queued, running, then ready, failed, canceled or timed_out), the commit built, what was detected, the deployment and url once ready, the error once failed.',
      inputSchema: { project_slug: projectSlug, buildId },
      outputSchema: buildRecord,
      annotations: { readOnlyHint: true },
    },
    ({ project_slug, buildId: build }) =>
      run(async () => {
        const { id } = await resolveProject(client, project_slug);
        return getBuild(client, id, build);
      }),
  );

  server.registerTool(
    'list_builds',
    {
      title: 'List builds',
      description: 'The project’s builds, newest first, optionally only one branch’s or one status’s.',
      inputSchema: {
        project_slug: projectSlug,
        branch: z.string().min(1).optional().describe('Only builds of this branch'),
        status: buildStatus.optional().describe('Only builds with this status'),
        page,
        limit,
      },
      outputSchema: z.object({ data: z.array(buildRecord), meta: pageMeta }).loose(),
      annotations: { readOnlyHint: true },
    },
    ({ project_slug, branch, status, page: p, limit: l }) =>
      run(async () => {
        const { id } = await resolveProject(client, project_slug);
        return client.call(
          client.api.GET('/projects/{projectId}/builds', { params: { path: { projectId: id }, query: { branch, status, page: p ?? 1, limit: l ?? 20 } } }),
        );
      }),
  );

  server.registerTool(
    'read_build_log',
    {
      title: 'Read a build’s log',
      description:
        `The end of a build's log so far (its last \`lines\` lines, default ${LOG_LINES_DEFAULT}, at most ${LOG_BYTES_MAX / 1024} KB), each line ` +
        '"<time> [<phase>] <text>" with phases clone, detect, install, build, upload, deploy; secrets show as ***. finished false: the build still runs, read again later.',
      inputSchema: {
        project_slug: projectSlug,
        buildId,
        lines: z.number().int().min(1).max(LOG_LINES_MAX).optional().describe(`How many of the last lines (a number, at most ${LOG_LINES_MAX})`),
      },
      outputSchema: z
        .object({
          buildId: z.string(),
          status: buildStatus,
          finished: z.boolean().describe('true once the build has ended: the log is complete'),
          log: z.string(),
          lines: z.number().int().describe('Lines in log'),
          truncated: z.boolean().describe('Earlier lines were left out'),
        })
        .loose(),
      annotations: { readOnlyHint: true },
    },
    ({ project_slug, buildId: build, lines }) =>
      run(async () => {
        const { id } = await resolveProject(client, project_slug);
        // The record first: a build that ends in between then shows finished: false, never a complete-looking log cut short.
        const record = await getBuild(client, id, build);
        const tail = logTail(await readBuildLog(client, id, build), lines ?? LOG_LINES_DEFAULT, LOG_BYTES_MAX);
        return {
          buildId: record.id,
          status: record.status,
          finished: isBuildFinished(record.status),
          log: tail.text,
          lines: tail.lines,
          truncated: tail.truncated,
        };
      }),
  );

  server.registerTool(
    'cancel_build',
    {
      title: 'Cancel a build',
      description: 'Stop a queued or running build; what is live does not change. A build that already ended answers an error (build_finished).',
      inputSchema: { project_slug: projectSlug, buildId },
      outputSchema: buildRecord,
      annotations: { destructiveHint: true, idempotentHint: true },
    },
    ({ project_slug, buildId: build }) =>
      run(async () => {
        const { id } = await resolveProject(client, project_slug);
        return client.call(client.api.POST('/projects/{projectId}/builds/{buildId}/cancel', { params: { path: { projectId: id, buildId: build } } }));
      }),
  );
}

/** Serves MCP over stdin/stdout until the client closes the stream. */
export async function runStdioServer(client: StatichostClient): Promise<void> {
  const server = createMcpServer(client);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolveClosed) => (transport.onclose = () => resolveClosed()));
  await server.connect(transport);
  await closed;
}
