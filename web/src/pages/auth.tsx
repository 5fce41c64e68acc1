import { type PublicKeyCredentialRequestOptionsJSON, startAuthentication } from '@simplewebauthn/browser';
import { useQueryClient } from '@tanstack/react-query';
import { Check, KeyRound, LogIn, Mail, UserPlus } from 'lucide-react';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';

import { api, call, session } from '../api';
import { Logo } from '../components/design/logo';
import { safeNext } from '../components/shell';
import { ButtonIcon, ErrorNote, Field } from '../components/ui';
import { secondFactorChallenge, SecondFactorForm } from './second-factor';
import { SsoSignIn } from './sso-sign-in';

function AuthCard({ title, children }: { title: string; children: React.ReactNode }) {
  useEffect(() => {
    document.title = `${title} · statichost`;
  }, [title]);
  return (
    <main className="auth-card" id="content">
      <p className="auth-logo">
        <Logo />
      </p>
      <h1>{title}</h1>
      {children}
    </main>
  );
}

/** A form's submit with its busy and error state; the error shows under the form. */
function useSubmit<T>(action: () => Promise<T>, done: (value: T) => void) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    action().then(
      (value) => {
        setBusy(false);
        done(value);
      },
      (err: unknown) => {
        setBusy(false);
        setError(err);
      },
    );
  };
  return { busy, error, onSubmit };
}

export function SignIn() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const next = safeNext(params.get('next'));
  const signedIn = () => {
    queryClient.clear();
    void navigate(next, { replace: true });
  };
  const form = useSubmit(() => session.signIn(email, password), signedIn);
  // The password was right and the account has a second factor: its step replaces the form.
  const second = secondFactorChallenge(form.error);
  const [restarted, setRestarted] = useState<unknown>(null);
  if (second && restarted !== form.error) {
    return (
      <AuthCard title="Two-factor sign-in">
        <SecondFactorForm challenge={second.challenge} methods={second.methods} onSignedIn={signedIn} onRestart={() => setRestarted(form.error)} />
      </AuthCard>
    );
  }
  return (
    <AuthCard title="Sign in">
      <form onSubmit={form.onSubmit} noValidate>
        <Field label="Email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
        <Field label="Password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        <ErrorNote error={second ? null : form.error} />
        <button type="submit" className="primary" disabled={form.busy}>
          <ButtonIcon icon={LogIn} />
          {form.busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <PasskeySignIn
        onSignedIn={() => {
          queryClient.clear();
          void navigate(next, { replace: true });
        }}
      />
      <SsoSignIn email={email} error={params.get('sso_error')} />
      <p>
        <Link to={`/register${next !== '/' ? `?next=${encodeURIComponent(next)}` : ''}`}>Create an account</Link> ·{' '}
        <Link to="/reset-password">Forgot your password?</Link>
      </p>
    </AuthCard>
  );
}

/**
 * Passwordless sign-in (issue 32): the browser offers the passkeys it holds for this site
 * (the options name none), and the one chosen signs in on its own.
 */
function PasskeySignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const form = useSubmit(async () => {
    const optionsJSON = (await call(api.POST('/auth/passkeys/authentication-options', { body: {} }))) as unknown as PublicKeyCredentialRequestOptionsJSON;
    const response = (await startAuthentication({ optionsJSON })) as unknown as Parameters<typeof session.signInWithPasskey>[0];
    return session.signInWithPasskey(response);
  }, onSignedIn);
  return (
    // Named “Use a passkey”, not “Sign in with…”: the password form's button is “Sign in”, and
    // the browser suites find it by that name, which a longer name starting the same would match too
    // (and no label holding “Password” either, for the same reason).
    <form onSubmit={form.onSubmit}>
      <p className="muted">Or, without a password:</p>
      <ErrorNote error={form.error} />
      <button type="submit" disabled={form.busy}>
        <ButtonIcon icon={KeyRound} />
        {form.busy ? 'Waiting for your passkey…' : 'Use a passkey'}
      </button>
    </form>
  );
}

