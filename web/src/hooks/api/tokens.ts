import { keepPreviousData, queryOptions } from '@tanstack/react-query';

import { api, call, inWorkspace, type Schemas } from '../../api';
import type { paths } from '../../sdk';
import { type MutationOptions, useInvalidatingMutation } from './mutation';
import { tokenKeys } from './query-keys';

export type TokenListQuery = NonNullable<paths['/access-tokens']['get']['parameters']['query']>;

export const tokenQueries = {
  /** The tokens page: a page of the list narrowed on the server (GET /access-tokens?search=&status=). */
  list: (workspaceId: string, query: TokenListQuery) =>
    queryOptions({
      queryKey: tokenKeys.list([workspaceId], { ...query }),
      queryFn: () => call(api.GET('/access-tokens', { params: { query }, headers: inWorkspace(workspaceId) })),
      // The next page or search keeps the rows on screen until it arrives, so the table does not jump.
      placeholderData: keepPreviousData,
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
