import { keepPreviousData, type QueryClient, queryOptions } from '@tanstack/react-query';

import { api, call, type Deployment, inWorkspace } from '../../api';
import type { paths } from '../../sdk';
import { type MutationOptions, useInvalidatingMutation } from './mutation';
import { invalidateProjects } from './projects';
import { deploymentKeys } from './query-keys';

export type DeploymentListQuery = NonNullable<paths['/projects/{projectId}/deployments']['get']['parameters']['query']>;

export const deploymentQueries = {
  /** A page of the project's history, narrowed on the server (GET …/deployments?status=&search=). */
  list: (workspaceId: string, projectId: string, query: DeploymentListQuery) =>
    queryOptions({
      queryKey: deploymentKeys.list([workspaceId, projectId], { ...query }),
      queryFn: () => call(api.GET('/projects/{projectId}/deployments', { params: { path: { projectId }, query }, headers: inWorkspace(workspaceId) })),
      // The next page or search keeps the rows on screen until it arrives, so the table does not jump.
      placeholderData: keepPreviousData,
    }),
  detail: (workspaceId: string, projectId: string, deploymentId: string) =>
    queryOptions({
      queryKey: deploymentKeys.detail([workspaceId, projectId], deploymentId),
      queryFn: () =>
        call(api.GET('/projects/{projectId}/deployments/{deploymentId}', { params: { path: { projectId, deploymentId } }, headers: inWorkspace(workspaceId) })),
    }),
};

/** A deployment came, went live or was archived: the project's deployments, the project, its lists. */
export async function invalidateDeployments(queryClient: QueryClient, workspaceId: string, projectId: string) {
  await queryClient.invalidateQueries({ queryKey: deploymentKeys.all(workspaceId, projectId) });
  await invalidateProjects(queryClient, workspaceId);
}

export type DeploymentAction = { kind: 'promote' | 'archive'; deployment: Deployment };

export function useDeploymentAction(workspaceId: string, projectId: string, options?: MutationOptions<Deployment, DeploymentAction>) {
  return useInvalidatingMutation(
    ({ kind, deployment }: DeploymentAction) => {
      const init = { params: { path: { projectId, deploymentId: deployment.id } }, headers: inWorkspace(workspaceId) };
      return call(
        kind === 'promote'
          ? api.PATCH('/projects/{projectId}/deployments/{deploymentId}/promote', init)
          : api.PATCH('/projects/{projectId}/deployments/{deploymentId}/archive', init),
      );
    },
    (qc) => invalidateDeployments(qc, workspaceId, projectId),
    options,
  );
}
