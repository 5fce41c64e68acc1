import { queryOptions } from '@tanstack/react-query';

import { api, call, inWorkspace } from '../../api';
import { previewKeys } from './query-keys';

export const previewQueries = {
  /** The project's live preview addresses, the most recently moved first. */
  list: (workspaceId: string, projectId: string, page: number, limit: number) =>
    queryOptions({
      queryKey: previewKeys.list([workspaceId, projectId], { page, limit }),
      queryFn: () =>
        call(api.GET('/projects/{projectId}/previews', { params: { path: { projectId }, query: { page, limit } }, headers: inWorkspace(workspaceId) })),
    }),
};
