import { queryOptions } from '@tanstack/react-query';

import type { PreviewPage } from '../../api';
import { pendingCall } from './pending';
import { previewKeys } from './query-keys';

export const previewQueries = {
  /** The project's live preview addresses, the most recently moved first. */
  list: (workspaceId: string, projectId: string, page: number, limit: number) =>
    queryOptions({
      queryKey: previewKeys.list([workspaceId, projectId], { page, limit }),
      queryFn: () => pendingCall<PreviewPage>('GET', `/projects/${encodeURIComponent(projectId)}/previews?page=${page}&limit=${limit}`, workspaceId),
    }),
};
