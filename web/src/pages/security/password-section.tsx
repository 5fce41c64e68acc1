import { Save } from 'lucide-react';
import { type FormEvent, useState } from 'react';

import { ButtonIcon, ErrorNote, Field } from '../../components/ui';
import { useChangePassword } from '../../hooks/api/sessions';

/** Change the password (issue 32): the current one is asked again, and every other session ends. */
export function PasswordSection() {
  const [currentPassword, setCurrent] = useState('');
  const [newPassword, setNew] = useState('');
  const [done, setDone] = useState(false);
  const change = useChangePassword({
    onSuccess: () => {
      setCurrent('');
      setNew('');
      setDone(true);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setDone(false);
    change.mutate({ currentPassword, newPassword });
  };
  return (
    <section aria-labelledby="password-heading">
      <h2 id="password-heading">Password</h2>
      <form onSubmit={submit}>
        <Field
          label="Current password"
          type="password"
          autoComplete="current-password"
          required
          value={currentPassword}
          onChange={(e) => setCurrent(e.target.value)}
        />
        <Field
          label="New password"
          type="password"
          autoComplete="new-password"
          required
          minLength={8}
          value={newPassword}
          onChange={(e) => setNew(e.target.value)}
          hint="At least 8 characters. Every other session is signed out."
        />
        <ErrorNote error={change.error} />
        {done ? (
          <p className="note" role="status">
            Password changed. Your other sessions were signed out.
          </p>
        ) : null}
        <button type="submit" disabled={change.isPending}>
          <ButtonIcon icon={Save} />
          {change.isPending ? 'Changing…' : 'Change password'}
        </button>
      </form>
    </section>
  );
}
