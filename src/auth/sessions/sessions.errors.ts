import { declareErrors } from '../../common/errors';

/** Sessions and the password of a signed-in person (issue 32). */
export const sessionsError = declareErrors('sessions', {
  // PUT /auth/password with a wrong currentPassword: a refusal of the request, not of the
  // session (a 401 would tell the dashboard its session ended).
  wrong_password: 403,
});
export type SessionsErrorCode = keyof typeof sessionsError.codes;
