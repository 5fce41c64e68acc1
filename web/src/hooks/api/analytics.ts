import { keepPreviousData, queryOptions } from '@tanstack/react-query';

import { api, call, inWorkspace } from '../../api';
import { utcDay } from '../../format';
import { analyticsKeys } from './query-keys';

export const analyticsQueries = {
  /** The last `days` days, by hour (exact times) or by day (whole UTC days, today included); refreshed every minute. */
  range: (workspaceId: string, projectId: string, days: number, interval: 'hour' | 'day') =>
    queryOptions({
      queryKey: analyticsKeys.list([workspaceId, projectId], { days, interval }),
      queryFn: () => {
        const to = new Date();
        const from = new Date(to.getTime() - (days - 1) * 86_400_000);
        const query =
          interval === 'hour'
            ? { from: new Date(to.getTime() - days * 86_400_000).toISOString(), to: to.toISOString(), interval: 'hour' as const }
            : { from: utcDay(from), to: utcDay(to), interval: 'day' as const };
        return call(api.GET('/projects/{projectId}/analytics', { params: { path: { projectId }, query }, headers: inWorkspace(workspaceId) }));
      },
      placeholderData: keepPreviousData,
      refetchInterval: 60_000,
    }),
};
