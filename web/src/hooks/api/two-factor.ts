import { queryOptions, useQuery } from '@tanstack/react-query';

import { api, call, inWorkspace } from '../../api';
import { type MutationOptions, useInvalidatingMutation } from './mutation';
import { twoFactorKeys, workspaceKeys } from './query-keys';

export const twoFactorQuery = () => queryOptions({ queryKey: twoFactorKeys.all(), queryFn: () => call(api.GET('/auth/2fa')) });

export const useTwoFactor = () => useQuery(twoFactorQuery());

type Enrolment = Awaited<ReturnType<typeof startTotp>>;
const startTotp = () => call(api.POST('/auth/2fa/totp', { body: {} }));

/** A pending enrolment changes nothing the status shows: nothing to refresh. */
export function useStartTotp(options?: MutationOptions<Enrolment, void>) {
  return useInvalidatingMutation(startTotp, () => Promise.resolve(), options);
}

export function useConfirmTotp(options?: MutationOptions<{ recoveryCodes: string[] }, string>) {
  return useInvalidatingMutation(
    (code: string) => call(api.POST('/auth/2fa/totp/confirm', { body: { code } })),
    (qc) => qc.invalidateQueries({ queryKey: twoFactorKeys.all() }),
    options,
  );
}

export function useDisableTotp(options?: MutationOptions<unknown, { password: string; code: string }>) {
  return useInvalidatingMutation(
    (body: { password: string; code: string }) => call(api.DELETE('/auth/2fa/totp', { body })),
    (qc) => qc.invalidateQueries({ queryKey: twoFactorKeys.all() }),
    options,
  );
}

export function useRegenerateRecoveryCodes(options?: MutationOptions<{ recoveryCodes: string[] }, string>) {
  return useInvalidatingMutation(
    (code: string) => call(api.POST('/auth/2fa/recovery-codes', { body: { code } })),
    (qc) => qc.invalidateQueries({ queryKey: twoFactorKeys.all() }),
    options,
  );
}

/** The workspace policy (owners): members without a second factor are held at the security page. */
export function useSetRequireTwoFactor(workspaceId: string, options?: MutationOptions<unknown, boolean>) {
  return useInvalidatingMutation(
    (requireTwoFactor: boolean) =>
      call(api.PATCH('/workspaces/{workspaceId}', { params: { path: { workspaceId } }, body: { requireTwoFactor }, headers: inWorkspace(workspaceId) })),
    (qc) => qc.invalidateQueries({ queryKey: workspaceKeys.all() }),
    options,
  );
}
