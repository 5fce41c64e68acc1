import { Mail, Save } from 'lucide-react';
import { type FormEvent, useState } from 'react';

import { toast } from '../components/design/toast';
import { ButtonIcon, Empty, ErrorNote, Field, Loading } from '../components/ui';
import { type NotificationChange, useNotificationSettings, useUpdateNotifications, type WorkspaceNotificationSettings } from '../hooks/api/notifications';
import { type Me, useMe, useUpdateMe } from '../hooks/api/users';

const DIGESTS: { value: NotificationChange['digest']; label: string }[] = [
  { value: 'off', label: 'Off' },
  { value: 'immediate', label: 'Within minutes' },
  { value: 'daily', label: 'Once a day' },
];

/** The signed-in person's own settings: their name and email, and their mail notifications in each workspace. */
export function Account() {
  const me = useMe();
  const settings = useNotificationSettings();
  return (
    <>
      <h1>Account</h1>
      <h2 id="profile">Profile</h2>
      {me.isPending ? <Loading what="your profile" /> : null}
      <ErrorNote error={me.error} />
      {me.data ? (
        <>
          <NameForm me={me.data} />
          <EmailForm me={me.data} />
        </>
      ) : null}
      <h2 id="notifications">Mail notifications</h2>
      <p className="muted">
        Per workspace, all off until you turn them on. Mail goes to {me.data ? <strong>{me.data.email}</strong> : 'your address'}
        {me.data && !me.data.emailVerified ? ' once it is verified' : ''}; every mail has a one-click unsubscribe link. The digest lists new leads’ emails and
        form submissions.
      </p>
      {settings.isPending ? <Loading what="your notification settings" /> : null}
      <ErrorNote error={settings.error} />
      {settings.data && settings.data.workspaces.length === 0 ? <Empty>You are not a member of any workspace.</Empty> : null}
      {settings.data?.workspaces.map((w) => (
        <WorkspaceNotifications key={w.workspaceId} settings={w} />
      ))}
    </>
  );
}

function WorkspaceNotifications({ settings }: { settings: WorkspaceNotificationSettings }) {
  const [draft, setDraft] = useState<NotificationChange>({
    workspaceId: settings.workspaceId,
    buildFailed: settings.buildFailed,
    domainFailed: settings.domainFailed,
    digest: settings.digest,
  });
  const [saved, setSaved] = useState(false);
  const update = useUpdateNotifications({
    onSuccess: () => {
      toast('Notification settings saved');
      setSaved(true);
    },
  });
  const headingId = `notifications-${settings.workspaceId}`;
  const change = (patch: Partial<NotificationChange>) => {
    setSaved(false);
    setDraft((d) => ({ ...d, ...patch }));
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    update.mutate(draft);
  };
  return (
    <form className="panel" aria-labelledby={headingId} onSubmit={submit}>
      <h3 id={headingId}>
        {settings.workspaceName} <span className="badge">{settings.role}</span>
      </h3>
      <div className="field">
        <label>
          <input type="checkbox" checked={draft.buildFailed} onChange={(e) => change({ buildFailed: e.target.checked })} /> A production build fails
        </label>
      </div>
      <div className="field">
        <label>
          <input type="checkbox" checked={draft.domainFailed} onChange={(e) => change({ domainFailed: e.target.checked })} /> A custom domain stops verifying
        </label>
      </div>
      <fieldset>
        <legend>Digest of new leads and form submissions</legend>
        {DIGESTS.map((d) => (
          <label key={d.value}>
            <input
              type="radio"
              name={`digest-${settings.workspaceId}`}
              value={d.value}
              checked={draft.digest === d.value}
              onChange={() => change({ digest: d.value })}
            />{' '}
            {d.label}
          </label>
        ))}
      </fieldset>
      <button type="submit" className="primary" disabled={update.isPending}>
        <ButtonIcon icon={Save} />
        Save
      </button>
      {saved ? (
        <span role="status" className="muted">
          {' '}
          Saved.
        </span>
      ) : null}
      <ErrorNote error={update.error} />
    </form>
  );
}

function NameForm({ me }: { me: Me }) {
  const [name, setName] = useState(me.name);
  const update = useUpdateMe({ onSuccess: () => toast('Name saved') });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    update.mutate({ name: name.trim() });
  };
  return (
    <form className="panel" aria-label="Your name" onSubmit={submit}>
      <Field label="Name" autoComplete="name" required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
      <button type="submit" disabled={update.isPending || name.trim() === me.name}>
        <ButtonIcon icon={Save} />
        Save name
      </button>
      <ErrorNote error={update.error} />
    </form>
  );
}

/**
 * A new address is not applied at once: a link goes to it, and following it moves the
 * account (the old address is told). Asking needs a recent sign-in: the dashboard's
 * "Confirm it's you" dialog asks for it when the service says so.
 */
function EmailForm({ me }: { me: Me }) {
  const [email, setEmail] = useState('');
  const [sentTo, setSentTo] = useState<string | null>(null);
  const update = useUpdateMe({
    onSuccess: (_, change) => {
      setSentTo(change.email ?? null);
      setEmail('');
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSentTo(null);
    update.mutate({ email: email.trim() });
  };
  return (
    <form className="panel" aria-label="Your email" onSubmit={submit}>
      <p>
        Your email is <strong>{me.email}</strong>
        {me.emailVerified ? '.' : ' (not verified yet).'}
      </p>
      <Field
        label="New email"
        type="email"
        autoComplete="email"
        required
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        hint="We mail a link to the new address; your account moves to it when you follow the link."
      />
      <button type="submit" disabled={update.isPending || email.trim() === ''}>
        <ButtonIcon icon={Mail} />
        Change email
      </button>
      {sentTo ? (
        <p className="note" role="status">
          We sent a link to {sentTo}. Your email changes when you follow it.
        </p>
      ) : null}
      <ErrorNote error={update.error} />
    </form>
  );
}
