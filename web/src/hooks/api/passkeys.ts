import { type PublicKeyCredentialCreationOptionsJSON, startRegistration } from '@simplewebauthn/browser';
import { queryOptions } from '@tanstack/react-query';

import { api, call, type Schemas } from '../../api';
import { type MutationOptions, useInvalidatingMutation } from './mutation';
import { queryKeysFactory } from './query-keys';

export type Passkey = Schemas['PasskeyView'];
type RegistrationAnswer = Schemas['RegisterPasskeyDto']['response'];

/** The signed-in person's passkeys: theirs whatever the workspace, so no workspace in the key. */
export const passkeyKeys = queryKeysFactory('passkeys');

export const passkeyQueries = {
  list: () => queryOptions({ queryKey: passkeyKeys.list([]), queryFn: () => call(api.GET('/auth/passkeys')) }),
};

/**
 * Registers a passkey: the service's creation options, the browser's ceremony (the person
 * picks or creates the passkey on their device), then the answer back to the service.
 */
export function useAddPasskey(options?: MutationOptions<Passkey, { name?: string }>) {
  return useInvalidatingMutation(
    async ({ name }: { name?: string }) => {
      const optionsJSON = (await call(api.POST('/auth/passkeys/registration-options', { body: {} }))) as unknown as PublicKeyCredentialCreationOptionsJSON;
      const response = (await startRegistration({ optionsJSON })) as unknown as RegistrationAnswer;
      return call(api.POST('/auth/passkeys/registration', { body: { response, ...(name ? { name } : {}) } }));
    },
    (qc) => qc.invalidateQueries({ queryKey: passkeyKeys.all() }),
    options,
  );
}

export function useRenamePasskey(options?: MutationOptions<Passkey, { passkeyId: string; name: string }>) {
  return useInvalidatingMutation(
    ({ passkeyId, name }: { passkeyId: string; name: string }) =>
      call(api.PATCH('/auth/passkeys/{passkeyId}', { params: { path: { passkeyId } }, body: { name } })),
    (qc) => qc.invalidateQueries({ queryKey: passkeyKeys.all() }),
    options,
  );
}

export function useDeletePasskey(options?: MutationOptions<unknown, string>) {
  return useInvalidatingMutation(
    (passkeyId: string) => call(api.DELETE('/auth/passkeys/{passkeyId}', { params: { path: { passkeyId } } })),
    (qc) => qc.invalidateQueries({ queryKey: passkeyKeys.all() }),
    options,
  );
}
