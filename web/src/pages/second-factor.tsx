import { startAuthentication } from '@simplewebauthn/browser';
import { type FormEvent, useState } from 'react';

import { ApiError, session } from '../api';
import { ErrorNote, Field } from '../components/ui';

export type SecondFactorMethod = 'totp' | 'recovery_code' | 'passkey';

/** What POST /auth/login's 401 second_factor_required carries, or null for any other error. */
export function secondFactorChallenge(err: unknown): { challenge: string; methods: SecondFactorMethod[] } | null {
  if (!(err instanceof ApiError) || err.code !== 'second_factor_required') return null;
  const { challenge, methods } = err.body as { challenge?: unknown; methods?: unknown };
  if (typeof challenge !== 'string' || !Array.isArray(methods)) return null;
  return { challenge, methods: methods as SecondFactorMethod[] };
}

/**
 * A passkey's answer to the sign-in challenge: options from POST
 * /auth/passkeys/authentication-options (discoverable credentials, so the same options
 * serve here), signed by the browser's authenticator.
 */
async function passkeyResponse(): Promise<Record<string, unknown>> {
  const res = await fetch('/auth/passkeys/authentication-options', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) throw new ApiError(res.status, String(body.code ?? `http_${res.status}`), String(body.message ?? 'Passkeys are not available'), body);
  return (await startAuthentication({ optionsJSON: body as never })) as unknown as Record<string, unknown>;
}

/**
 * The sign-in page's second step (issue 32): the code of the authenticator app, a
 * recovery code, or a passkey, whichever the account has. A wrong answer keeps the
 * challenge (5 minutes); an expired one sends the person back to the password.
 */
export function SecondFactorForm({
  challenge,
  methods,
  onSignedIn,
  onRestart,
}: {
  challenge: string;
  methods: SecondFactorMethod[];
  onSignedIn: () => void;
  onRestart: () => void;
}) {
  const hasTotp = methods.includes('totp');
  const [recovery, setRecovery] = useState(!hasTotp && methods.includes('recovery_code'));
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = (answer: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    answer().then(
      () => {
        setBusy(false);
        onSignedIn();
      },
      (err: unknown) => {
        setBusy(false);
        setError(err);
      },
    );
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const value = code.trim();
    run(() => session.signInSecondFactor(challenge, recovery ? { recoveryCode: value } : { totp: value }));
  };
  const expired = error instanceof ApiError && error.code === 'invalid_login_challenge';
  return (
    <>
      {hasTotp || methods.includes('recovery_code') ? (
        <form onSubmit={submit} noValidate>
          {recovery ? (
            <Field label="Recovery code" autoComplete="off" required value={code} onChange={(e) => setCode(e.target.value)} />
          ) : (
            <Field
              label="Code from your authenticator app"
              inputMode="numeric"
              autoComplete="one-time-code"
              pattern="[0-9 ]*"
              required
              value={code}
              onChange={(e) => setCode(e.target.value)}
            />
          )}
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Checking…' : 'Continue'}
          </button>{' '}
          {hasTotp ? (
            <button
              type="button"
              onClick={() => {
                setRecovery(!recovery);
                setCode('');
              }}
            >
              {recovery ? 'Use the authenticator app' : 'Use a recovery code'}
            </button>
          ) : null}
        </form>
      ) : null}
      {methods.includes('passkey') ? (
        <p>
          <button type="button" onClick={() => run(async () => session.signInSecondFactor(challenge, { passkey: await passkeyResponse() }))} disabled={busy}>
            Use a passkey
          </button>
        </p>
      ) : null}
      <ErrorNote error={error} />
      {expired ? (
        <p>
          <button type="button" onClick={onRestart}>
            Sign in again
          </button>
        </p>
      ) : null}
    </>
  );
}
