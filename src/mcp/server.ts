import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isAbsolute, resolve } from 'node:path';
import * as z from 'zod';
import { getAnalytics } from '../cli/commands/analytics';
import { listLeads } from '../cli/commands/leads';
import { listProjects, resolveDeployment, resolveProject } from '../cli/resolve';
import { collectFiles, deployDigestFirst, hashFiles, StatichostApiError, type StatichostClient } from '../sdk';
import { VERSION } from '../cli/context';

const projectRef = z.string().min(1).describe('The project: its slug (e.g. "my-site") or its id (proj_...)');
const slug = z
  .string()
  .regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, 'a lowercase DNS label: letters, digits and dashes')
  .describe('Project slug; the site is served at <slug>.<sites domain>. An unknown slug creates the project.');
const publish = z
  .boolean()
  .optional()
  .describe('false: a preview only. The deployment gets its own address (returned as url) and the live site does not change; promote_deployment makes it live. Default true');
const ttl = z.string().optional().describe('Lifetime of the deployment: "<n>h", "<n>d" or "forever" (default: the project’s, usually 7d)');
const page = z.number().int().min(1).optional().describe('Page number, from 1');
const limit = z.number().int().min(1).max(100).optional().describe('Items per page, at most 100');

function ok(result: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(result, null, 2) }] };
}

/** Tool failures go back to the agent as text it can act on, never as a protocol error. */
async function run(work: () => Promise<unknown>): Promise<CallToolResult> {
  try {
    return ok(await work());
  } catch (err) {
    const text =
      err instanceof StatichostApiError
        ? `statichost API error (HTTP ${err.status}, ${err.code}): ${err.message}${err.body.missing ? `\nmissing: ${JSON.stringify(err.body.missing)}` : ''}`
        : `Error: ${err instanceof Error ? err.message : String(err)}`;
    return { isError: true, content: [{ type: 'text', text }] };
  }
}

/**
 * The agent-tool server: the statichost API as MCP tools, each with a JSON
 * schema (from zod), acting with the API token it was started with.
 */
export function createMcpServer(client: StatichostClient, options: { cwd?: string } = {}): McpServer {
  const server = new McpServer({ name: 'statichost', version: VERSION });
  const cwd = options.cwd ?? process.cwd();

  server.registerTool(
    'deploy_files',
    {
      title: 'Deploy files',
      description:
        'Publish files given inline as a new live deployment of a project (or, with publish: false, a preview), and return its public URL. ' +
        'Use for generated pages and small sites; for a folder on disk use deploy_directory.',
      inputSchema: {
        project: slug,
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
      annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    ({ project, files, ttl: lifetime, publish: live }) =>
      run(() =>
        client.call(
          client.api.POST('/v1/deployments', {
            body: { project_slug: project, type: 'static_file', files, ...(lifetime ? { ttl: lifetime } : {}), ...(live === false ? { publish: false } : {}) },
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
        'service does not have yet are uploaded. Hidden files and node_modules are left out.',
      inputSchema: {
        directory: z.string().min(1).describe('Folder (or single file) to deploy; relative paths are from the server’s working directory'),
        project: slug,
        ttl,
        publish,
      },
      annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    ({ directory, project, ttl: lifetime, publish: live }) =>
      run(async () => {
        const collected = await collectFiles(isAbsolute(directory) ? directory : resolve(cwd, directory));
        if (collected.files.length === 0) throw new Error(`${directory} has no files to deploy`);
        const result = await deployDigestFirst(client, { project, ttl: lifetime, publish: live, files: await hashFiles(collected.files) });
        return { ...result.deployment, files: result.files, uploaded_files: result.uploadedFiles, uploaded_bytes: result.uploadedBytes };
      }),
  );

  server.registerTool(
    'list_projects',
    {
      title: 'List projects',
      description: 'The projects of the token’s workspace, newest first, with their slug, public URL and live deployment.',
      inputSchema: { page, limit },
      annotations: { readOnlyHint: true },
    },
    ({ page: p, limit: l }) => run(() => listProjects(client, p ?? 1, l ?? 20)),
  );

  server.registerTool(
    'list_deployments',
    {
      title: 'List deployments',
      description: 'A project’s deployments, newest first: id, version, status (live, archived, expired), size and expiry.',
      inputSchema: { project: projectRef, page, limit },
      annotations: { readOnlyHint: true },
    },
    ({ project, page: p, limit: l }) =>
      run(async () => {
        const { id } = await resolveProject(client, project);
        return client.call(client.api.GET('/projects/{projectId}/deployments', { params: { path: { projectId: id }, query: { page: p ?? 1, limit: l ?? 20 } } }));
      }),
  );

  server.registerTool(
    'promote_deployment',
    {
      title: 'Promote a deployment',
      description: 'Make an earlier (or the current) deployment the live one: a rollback, nothing is re-uploaded.',
      inputSchema: {
        project: projectRef,
        deployment: z.string().min(1).describe('The deployment: its id (dep_...) or its version number, e.g. "3"'),
      },
      annotations: { destructiveHint: false, idempotentHint: true },
    },
    ({ project, deployment }) =>
      run(async () => {
        const { id } = await resolveProject(client, project);
        const deploymentId = await resolveDeployment(client, id, deployment);
        return client.call(client.api.PATCH('/projects/{projectId}/deployments/{deploymentId}/promote', { params: { path: { projectId: id, deploymentId } } }));
      }),
  );

  server.registerTool(
    'list_leads',
    {
      title: 'List leads',
      description: 'Emails captured by email-gated projects, newest first: one project’s, or every project’s of the workspace.',
      inputSchema: {
        project: projectRef.optional().describe('Only this project (slug or id); default: every project'),
        search: z.string().optional().describe('Only emails containing this text (case-insensitive)'),
        page,
        limit,
      },
      annotations: { readOnlyHint: true },
    },
    ({ project, search, page: p, limit: l }) =>
      run(async () => {
        const projectId = project ? (await resolveProject(client, project)).id : undefined;
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
        project: projectRef,
        from: z.string().optional().describe('ISO 8601 date or UTC time; default 30 days before `to`'),
        to: z.string().optional().describe('ISO 8601 date (included) or UTC time; default now; at most 400 days after `from`'),
        interval: z.enum(['hour', 'day']).optional().describe('Series buckets; default day'),
      },
      annotations: { readOnlyHint: true },
    },
    ({ project, from, to, interval }) =>
      run(async () => {
        const { id } = await resolveProject(client, project);
        return getAnalytics(client, id, { from, to, interval });
      }),
  );

  return server;
}

/** Serves MCP over stdin/stdout until the client closes the stream. */
export async function runStdioServer(client: StatichostClient): Promise<void> {
  const server = createMcpServer(client);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolveClosed) => (transport.onclose = () => resolveClosed()));
  await server.connect(transport);
  await closed;
}
