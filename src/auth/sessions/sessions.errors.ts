import { declareErrors } from '../../common/errors';

/** Sessions and the password of a signed-in person (issue 32). */
export const sessionsError = declareErrors('sessions', {
  // PUT /auth/password with a wrong currentPassword: a refusal of the request, not of the
  // session (a 401 would tell the dashboard its session ended).
  wrong_password: 403,
  // Changing the account's email, passkeys or TOTP in a session whose sign-in is not recent
  // (RECENT_SIGN_IN_MS): POST /auth/reauthenticate, then the same request again.
  reauthentication_required: 403,
  // POST /auth/reauthenticate with a wrong password, code or passkey: 403 like wrong_password, for the same reason.
  reauthentication_failed: 403,
});
export type SessionsErrorCode = keyof typeof sessionsError.codes;
