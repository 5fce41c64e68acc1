import { useQuery } from '@tanstack/react-query';
import { ShieldCheck } from 'lucide-react';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { Dialog, Heading, Modal, ModalOverlay } from 'react-aria-components';

import { transport } from '../../api';
import { reauthenticate } from '../../hooks/api/sessions';
import { twoFactorQuery } from '../../hooks/api/two-factor';
import { ErrorNote, Field } from '../ui';

/** The change the refusal names ("Adding a passkey needs a sign-in…" → "Adding a passkey"). */
function changeOf(message: string): string | null {
  const at = message.indexOf(' needs a sign-in');
  return at > 0 ? message.slice(0, at) : null;
}

/**
 * Asks the person to confirm it is them when a change of their email, passkeys or TOTP is
 * refused for want of a recent sign-in (403 `reauthentication_required`), then lets the
 * transport send the change again: the page that asked never sees the refusal. What it
 * asks for is what a sign-in of the account asks: the password (and a code, with TOTP on)
 * or a passkey. Cancelling gives the page the refusal, which it shows where the person acted.
 */
export function ReauthenticateDialog() {
  const [message, setMessage] = useState<string | null>(null);
  // Every change waiting on this confirmation, read when it settles (not when a form was
  // drawn): a change refused while the dialog is open shares its outcome.
  const waiting = useRef<((confirmed: boolean) => void)[]>([]);
  // Each opening of the dialog: an answer from a form of an earlier opening is ignored.
  const opening = useRef(0);

  const settle = (confirmed: boolean) => {
    const answers = waiting.current;
    waiting.current = [];
    answers.forEach((answer) => answer(confirmed));
    setMessage(null);
  };

  useEffect(() => {
    const unsubscribe = transport.onReauthenticationRequired(
      (refusal) =>
        new Promise<boolean>((resolve) => {
          if (waiting.current.length === 0) opening.current++;
          waiting.current.push(resolve);
          setMessage((open) => open ?? refusal);
        }),
    );
    return () => {
      unsubscribe();
      // Gone (signed out, the session ended): the changes waiting get their refusals.
      const answers = waiting.current;
      waiting.current = [];
      answers.forEach((answer) => answer(false));
    };
  }, []);

  return (
    <ModalOverlay
      className="modal-overlay"
      isOpen={message !== null}
      onOpenChange={(isOpen) => {
        if (!isOpen) settle(false);
      }}
      isDismissable={false}
    >
      <Modal className="modal">
        <Dialog className="dialog">
          {message !== null ? (
            <ConfirmForm
              key={opening.current}
              change={changeOf(message)}
              onDone={(confirmed, of) => {
                if (of === opening.current) settle(confirmed);
              }}
              opening={opening.current}
            />
          ) : null}
        </Dialog>
      </Modal>
    </ModalOverlay>
  );
}

function ConfirmForm({ change, opening, onDone }: { change: string | null; opening: number; onDone: (confirmed: boolean, opening: number) => void }) {
  const factors = useQuery(twoFactorQuery());
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const methods = factors.data?.methods ?? [];
  const hasTotp = methods.includes('totp');
  const hasPasskey = methods.includes('passkey');
  // A passkey as the only second factor: the passkey leads; the password joins it for a key without a PIN.
  const passkeyFirst = hasPasskey && !hasTotp;

  const run = (proof: Parameters<typeof reauthenticate>[0]) => {
    setBusy(true);
    setError(null);
    reauthenticate(proof).then(
      () => onDone(true, opening),
      (err: unknown) => {
        setBusy(false);
        setError(err);
      },
    );
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    if (passkeyFirst) run({ password, passkey: true });
    else run({ password, ...(hasTotp ? { code: code.trim() } : {}) });
  };

  return (
    <form onSubmit={submit}>
      <Heading slot="title" className="dialog-title">
        <ShieldCheck size={20} aria-hidden="true" />
        Confirm it’s you
      </Heading>
      <p>
        {change ? `${change} needs a recent sign-in.` : 'This change needs a recent sign-in.'} You signed in more than 15 minutes ago: confirm it’s you to go
        on.
      </p>
      {factors.isPending ? <p>Loading…</p> : null}
      {passkeyFirst ? <p>Your account signs in with a passkey: confirm with it.</p> : null}
      {factors.data ? (
        <>
          <Field
            label={passkeyFirst ? 'Password (for a security key without a PIN)' : 'Password'}
            type="password"
            autoComplete="current-password"
            required={!passkeyFirst}
            autoFocus={!passkeyFirst}
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
          {hasTotp ? (
            <Field
              label="Code from your authenticator app (or a recovery code)"
              autoComplete="one-time-code"
              required
              value={code}
              onChange={(e) => setCode(e.target.value)}
            />
          ) : null}
        </>
      ) : null}
      <ErrorNote error={error ?? factors.error} />
      <div className="actions dialog-actions">
        <button type="button" onClick={() => onDone(false, opening)} disabled={busy}>
          Cancel
        </button>
        {hasPasskey && !passkeyFirst ? (
          <button type="button" onClick={() => run({ passkey: true })} disabled={busy}>
            Use a passkey
          </button>
        ) : null}
        {factors.data ? (
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Checking…' : passkeyFirst ? 'Use a passkey' : 'Confirm'}
          </button>
        ) : null}
      </div>
    </form>
  );
}
