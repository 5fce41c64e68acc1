import { keepPreviousData, type QueryClient, queryOptions } from '@tanstack/react-query';

import { api, call, inWorkspace, type Schemas } from '../../api';
import type { paths } from '../../sdk';
import { type MutationOptions, useInvalidatingMutation } from './mutation';
import { projectKeys } from './query-keys';

/** GET /projects's query as the SDK types it. */
export type ProjectListQuery = NonNullable<paths['/projects']['get']['parameters']['query']>;

export const projectQueries = {
  list: (workspaceId: string, page: number, limit: number) =>
    queryOptions({
      queryKey: projectKeys.list([workspaceId], { page, limit }),
      queryFn: () => call(api.GET('/projects', { params: { query: { page, limit } }, headers: inWorkspace(workspaceId) })),
    }),
  /** The projects page: a page of the list narrowed and ordered on the server (GET /projects?search=&sort=&status=). */
  search: (workspaceId: string, query: ProjectListQuery) =>
    queryOptions({
      queryKey: projectKeys.list([workspaceId], { ...query }),
      queryFn: () => call(api.GET('/projects', { params: { query }, headers: inWorkspace(workspaceId) })),
      // The next page or search keeps the rows on screen until it arrives, so the table does not jump.
      placeholderData: keepPreviousData,
    }),
  /** Projects to pick from (a token's project, the leads filter): the first 100. */
  names: (workspaceId: string) => projectQueries.list(workspaceId, 1, 100),
  detail: (workspaceId: string, projectId: string) =>
    queryOptions({
      queryKey: projectKeys.detail([workspaceId], projectId),
      queryFn: () => call(api.GET('/projects/{projectId}', { params: { path: { projectId } }, headers: inWorkspace(workspaceId) })),
    }),
};

/** A project changed (settings, a deploy, a promotion): its page and every list that shows it. */
export function invalidateProjects(queryClient: QueryClient, workspaceId: string) {
  return queryClient.invalidateQueries({ queryKey: projectKeys.all(workspaceId) });
}

const createProject = (workspaceId: string) => (body: Schemas['CreateProjectDto']) => call(api.POST('/projects', { body, headers: inWorkspace(workspaceId) }));
type CreatedProject = Awaited<ReturnType<ReturnType<typeof createProject>>>;

export function useCreateProject(workspaceId: string, options?: MutationOptions<CreatedProject, Schemas['CreateProjectDto']>) {
  return useInvalidatingMutation(createProject(workspaceId), (qc) => invalidateProjects(qc, workspaceId), options);
}

export function useDeleteProject(workspaceId: string, options?: MutationOptions<unknown, string>) {
  return useInvalidatingMutation(
    (projectId: string) => call(api.DELETE('/projects/{projectId}', { params: { path: { projectId } }, headers: inWorkspace(workspaceId) })),
    (qc) => invalidateProjects(qc, workspaceId),
    options,
  );
}

export function useUpdateProject(workspaceId: string, projectId: string, options?: MutationOptions<unknown, Schemas['UpdateProjectDto']>) {
  return useInvalidatingMutation(
    (body: Schemas['UpdateProjectDto']): Promise<unknown> =>
      call(api.PATCH('/projects/{projectId}', { params: { path: { projectId } }, body, headers: inWorkspace(workspaceId) })),
    (qc) => invalidateProjects(qc, workspaceId),
    options,
  );
}

export function useVerifyDomain(workspaceId: string, projectId: string) {
  return useInvalidatingMutation(
    () => call(api.POST('/projects/{projectId}/verify-domain', { params: { path: { projectId } }, body: {}, headers: inWorkspace(workspaceId) })),
    (qc) => invalidateProjects(qc, workspaceId),
  );
}
