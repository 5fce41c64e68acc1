import { PasskeysSection } from './security/passkeys-section';
import { PasswordSection } from './security/password-section';
import { SessionsSection } from './security/sessions-section';
import { TwoFactorSection } from './security/two-factor-section';

/**
 * The signed-in person's sign-in security (issue 32): their password, second factors,
 * passkeys and open sessions. Each part is its own component under ./security/, since
 * each talks to its own API.
 */
export function Security() {
  return (
    <>
      <h1>Security</h1>
      <p className="muted">How you sign in, and where you are signed in.</p>
      <PasswordSection />
      <TwoFactorSection />
      <PasskeysSection />
      <SessionsSection />
    </>
  );
}
