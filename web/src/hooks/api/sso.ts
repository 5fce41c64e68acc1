import { type QueryClient, queryOptions } from '@tanstack/react-query';

import { api, ApiError, call, inWorkspace, type Schemas } from '../../api';
import { type MutationOptions, useInvalidatingMutation } from './mutation';
import { ssoKeys } from './query-keys';

export const ssoQueries = {
  /** The workspace's SSO, or null when none is set up (404 sso_not_configured). */
  get: (workspaceId: string) =>
    queryOptions({
      queryKey: ssoKeys.list([workspaceId], {}),
      queryFn: async (): Promise<Schemas['SsoView'] | null> => {
        try {
          return await call(api.GET('/workspaces/{workspaceId}/sso', { params: { path: { workspaceId } }, headers: inWorkspace(workspaceId) }));
        } catch (err) {
          if (err instanceof ApiError && err.code === 'sso_not_configured') return null;
          throw err;
        }
      },
      retry: false,
    }),
};

const invalidate = (workspaceId: string) => (qc: QueryClient) => qc.invalidateQueries({ queryKey: ssoKeys.all(workspaceId) });

export function usePutSso(workspaceId: string, options?: MutationOptions<Schemas['SsoView'], Schemas['PutSsoDto']>) {
  return useInvalidatingMutation(
    (body: Schemas['PutSsoDto']) =>
      call(api.PUT('/workspaces/{workspaceId}/sso', { params: { path: { workspaceId } }, body, headers: inWorkspace(workspaceId) })),
    invalidate(workspaceId),
    options,
  );
}

export function useDeleteSso(workspaceId: string, options?: MutationOptions<unknown, void>) {
  return useInvalidatingMutation(
    () => call(api.DELETE('/workspaces/{workspaceId}/sso', { params: { path: { workspaceId } }, headers: inWorkspace(workspaceId) })),
    invalidate(workspaceId),
    options,
  );
}

export function useVerifySsoDomain(workspaceId: string, options?: MutationOptions<Schemas['SsoDomainVerificationView'], string>) {
  return useInvalidatingMutation(
    (domain: string) =>
      call(
        api.POST('/workspaces/{workspaceId}/sso/domains/{domain}/verify', {
          params: { path: { workspaceId, domain } },
          body: {},
          headers: inWorkspace(workspaceId),
        }),
      ),
    invalidate(workspaceId),
    options,
  );
}
