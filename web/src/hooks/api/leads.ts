import { keepPreviousData, queryOptions } from '@tanstack/react-query';

import { api, call, errorOf, inWorkspace, transport } from '../../api';
import { type MutationOptions, useInvalidatingMutation } from './mutation';
import { leadKeys } from './query-keys';

export type Lead = { id: string; email: string; capturedAt: string; projectId: string; projectName?: string; projectSlug?: string };
export type LeadPage = { data: Lead[]; meta: { total: number; page: number; limit: number; totalPages: number } };

export const leadQueries = {
  /**
   * `single`: the leads of `projectId` from the project's own route (its tab); else the
   * workspace's, filtered by `projectId` when one is chosen.
   */
  list: (
    workspaceId: string,
    { projectId, single, search, page, limit }: { projectId?: string; single: boolean; search: string; page: number; limit: number },
  ) =>
    queryOptions({
      queryKey: leadKeys.list([workspaceId], { projectId: projectId ?? null, single, search, page, limit }),
      queryFn: async (): Promise<LeadPage> =>
        projectId && single
          ? call(
              api.GET('/projects/{projectId}/gate/leads', {
                params: { path: { projectId }, query: { page, limit, ...(search ? { search } : {}) } },
                headers: inWorkspace(workspaceId),
              }),
            ).then((r) => ({ ...r, data: r.data.map((l) => ({ ...l, projectId })) }))
          : call(
              api.GET('/projects/gate/leads', {
                params: { query: { page, limit, ...(search ? { search } : {}), ...(projectId ? { projectId } : {}) } },
                headers: inWorkspace(workspaceId),
              }),
            ),
      // The previous page stays on screen while the next one loads (no flash of "loading").
      placeholderData: keepPreviousData,
    }),
};

export function useEraseLead(workspaceId: string, options?: MutationOptions<unknown, Lead>) {
  return useInvalidatingMutation(
    (lead: Lead) =>
      call(
        api.DELETE('/projects/{projectId}/gate/leads/{leadId}', {
          params: { path: { projectId: lead.projectId, leadId: lead.id } },
          headers: inWorkspace(workspaceId),
        }),
      ),
    (qc) => qc.invalidateQueries({ queryKey: leadKeys.all(workspaceId) }),
    options,
  );
}

/** The CSV export of a project's leads (with the session's credentials, so not a plain link). */
export async function fetchLeadsCsv(workspaceId: string, projectId: string, search: string): Promise<Blob> {
  const url = new URL(`/projects/${encodeURIComponent(projectId)}/gate/leads/export`, window.location.origin);
  if (search) url.searchParams.set('search', search);
  const response = await transport.authorizedFetch(new Request(url, { headers: inWorkspace(workspaceId) }));
  if (!response.ok) throw await errorOf(response);
  return response.blob();
}
