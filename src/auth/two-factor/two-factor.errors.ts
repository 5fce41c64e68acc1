import { declareErrors } from '../../common/errors';

/** Two-factor sign-in's refusals (issue 32): TOTP enrolment, the login challenge, the workspace policy. */
export const twoFactorError = declareErrors('two-factor', {
  invalid_totp_code: 400,
  // POST /auth/login with a right password on an account with a second factor: no session yet, answer the challenge.
  second_factor_required: 401,
  // A wrong code, recovery code or passkey answer to a login challenge.
  invalid_second_factor: 401,
  // The challenge is unknown, expired (5 min) or already used: sign in again.
  invalid_login_challenge: 401,
  // A JWT member without a second factor, on a route of a workspace that requires one.
  two_factor_required: 403,
  totp_already_enabled: 409,
  totp_not_started: 409,
  totp_not_enabled: 409,
});
export type TwoFactorErrorCode = keyof typeof twoFactorError.codes;

/** A workspace's two-factor policy refused a member without a second factor (the guard, SecondFactorCheck). */
export const twoFactorRequired = (workspaceId: string) =>
  twoFactorError('two_factor_required', `Workspace ${workspaceId} requires two-factor sign-in: turn on TOTP or add a passkey (GET /auth/2fa) to act in it`, {
    workspaceId,
  });
