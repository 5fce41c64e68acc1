import { declareErrors } from '../common/errors';

/** The bearer guard's refusals and the account endpoints' own failures. */
export const authError = declareErrors('auth', {
  invalid_workspace_header: 400,
  workspace_required: 400,
  invalid_token: 400,
  token_used: 400,
  token_expired: 400,
  // The dashboard's X-Session-Mode header (cookie-mode sessions).
  invalid_session_mode: 400,
  // Two refresh cookies in one request: one was planted by a host under a shared parent domain.
  duplicate_refresh_cookie: 400,
  invalid_login: 401,
  invalid_refresh_token: 401,
  workspace_mismatch: 403,
  not_a_member: 403,
  wrong_credential_kind: 403,
  insufficient_scope: 403,
  insufficient_role: 403,
  // `roles: ['owner']` on billing routes answers with the code billing has always used.
  owner_required: 403,
  project_bound_token: 403,
  email_already_verified: 409,
});
export type AuthErrorCode = keyof typeof authError.codes;