export function Register() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState(params.get('email') ?? '');
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const next = safeNext(params.get('next'));
  const form = useSubmit(
    () => session.register(email, password, name),
    (answer) => {
      queryClient.clear();
      // A new account has nothing to list yet: it starts where it publishes its first site.
      void navigate(next !== '/' ? next : `/w/${answer.workspace.id}/get-started`, { replace: true });
    },
  );
  return (
    <AuthCard title="Create your account">
      <form onSubmit={form.onSubmit} noValidate>
        <Field label="Name" autoComplete="name" required value={name} onChange={(e) => setName(e.target.value)} />
        <Field label="Email" type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
        <Field
          label="Password"
          type="password"
          autoComplete="new-password"
          required
          minLength={8}
          hint="At least 8 characters."
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <ErrorNote error={form.error} />
        <button type="submit" className="primary" disabled={form.busy}>
          <ButtonIcon icon={UserPlus} />
          {form.busy ? 'Creating…' : 'Create account'}
        </button>
      </form>
      <p>
        Already have an account? <Link to="/sign-in">Sign in</Link>
      </p>
    </AuthCard>
  );
}

/** The link mailed at registration: /app/verify-email?token=ev_… */
export function VerifyEmail() {
  const [params] = useSearchParams();
  const token = params.get('token');
  const [state, setState] = useState<{ done?: string; error?: unknown }>({});
  const sent = useRef(false);
  useEffect(() => {
    // Tokens are single use: StrictMode's second effect run must not send it again.
    if (!token || sent.current) return;
    sent.current = true;
    call(api.POST('/auth/verify-email', { body: { token } })).then(
      (r) => setState({ done: r.user.email }),
      (error: unknown) => setState({ error }),
    );
  }, [token]);
  return (
    <AuthCard title="Verify your email">
      {!token ? (
        <div role="alert" className="note error">
          This link has no token: open the link from the mail again.
        </div>
      ) : null}
      {token && !state.done && !state.error ? <p role="status">Verifying…</p> : null}
      {state.done ? (
        <div role="status" className="note ok">
          {state.done} is verified.
        </div>
      ) : null}
      <ErrorNote error={state.error} />
      <p>
        <Link to="/">Go to the dashboard</Link>
      </p>
    </AuthCard>
  );
}

/** Without a token: ask for the mail. With one (the mailed link): choose the new password. */
export function ResetPassword() {
  const [params] = useSearchParams();
  const token = params.get('token');
  return token ? <ConfirmReset token={token} /> : <RequestReset />;
}

function RequestReset() {
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState<string | null>(null);
  const form = useSubmit(
    () => call(api.POST('/auth/password-reset', { body: { email } })),
    (r) => setSent(r.message),
  );
  return (
    <AuthCard title="Reset your password">
      {sent ? (
        <div role="status" className="note ok">
          {sent}
        </div>
      ) : (
        <form onSubmit={form.onSubmit} noValidate>
          <Field label="Email" type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
          <ErrorNote error={form.error} />
          <button type="submit" className="primary" disabled={form.busy}>
            <ButtonIcon icon={Mail} />
            Send the reset link
          </button>
        </form>
      )}
      <p>
        <Link to="/sign-in">Back to sign in</Link>
      </p>
    </AuthCard>
  );
}

function ConfirmReset({ token }: { token: string }) {
  const [password, setPassword] = useState('');
  const [done, setDone] = useState(false);
  const form = useSubmit(
    () => call(api.POST('/auth/password-reset/confirm', { body: { token, password } })),
    () => setDone(true),
  );
  return (
    <AuthCard title="Choose a new password">
      {done ? (
        <div role="status" className="note ok">
          Your password is changed and every session of the account has ended. <Link to="/sign-in">Sign in</Link> with the new one.
        </div>
      ) : (
        <form onSubmit={form.onSubmit} noValidate>
          <Field
            label="New password"
            type="password"
            autoComplete="new-password"
            required
            minLength={8}
            hint="At least 8 characters."
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
          <ErrorNote error={form.error} />
          <button type="submit" className="primary" disabled={form.busy}>
            <ButtonIcon icon={Check} />
            Set the password
          </button>
        </form>
      )}
    </AuthCard>
  );
}
