/**
 * The seam between sign-in's second factor (src/auth/two-factor) and passkeys
 * (src/auth/passkeys, issue 32): the login flow asks through this whether a user has
 * passkeys and whether a WebAuthn answer proves one of them, without knowing how
 * passkeys are stored. The passkeys module provides it under PASSKEY_VERIFIER.
 */
export const PASSKEY_VERIFIER = Symbol('PASSKEY_VERIFIER');

export interface PasskeyVerifier {
  /** How many passkeys the user has registered; with none, `passkey` is not among their second-factor methods. */
  countFor(userId: string): Promise<number>;
  /**
   * True when `response` (a WebAuthn authentication response, as @simplewebauthn/browser
   * returns it, answering options from POST /auth/passkeys/authentication-options) is
   * valid, answers an unexpired challenge this service issued (consumed here: single use)
   * and was made with one of `userId`'s passkeys. False otherwise; never throws for a bad answer.
   */
  verifySecondFactor(userId: string, response: unknown): Promise<boolean>;
  /**
   * As verifySecondFactor, but the authenticator must have verified the person (PIN,
   * biometrics), as a passwordless sign-in requires: the passkey alone proves who they are.
   */
  verifyIdentity(userId: string, response: unknown): Promise<boolean>;
}
