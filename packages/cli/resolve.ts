import type { StatichostClient } from '../sdk';
import { CliError } from './context';
import { LINK_FILE, readLink } from './link';

/**
 * The project view (GET /projects). Its route does not declare a response schema
 * yet, so the generated types say nothing about it; these are the fields the CLI
 * and the MCP tools read.
 */
export interface ProjectRecord {
  id: string;
  name: string;
  slug: string;
  type: string;
  default_ttl: string;
  gate_type?: string;
  custom_domain?: string | null;
  liveDeploymentId?: string | null;
  url?: string;
  createdAt: string;
}

export interface Page<T> {
  data: T[];
  meta: { total: number; page: number; limit: number; totalPages: number };
}

export async function listProjects(client: StatichostClient, page: number, limit: number): Promise<Page<ProjectRecord>> {
  return (await client.call(client.api.GET('/projects', { params: { query: { page, limit } } }))) as unknown as Page<ProjectRecord>;
}

/** A project by id (`proj_...`) or by slug, in the token's workspace. */
export async function resolveProject(client: StatichostClient, ref: string): Promise<ProjectRecord> {
  if (ref.startsWith('proj_')) {
    return (await client.call(client.api.GET('/projects/{projectId}', { params: { path: { projectId: ref } } }))) as unknown as ProjectRecord;
  }
  for (let page = 1; ; page++) {
    const result = await listProjects(client, page, 100);
    const found = result.data.find((p) => p.slug === ref);
    if (found) return found;
    if (page >= result.meta.totalPages) break;
  }
  throw new CliError(`No project "${ref}" in this workspace (give its slug or its proj_ id; statichost projects list shows them)`, 1, 'project_not_found');
}

/** A deployment id: `dep_...` as is, or a version number of the project. */
export async function resolveDeployment(client: StatichostClient, projectId: string, ref: string): Promise<string> {
  if (ref.startsWith('dep_')) return ref;
  const version = /^v?(\d+)$/.exec(ref)?.[1];
  if (!version) throw new CliError(`"${ref}" is neither a deployment id (dep_...) nor a version number`, 2);
  for (let page = 1; ; page++) {
    const result = await client.call(client.api.GET('/projects/{projectId}/deployments', { params: { path: { projectId }, query: { page, limit: 100 } } }));
    const found = result.data.find((d) => d.version === Number(version));
    if (found) return found.id;
    if (page >= result.meta.totalPages) break;
  }
  throw new CliError(`The project has no deployment with version ${version}`, 1, 'deployment_not_found');
}

/**
 * The project a command is about: --project (slug or id), else the one the current
 * folder is linked to by a deploy (.statichost/project.json).
 */
export async function projectFromFlagOrLink(client: StatichostClient, ref: string | undefined, cwd = process.cwd()): Promise<ProjectRecord> {
  if (ref) return resolveProject(client, ref);
  const link = await readLink(cwd);
  if (!link) throw new CliError(`Which project? Pass --project <slug>, or run this in a folder deployed before (it has ${LINK_FILE})`, 2, 'no_project');
  return resolveProject(client, link.project_id ?? link.project_slug);
}
