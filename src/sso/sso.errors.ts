import { declareErrors } from '../common/errors';

/** Single sign-on's refusals (issue 32). The callback's own refusals are redirects (`?sso_error=`, sso-rules.ts), not codes. */
export const ssoError = declareErrors('sso', {
  // No SSO set up for the workspace, or no verified domain claim matches the email.
  sso_not_configured: 404,
  // The domain is not among the workspace's emailDomains.
  sso_domain_not_listed: 404,
  // Another workspace already verified this email domain.
  domain_claimed: 409,
  // The first PUT needs the client secret; later ones keep it when omitted.
  client_secret_required: 400,
  // The issuer's discovery document could not be fetched or is not an OpenID provider's.
  sso_discovery_failed: 400,
  // POST /auth/login with a password for an email of an enforced, verified domain.
  sso_required: 403,
});
export type SsoErrorCode = keyof typeof ssoError.codes;
