import { type PublicKeyCredentialRequestOptionsJSON, startAuthentication } from '@simplewebauthn/browser';
import { queryOptions } from '@tanstack/react-query';

import { api, call, type Schemas } from '../../api';
import { type MutationOptions, useInvalidatingMutation } from './mutation';
import { sessionKeys } from './query-keys';

export type Session = Schemas['SessionView'];

export const sessionQueries = {
  list: () => queryOptions({ queryKey: sessionKeys.lists(), queryFn: () => call(api.GET('/auth/sessions')) }),
};

export function useEndSession(options?: MutationOptions<unknown, Session>) {
  return useInvalidatingMutation(
    (s: Session) => call(api.DELETE('/auth/sessions/{sessionId}', { params: { path: { sessionId: s.id } } })),
    (qc) => qc.invalidateQueries({ queryKey: sessionKeys.all() }),
    options,
  );
}

export function useEndOtherSessions(options?: MutationOptions<unknown, void>) {
  return useInvalidatingMutation(
    () => call(api.DELETE('/auth/sessions')),
    (qc) => qc.invalidateQueries({ queryKey: sessionKeys.all() }),
    options,
  );
}

export function useChangePassword(options?: MutationOptions<unknown, { currentPassword: string; newPassword: string }>) {
  return useInvalidatingMutation(
    (body: { currentPassword: string; newPassword: string }) => call(api.PUT('/auth/password', { body })),
    (qc) => qc.invalidateQueries({ queryKey: sessionKeys.all() }),
    options,
  );
}

type ReauthenticateBody = Schemas['ReauthenticateDto'];

/**
 * Confirms it is the person (POST /auth/reauthenticate): with their password (and a code),
 * or with `passkey: true`, one of their passkeys through the browser's ceremony, alone or
 * after the password as its second factor.
 */
export async function reauthenticate(proof: { password?: string; code?: string; passkey?: true }): Promise<void> {
  const body: ReauthenticateBody = {};
  if (proof.password) body.password = proof.password;
  if (proof.code) body.code = proof.code;
  if (proof.passkey) {
    const optionsJSON = (await call(api.POST('/auth/passkeys/authentication-options', { body: {} }))) as unknown as PublicKeyCredentialRequestOptionsJSON;
    body.passkey = (await startAuthentication({ optionsJSON })) as unknown as Record<string, unknown>;
  }
  await call(api.POST('/auth/reauthenticate', { body }));
}
