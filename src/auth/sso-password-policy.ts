/**
 * The seam between password sign-in and single sign-on (issue 32): src/sso sits above
 * auth in the layers (it starts sessions), so auth owns this port and the SSO module
 * binds it (globally). AuthService.login asks it once the password matched.
 */
export abstract class SsoPasswordPolicy {
  /**
   * Resolves when `user` may sign in with a password. Throws 403 `sso_required` (with
   * `ssoUrl`) when their email's domain is verified by a workspace that enforces SSO;
   * the owner who turned enforcement on passes (break glass), and that is audited.
   */
  abstract passwordSignIn(user: { id: string; email: string }): Promise<void>;
}
