import { useQuery } from '@tanstack/react-query';
import { LogOut } from 'lucide-react';
import { useState } from 'react';

import { ButtonIcon, ConfirmMutation, ErrorNote, Loading, TableWrap } from '../../components/ui';
import { type Session, sessionQueries, useEndOtherSessions, useEndSession } from '../../hooks/api/sessions';
import { formatTime } from '../../locale';

/** Where you are signed in (issue 32): each session's browser, network and last use; end one, or all the others. */
export function SessionsSection() {
  const sessions = useQuery(sessionQueries.list());
  const [ending, setEnding] = useState<Session | null>(null);
  const end = useEndSession({ onSuccess: () => setEnding(null) });
  const endOthers = useEndOtherSessions();
  const others = sessions.data?.data.filter((s) => !s.current).length ?? 0;
  return (
    <section aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">Sessions</h2>
      {sessions.isPending ? <Loading what="your sessions" /> : null}
      <ErrorNote error={sessions.error} />
      {sessions.data ? (
        <TableWrap label="Your sessions">
          <table>
            <thead>
              <tr>
                <th scope="col">Device</th>
                <th scope="col">Network</th>
                <th scope="col" className="hide-narrow">
                  Signed in
                </th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span className="skip">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {sessions.data.data.map((s) => (
                <tr key={s.id}>
                  <td>
                    {s.device ?? 'Unknown'}
                    {s.current ? <strong> (this session)</strong> : null}
                  </td>
                  <td className="mono">{s.ip ?? ''}</td>
                  <td className="hide-narrow">{formatTime(s.createdAt)}</td>
                  <td>{formatTime(s.lastUsedAt)}</td>
                  <td>
                    {s.current ? null : (
                      <button
                        type="button"
                        className="small"
                        onClick={() => setEnding(s)}
                        aria-label={`Sign out ${s.device ?? 'the session'} last used ${formatTime(s.lastUsedAt)}`}
                      >
                        <ButtonIcon icon={LogOut} />
                        Sign out
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
      <ErrorNote error={endOthers.error} />
      {others > 0 ? (
        <button type="button" disabled={endOthers.isPending} onClick={() => endOthers.mutate()}>
          <ButtonIcon icon={LogOut} />
          {endOthers.isPending ? 'Signing out…' : 'Sign out every other session'}
        </button>
      ) : null}
      <ConfirmMutation
        target={ending}
        mutation={end}
        variables={(s) => s}
        onClose={() => setEnding(null)}
        title={`Sign out ${ending?.device ?? 'this session'}?`}
        confirmLabel="Sign out the session"
        danger
      >
        <p>The session ends at once: that browser must sign in again.</p>
      </ConfirmMutation>
    </section>
  );
}
