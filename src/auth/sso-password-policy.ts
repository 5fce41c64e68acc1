import type { EntityManager } from 'typeorm';

/**
 * The seam between password sign-in and single sign-on (issue 32): src/sso sits above
 * auth in the layers (it starts sessions), so auth owns this port and the SSO module
 * binds it (globally). AuthService.login asks it once the password matched.
 */
export abstract class SsoPasswordPolicy {
  /**
   * Resolves when `user` may sign in with a password. Throws 403 `sso_required` (with
   * `ssoUrl`) when their email's domain is verified by a workspace that enforces SSO;
   * the owner who turned enforcement on passes (break glass), and that is audited when
   * the sign-in completes (`complete`), not when a second factor is still to be answered
   * (`before_second_factor`): a break-glass sign-in stopped at the second factor is none.
   * A completing sign-in passes its transaction (`manager`): the reads and that audit entry
   * go there, so the entry stands or falls with the session it records.
   */
  abstract passwordSignIn(user: { id: string; email: string }, stage: 'before_second_factor'): Promise<void>;
  abstract passwordSignIn(user: { id: string; email: string }, stage: 'complete', manager: EntityManager): Promise<void>;

  /**
   * Resolves when an account may be registered with a password for `email`. Throws 403
   * `sso_required` (with `ssoUrl`) when its domain is verified by a workspace that
   * enforces SSO: the provider creates that domain's accounts at their first sign-in, and
   * a registration would hand out a password session the enforcement is there to refuse.
   */
  abstract passwordRegistration(email: string): Promise<void>;

  /**
   * Whether `user`, at the email given, signs in through an enforced SSO only: its domain
   * is verified by a workspace that enforces it, and the user is not the owner who did.
   */
  abstract enforcedFor(user: { id: string; email: string }, manager?: EntityManager): Promise<boolean>;
}
