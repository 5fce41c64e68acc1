import { keepPreviousData, queryOptions, useMutation } from '@tanstack/react-query';

import { api, call, errorOf, inWorkspace, type Schemas, transport } from '../../api';
import { auditKeys } from './query-keys';

export type AuditEntry = Schemas['AuditEntryView'];
export type AuditVerify = Schemas['AuditVerifyView'];

/** The filters of the list and the export; empty ones are left out of the query. */
export interface AuditFilters {
  from?: string;
  to?: string;
  actor?: string;
  action?: string;
  target?: string;
}

const present = (filters: AuditFilters) => Object.fromEntries(Object.entries(filters).filter(([, v]) => typeof v === 'string' && v !== '')) as AuditFilters;

export const auditQueries = {
  list: (workspaceId: string, filters: AuditFilters, page: number, limit: number) =>
    queryOptions({
      queryKey: auditKeys.list([workspaceId], { ...present(filters), page, limit }),
      queryFn: () =>
        call(
          api.GET('/workspaces/{workspaceId}/audit-log', {
            params: { path: { workspaceId }, query: { ...present(filters), page, limit } },
            headers: inWorkspace(workspaceId),
          }),
        ),
      placeholderData: keepPreviousData,
    }),
};

/** Checks the chain on demand (it reads the whole log). */
export function useVerifyAuditLog(workspaceId: string) {
  return useMutation({
    mutationFn: () => call(api.GET('/workspaces/{workspaceId}/audit-log/verify', { params: { path: { workspaceId } }, headers: inWorkspace(workspaceId) })),
  });
}

/** The CSV export with the session's credentials (so not a plain link). */
export async function fetchAuditCsv(workspaceId: string, filters: AuditFilters): Promise<Blob> {
  const url = new URL(`/workspaces/${encodeURIComponent(workspaceId)}/audit-log/export`, window.location.origin);
  for (const [name, value] of Object.entries(present(filters))) url.searchParams.set(name, value as string);
  const response = await transport.authorizedFetch(new Request(url, { headers: inWorkspace(workspaceId) }));
  if (!response.ok) throw await errorOf(response);
  return response.blob();
}
