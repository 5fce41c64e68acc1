import { queryOptions, useMutation, useQuery } from '@tanstack/react-query';

import { api, call, type Schemas } from '../../api';
import { type MutationOptions, useInvalidatingMutation } from './mutation';
import { meKeys } from './query-keys';

export type Me = Schemas['UserView'];
type MeChange = Schemas['UpdateMeDto'];

export const meQuery = () => queryOptions({ queryKey: meKeys.all(), queryFn: () => call(api.GET('/users/me')) });

export function useMe() {
  return useQuery(meQuery());
}

export function useResendVerification() {
  return useMutation({ mutationFn: () => call(api.POST('/auth/verify-email/resend', { body: {} })) });
}

/** A new name applies at once; a new email is mailed a link and applies when it is followed (the answer is the user as now). */
export function useUpdateMe(options?: MutationOptions<Me, MeChange>) {
  return useInvalidatingMutation(
    (body: MeChange) => call(api.PATCH('/users/me', { body })),
    (queryClient, data) => {
      queryClient.setQueryData(meKeys.all(), data);
      return Promise.resolve();
    },
    options,
  );
}
