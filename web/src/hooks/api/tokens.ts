import { queryOptions } from '@tanstack/react-query';

import { api, call, inWorkspace, type Schemas } from '../../api';
import { type MutationOptions, useInvalidatingMutation } from './mutation';
import { tokenKeys } from './query-keys';

export const tokenQueries = {
  list: (workspaceId: string, page: number, limit: number) =>
    queryOptions({
      queryKey: tokenKeys.list([workspaceId], { page, limit }),
      queryFn: () => call(api.GET('/access-tokens', { params: { query: { page, limit } }, headers: inWorkspace(workspaceId) })),
    }),
};

export function useCreateToken(workspaceId: string, options?: MutationOptions<Schemas['CreatedAccessTokenView'], Schemas['CreateAccessTokenDto']>) {
  return useInvalidatingMutation(
    (body: Schemas['CreateAccessTokenDto']) => call(api.POST('/access-tokens', { body, headers: inWorkspace(workspaceId) })),
    (qc) => qc.invalidateQueries({ queryKey: tokenKeys.all(workspaceId) }),
    options,
  );
}

export function useRevokeToken(workspaceId: string, options?: MutationOptions<unknown, string>) {
  return useInvalidatingMutation(
    (tokenId: string) => call(api.DELETE('/access-tokens/{tokenId}', { params: { path: { tokenId } }, headers: inWorkspace(workspaceId) })),
    (qc) => qc.invalidateQueries({ queryKey: tokenKeys.all(workspaceId) }),
    options,
  );
}
