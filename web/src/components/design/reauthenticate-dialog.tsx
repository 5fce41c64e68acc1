import { useQuery } from '@tanstack/react-query';
import { ShieldCheck } from 'lucide-react';
import { type FormEvent, useEffect, useState } from 'react';
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
  const [asked, setAsked] = useState<{ message: string; answers: ((confirmed: boolean) => void)[] } | null>(null);

  useEffect(
    () =>
      transport.onReauthenticationRequired(
        (message) =>
          new Promise<boolean>((resolve) => {
            // Two changes refused at once share one confirmation.
            setAsked((open) => (open ? { ...open, answers: [...open.answers, resolve] } : { message, answers: [resolve] }));
          }),
      ),
    [],
  );

  const close = (confirmed: boolean) => {
    asked?.answers.forEach((answer) => answer(confirmed));
    setAsked(null);
  };

  return (
    <ModalOverlay
      className="modal-overlay"
      isOpen={asked !== null}
      onOpenChange={(isOpen) => {
        if (!isOpen) close(false);
      }}
      isDismissable={false}
    >
      <Modal className="modal">
        <Dialog className="dialog">{asked ? <ConfirmForm change={changeOf(asked.message)} onDone={close} /> : null}</Dialog>
      </Modal>
    </ModalOverlay>
  );
}

function ConfirmForm({ change, onDone }: { change: string | null; onDone: (confirmed: boolean) => void }) {
  const factors = useQuery(twoFactorQuery());
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const methods = factors.data?.methods ?? [];
  const hasTotp = methods.includes('totp');
  const hasPasskey = methods.includes('passkey');
  // A passkey as the only second factor: the password alone proves too little, the passkey proves it all.
  const passwordWorks = !hasPasskey || hasTotp;

  const run = (proof: Parameters<typeof reauthenticate>[0]) => {
    setBusy(true);
    setError(null);
    reauthenticate(proof).then(
      () => onDone(true),
      (err: unknown) => {
        setBusy(false);
        setError(err);
      },
    );
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!busy) run({ password, ...(hasTotp ? { code: code.trim() } : {}) });
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
      {factors.data && passwordWorks ? (
        <>
          <Field
            label="Password"
            type="password"
            autoComplete="current-password"
            required
            autoFocus
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
      {factors.data && !passwordWorks ? <p>Your account signs in with a passkey: confirm with it.</p> : null}
      <ErrorNote error={error ?? factors.error} />
      <div className="actions dialog-actions">
        <button type="button" onClick={() => onDone(false)}>
          Cancel
        </button>
        {hasPasskey ? (
          <button type="button" className={passwordWorks ? undefined : 'primary'} onClick={() => run({ passkey: true })} disabled={busy}>
            Use a passkey
          </button>
        ) : null}
        {factors.data && passwordWorks ? (
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Checking…' : 'Confirm'}
          </button>
        ) : null}
      </div>
    </form>
  );
}
