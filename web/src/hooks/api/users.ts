import { queryOptions, useMutation, useQuery } from '@tanstack/react-query';

import { api, call } from '../../api';
import { meKeys } from './query-keys';

export const meQuery = () => queryOptions({ queryKey: meKeys.all(), queryFn: () => call(api.GET('/users/me')) });

export function useMe() {
  return useQuery(meQuery());
}

export function useResendVerification() {
  return useMutation({ mutationFn: () => call(api.POST('/auth/verify-email/resend', { body: {} })) });
}
