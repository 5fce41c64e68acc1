import { useQuery } from '@tanstack/react-query';
import { Plus, Save, Trash2 } from 'lucide-react';
import { type FormEvent, useState } from 'react';

import { ButtonIcon, ConfirmMutation, Empty, ErrorNote, Field, Loading, TableWrap } from '../../components/ui';
import { type Passkey, passkeyQueries, useAddPasskey, useDeletePasskey, useRenamePasskey } from '../../hooks/api/passkeys';
import { formatTime } from '../../locale';

/**
 * The Security page's passkeys (issue 32): add one (the browser's own dialog creates it on
 * this device, a phone or a security key), see them, rename and delete them. A passkey
 * signs in without a password, and stands as the second factor after one.
 */
export function PasskeysSection() {
  const passkeys = useQuery(passkeyQueries.list());
  const [name, setName] = useState('');
  const add = useAddPasskey({ onSuccess: () => setName('') });
  const [renaming, setRenaming] = useState<Passkey | null>(null);
  const [deleting, setDeleting] = useState<Passkey | null>(null);
  const remove = useDeletePasskey({ onSuccess: () => setDeleting(null) });

  return (
    <section aria-labelledby="passkeys-heading">
      <h2 id="passkeys-heading">Passkeys</h2>
      <p className="muted">Sign in with your device’s screen lock or a security key instead of a password. A passkey also serves as your second factor.</p>
      <form
        className="panel"
        aria-label="Add a passkey"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          add.mutate({ name: name.trim() || undefined });
        }}
      >
        <Field
          label="Passkey name"
          hint="Optional: what you will know it by, e.g. “Work laptop”."
          maxLength={100}
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
        <ErrorNote error={add.error} />
        <button type="submit" className="primary" disabled={add.isPending}>
          <ButtonIcon icon={Plus} />
          {add.isPending ? 'Waiting for your device…' : 'Add a passkey'}
        </button>
      </form>
      {passkeys.isPending ? <Loading what="passkeys" /> : null}
      <ErrorNote error={passkeys.error} />
      {passkeys.data && passkeys.data.data.length === 0 ? <Empty>No passkeys yet.</Empty> : null}
      {passkeys.data && passkeys.data.data.length > 0 ? (
        <TableWrap label="Passkeys">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col" className="hide-narrow">
                  Added
                </th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span className="skip">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {passkeys.data.data.map((p) => (
                <tr key={p.id}>
                  <td>
                    {p.name}
                    {p.backedUp ? <span className="muted"> (synced)</span> : null}
                  </td>
                  <td className="hide-narrow">{formatTime(p.createdAt)}</td>
                  <td>{p.lastUsedAt ? formatTime(p.lastUsedAt) : 'never'}</td>
                  <td>
                    <button type="button" className="small" onClick={() => setRenaming(p)} aria-label={`Rename ${p.name}`}>
                      Rename
                    </button>{' '}
                    <button type="button" className="small" onClick={() => setDeleting(p)} aria-label={`Delete ${p.name}`}>
                      <ButtonIcon icon={Trash2} />
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
      {renaming ? <RenamePasskey key={renaming.id} passkey={renaming} onDone={() => setRenaming(null)} /> : null}
      <ConfirmMutation
        target={deleting}
        mutation={remove}
        variables={(p) => p.id}
        onClose={() => setDeleting(null)}
        title={`Delete ${deleting?.name ?? ''}?`}
        confirmLabel="Delete passkey"
        danger
      >
        <p>It can no longer sign you in here. Remove it from your device too, in its own settings.</p>
      </ConfirmMutation>
    </section>
  );
}

function RenamePasskey({ passkey, onDone }: { passkey: Passkey; onDone: () => void }) {
  const [name, setName] = useState(passkey.name);
  const rename = useRenamePasskey({ onSuccess: onDone });
  return (
    <form
      className="panel"
      aria-label={`Rename ${passkey.name}`}
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        rename.mutate({ passkeyId: passkey.id, name });
      }}
    >
      <Field label="New name" required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} autoFocus />
      <ErrorNote error={rename.error} />
      <div className="row">
        <button type="submit" className="primary" disabled={rename.isPending}>
          <ButtonIcon icon={Save} />
          Save name
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
