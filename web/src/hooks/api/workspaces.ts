import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';

import { api, call, inWorkspace, type Schemas } from '../../api';
import type { paths } from '../../sdk';
import { type MutationOptions, useInvalidatingMutation } from './mutation';
import { invitationKeys, memberKeys, workspaceKeys } from './query-keys';

type Member = Schemas['MemberView'];

export const workspaceQueries = {
  list: () => queryOptions({ queryKey: workspaceKeys.list([]), queryFn: () => call(api.GET('/workspaces', { params: { query: { limit: 100 } } })) }),
  detail: (workspaceId: string) =>
    queryOptions({
      queryKey: workspaceKeys.detail([], workspaceId),
      queryFn: () => call(api.GET('/workspaces/{workspaceId}', { params: { path: { workspaceId } }, headers: inWorkspace(workspaceId) })),
    }),
};

export const useWorkspaces = () => useQuery(workspaceQueries.list());

export type MemberListQuery = NonNullable<paths['/workspaces/{workspaceId}/members']['get']['parameters']['query']>;

export const memberQueries = {
  /** The members page: a page of members and invitations narrowed on the server (?search=&role=&status=). */
  list: (workspaceId: string, query: MemberListQuery) =>
    queryOptions({
      queryKey: memberKeys.list([workspaceId], { ...query }),
      queryFn: () => call(api.GET('/workspaces/{workspaceId}/members', { params: { path: { workspaceId }, query }, headers: inWorkspace(workspaceId) })),
      // The next page or search keeps the rows on screen until it arrives, so the table does not jump.
      placeholderData: keepPreviousData,
    }),
};

export function useInviteMember(workspaceId: string, options?: MutationOptions<Member, Schemas['InviteMemberDto']>) {
  return useInvalidatingMutation(
    (body: Schemas['InviteMemberDto']) =>
      call(api.POST('/workspaces/{workspaceId}/members', { params: { path: { workspaceId } }, body, headers: inWorkspace(workspaceId) })),
    (qc) => qc.invalidateQueries({ queryKey: memberKeys.all(workspaceId) }),
    options,
  );
}

/** `self`: the user leaves the workspace; then only the list of workspaces changes for them. */
export function useRemoveMember(workspaceId: string, options?: MutationOptions<unknown, { member: Member; self: boolean }>) {
  return useInvalidatingMutation(
    ({ member }: { member: Member; self: boolean }) =>
      call(
        api.DELETE('/workspaces/{workspaceId}/members/{memberId}', {
          params: { path: { workspaceId, memberId: member.id } },
          headers: inWorkspace(workspaceId),
        }),
      ),
    (qc, _data, { self }) => qc.invalidateQueries({ queryKey: self ? workspaceKeys.all() : memberKeys.all(workspaceId) }),
    options,
  );
}

export const invitationQueries = {
  list: () => queryOptions({ queryKey: invitationKeys.list([]), queryFn: () => call(api.GET('/invitations', { params: { query: { limit: 100 } } })) }),
};

export function useAcceptInvitation(options?: MutationOptions<Member, string>) {
  return useInvalidatingMutation(
    (memberId: string) => call(api.POST('/invitations/{memberId}/accept', { params: { path: { memberId } }, body: {} })),
    async (qc) => {
      await qc.invalidateQueries({ queryKey: workspaceKeys.all() });
      await qc.invalidateQueries({ queryKey: invitationKeys.all() });
    },
    options,
  );
}
