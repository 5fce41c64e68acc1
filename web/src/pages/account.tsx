import { Save } from 'lucide-react';
import { type FormEvent, useState } from 'react';

import { toast } from '../components/design/toast';
import { ButtonIcon, Empty, ErrorNote, Loading } from '../components/ui';
import { type NotificationChange, useNotificationSettings, useUpdateNotifications, type WorkspaceNotificationSettings } from '../hooks/api/notifications';
import { useMe } from '../hooks/api/users';

const DIGESTS: { value: NotificationChange['digest']; label: string }[] = [
  { value: 'off', label: 'Off' },
  { value: 'immediate', label: 'Within minutes' },
  { value: 'daily', label: 'Once a day' },
];

/** The signed-in person's own settings: for now, their mail notifications in each workspace. */
export function Account() {
  const me = useMe();
  const settings = useNotificationSettings();
  return (
    <>
      <h1>Account</h1>
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
