import { Plus, RefreshCw, ShieldCheck, ShieldOff } from 'lucide-react';
import { type FormEvent, useState } from 'react';
import { useLocation } from 'react-router';

import { ButtonIcon, CopyButton, ErrorNote, Field, Loading } from '../../components/ui';
import { useConfirmTotp, useDisableTotp, useRegenerateRecoveryCodes, useStartTotp, useTwoFactor } from '../../hooks/api/two-factor';
import { formatTime } from '../../locale';

/**
 * Two-factor sign-in with an authenticator app (TOTP, issue 32): enrol with the QR code
 * (or the secret typed in), confirm with a first code, keep the recovery codes shown
 * once, turn it off with the password and a code. The rules (a code works once, the
 * password is checked) are the API's; refusals show its message.
 */
export function TwoFactorSection() {
  const status = useTwoFactor();
  const [codes, setCodes] = useState<string[] | null>(null);
  const requiredBy = (useLocation().state as { twoFactorRequiredBy?: string } | null)?.twoFactorRequiredBy;
  return (
    <section aria-labelledby="two-factor-heading" className="panel">
      <h2 id="two-factor-heading">Two-factor sign-in</h2>
      <p className="muted">
        After your password, sign-in asks for a code from an authenticator app (or a recovery code). Some workspaces require it of their members.
      </p>
      {requiredBy && status.data && status.data.methods.length === 0 ? (
        <div role="alert" className="note">
          A workspace you belong to requires two-factor sign-in: set it up here to work in it.
        </div>
      ) : null}
      {status.isPending ? <Loading what="your two-factor settings" /> : null}
      <ErrorNote error={status.error} />
      {codes ? <RecoveryCodes codes={codes} onDone={() => setCodes(null)} /> : null}
      {status.data && !codes ? (
        status.data.totp.enabled ? (
          <>
            <p role="status">
              <span className="badge active">On</span> since {formatTime(status.data.totp.enabledAt!)}; {status.data.recoveryCodesLeft} recovery code
              {status.data.recoveryCodesLeft === 1 ? '' : 's'} left.
            </p>
            <NewRecoveryCodes onCodes={setCodes} />
            <TurnOff />
          </>
        ) : (
          <Enrol onCodes={setCodes} />
        )
      ) : null}
    </section>
  );
}

function Enrol({ onCodes }: { onCodes: (codes: string[]) => void }) {
  const start = useStartTotp();
  const [code, setCode] = useState('');
  const confirm = useConfirmTotp({ onSuccess: (data) => onCodes(data.recoveryCodes) });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    confirm.mutate(code.trim());
  };
  if (!start.data) {
    return (
      <>
        <button type="button" className="primary" onClick={() => start.mutate()} disabled={start.isPending}>
          <ButtonIcon icon={Plus} />
          Set up an authenticator app
        </button>
        <ErrorNote error={start.error} />
      </>
    );
  }
  return (
    <form onSubmit={submit} noValidate>
      <p>Scan this code with your authenticator app, or type the secret in, then enter the six digits it shows.</p>
      <img src={start.data.qrCode} alt="QR code of the authenticator secret" width={200} height={200} />
      <p>
        Secret: <code className="mono">{start.data.secret}</code> <CopyButton text={start.data.secret} label="Copy secret" />
      </p>
      <Field
        label="Code from the app"
        inputMode="numeric"
        autoComplete="one-time-code"
        pattern="[0-9 ]*"
        required
        value={code}
        onChange={(e) => setCode(e.target.value)}
      />
      <ErrorNote error={confirm.error} />
      <button type="submit" className="primary" disabled={confirm.isPending}>
        <ButtonIcon icon={ShieldCheck} />
        Turn on two-factor sign-in
      </button>
    </form>
  );
}

function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  return (
    <div role="region" aria-labelledby="recovery-codes-heading" className="note">
      <h3 id="recovery-codes-heading">Your recovery codes</h3>
      <p>
        Each works once, in place of a code from the app, if you lose it. Keep them somewhere safe: <strong>they are shown only now.</strong>
      </p>
      <ul className="mono" aria-label="Recovery codes">
        {codes.map((c) => (
          <li key={c}>{c}</li>
        ))}
      </ul>
      <CopyButton text={codes.join('\n')} label="Copy the codes" />{' '}
      <button type="button" onClick={onDone}>
        I have saved them
      </button>
    </div>
  );
}

function NewRecoveryCodes({ onCodes }: { onCodes: (codes: string[]) => void }) {
  const [code, setCode] = useState('');
  const regenerate = useRegenerateRecoveryCodes({ onSuccess: (data) => onCodes(data.recoveryCodes) });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    regenerate.mutate(code.trim());
  };
  return (
    <form onSubmit={submit} noValidate aria-labelledby="new-codes-heading">
      <h3 id="new-codes-heading">New recovery codes</h3>
      <p className="muted">The old ones stop working.</p>
      <Field label="Code from the app (for new codes)" autoComplete="one-time-code" required value={code} onChange={(e) => setCode(e.target.value)} />
      <ErrorNote error={regenerate.error} />
      <button type="submit" disabled={regenerate.isPending}>
        <ButtonIcon icon={RefreshCw} />
        Make new recovery codes
      </button>
    </form>
  );
}

function TurnOff() {
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const disable = useDisableTotp({
    onSuccess: () => {
      setPassword('');
      setCode('');
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    disable.mutate({ password, code: code.trim() });
  };
  return (
    <form onSubmit={submit} noValidate aria-labelledby="turn-off-heading">
      <h3 id="turn-off-heading">Turn off</h3>
      <Field label="Password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
      <Field label="Code from the app or a recovery code" autoComplete="one-time-code" required value={code} onChange={(e) => setCode(e.target.value)} />
      <ErrorNote error={disable.error} />
      <button type="submit" className="danger" disabled={disable.isPending}>
        <ButtonIcon icon={ShieldOff} />
        Turn off two-factor sign-in
      </button>
    </form>
  );
}
