import { useState } from 'react';

/** What the sign-in page says when a single sign-on came back refused (src/sso/sso-rules.ts). */
const SSO_ERRORS: Record<string, string> = {
  invalid_state: 'The single sign-on expired or was already used. Start again.',
  provider_refused: 'Your identity provider did not sign you in.',
  code_rejected: 'Your identity provider refused the sign-in. Start again.',
  invalid_id_token: 'The answer of your identity provider could not be trusted. Start again, or ask your administrator.',
  email_not_verified: 'Your identity provider has not verified your email address.',
  email_not_allowed: 'Your email address is not in a domain this workspace signs in with single sign-on.',
  sso_not_configured: 'Single sign-on is no longer set up for this workspace.',
};

/**
 * Single sign-on from the sign-in page (issue 32): a navigation to the API's
 * /auth/sso/start with the email typed above, and the reason of a refused attempt. The
 * start is asked first without following its redirect, so an email whose domain has no
 * SSO gets a sentence here rather than the API's JSON 404 in the window.
 */
export function SsoSignIn({ email, error }: { email: string; error: string | null }) {
  const [state, setState] = useState<'idle' | 'busy' | 'none' | 'failed'>('idle');
  const go = async () => {
    const url = `/auth/sso/start?email=${encodeURIComponent(email.trim())}`;
    setState('busy');
    try {
      const res = await fetch(url, { redirect: 'manual', credentials: 'same-origin' });
      if (res.type === 'opaqueredirect') {
        window.location.assign(url);
        return;
      }
      setState(res.status === 404 ? 'none' : 'failed');
    } catch {
      setState('failed');
    }
  };
  return (
    <>
      {error ? (
        <div role="alert" className="note error">
          <strong>Single sign-on failed: </strong>
          {SSO_ERRORS[error] ?? 'Start again.'}
        </div>
      ) : null}
      {state === 'none' ? (
        <div role="alert" className="note error">
          No single sign-on is set up for {email.trim().slice(email.trim().lastIndexOf('@') + 1)}: sign in with your password.
        </div>
      ) : null}
      {state === 'failed' ? (
        <div role="alert" className="note error">
          Single sign-on could not start. Try again.
        </div>
      ) : null}
      <p>
        <button type="button" onClick={() => void go()} disabled={!email.includes('@') || state === 'busy'}>
          Use single sign-on (SSO)
        </button>{' '}
        <span className="muted">with the email above, if your company set it up.</span>
      </p>
    </>
  );
}
