import { type QueryClient, queryOptions } from '@tanstack/react-query';

import { api, type Build, call, errorOf, inWorkspace, transport } from '../../api';
import { isActive, readTextStream } from '../../builds';
import { invalidateDeployments } from './deployments';
import { type MutationOptions, useInvalidatingMutation } from './mutation';
import { buildKeys, previewKeys } from './query-keys';

/** How often a page asks again while a build is queued or running (and never otherwise). */
export const LIVE_POLL_MS = 2000;

export type BuildFilter = { branch?: string; status?: Build['status'] };

export const buildQueries = {
  list: (workspaceId: string, projectId: string, page: number, limit: number, filter: BuildFilter = {}) =>
    queryOptions({
      queryKey: buildKeys.list([workspaceId, projectId], { page, limit, ...filter }),
      queryFn: () =>
        call(
          api.GET('/projects/{projectId}/builds', {
            params: { path: { projectId }, query: { page, limit, ...filter } },
            headers: inWorkspace(workspaceId),
          }),
        ),
      refetchInterval: (query) => (query.state.data?.data.some((b) => isActive(b.status)) ? LIVE_POLL_MS : false),
    }),
  detail: (workspaceId: string, projectId: string, buildId: string) =>
    queryOptions({
      queryKey: buildKeys.detail([workspaceId, projectId], buildId),
      queryFn: () => call(api.GET('/projects/{projectId}/builds/{buildId}', { params: { path: { projectId, buildId } }, headers: inWorkspace(workspaceId) })),
      refetchInterval: (query) => (query.state.data && isActive(query.state.data.status) ? LIVE_POLL_MS : false),
    }),
};

/** A build started, ended or was canceled: the project's builds, its deployments (a ready build made one) and previews (its alias moved). */
export async function invalidateBuilds(queryClient: QueryClient, workspaceId: string, projectId: string) {
  await queryClient.invalidateQueries({ queryKey: buildKeys.all(workspaceId, projectId) });
  await queryClient.invalidateQueries({ queryKey: previewKeys.all(workspaceId, projectId) });
  await invalidateDeployments(queryClient, workspaceId, projectId);
}

export function useStartBuild(workspaceId: string, projectId: string, options?: MutationOptions<Build, { ref?: string }>) {
  return useInvalidatingMutation(
    (body: { ref?: string }) => call(api.POST('/projects/{projectId}/builds', { params: { path: { projectId } }, body, headers: inWorkspace(workspaceId) })),
    (qc) => invalidateBuilds(qc, workspaceId, projectId),
    options,
  );
}

export function useCancelBuild(workspaceId: string, projectId: string, options?: MutationOptions<Build, string>) {
  return useInvalidatingMutation(
    (buildId: string) =>
      call(api.POST('/projects/{projectId}/builds/{buildId}/cancel', { params: { path: { projectId, buildId } }, headers: inWorkspace(workspaceId) })),
    (qc) => invalidateBuilds(qc, workspaceId, projectId),
    options,
  );
}

/**
 * A build's log, followed until the build ends (`?follow=1`: the server keeps the answer
 * open and sends each line as it is written), each piece handed to `onText`. Through the
 * transport, so it carries the session's JWT (and refreshes it once on a 401) like every
 * other request; not an EventSource, which cannot send an Authorization header.
 */
export async function followBuildLog(
  workspaceId: string,
  projectId: string,
  buildId: string,
  onText: (text: string) => void,
  signal: AbortSignal,
): Promise<void> {
  const path = `/projects/${encodeURIComponent(projectId)}/builds/${encodeURIComponent(buildId)}/logs?follow=1`;
  const response = await transport.authorizedFetch(new Request(new URL(path, window.location.origin), { headers: inWorkspace(workspaceId), signal }));
  if (!response.ok) throw await errorOf(response);
  if (!response.body) {
    onText(await response.text());
    return;
  }
  await readTextStream(response.body, onText, signal);
}
