import { useQuery } from '@tanstack/react-query';
import { Check } from 'lucide-react';
import { Link, useNavigate } from 'react-router';

import { ButtonIcon, Empty, ErrorNote, Loading } from '../components/ui';
import { useMe } from '../hooks/api/users';
import { invitationQueries, useAcceptInvitation } from '../hooks/api/workspaces';
import { formatTime } from '../locale';

export function Invitations() {
  const navigate = useNavigate();
  const me = useMe();
  const invitations = useQuery(invitationQueries.list());
  const accept = useAcceptInvitation({
    onSuccess: (member) => {
      const invitation = invitations.data?.data.find((i) => i.id === member.id);
      if (invitation) void navigate(`/w/${invitation.workspaceId}/projects`);
    },
  });
  return (
    <>
      <h1>Invitations</h1>
      {me.data && !me.data.emailVerified ? (
        <p className="note">Invitations to {me.data.email} show here once the address is verified: follow the link mailed to it.</p>
      ) : null}
      {invitations.isPending ? <Loading what="invitations" /> : null}
      <ErrorNote error={invitations.error} />
      {invitations.data && invitations.data.data.length === 0 ? (
        <Empty title="No pending invitations" action={<Link to="/">Back to your workspace</Link>}>
          When someone invites you to their workspace, the invitation waits here for you to accept.
        </Empty>
      ) : null}
      {invitations.data && invitations.data.data.length > 0 ? (
        <ul className="panel">
          {invitations.data.data.map((i) => (
            <li key={i.id}>
              <strong>{i.workspaceName}</strong> invites you as <span className="badge">{i.role}</span>{' '}
              <span className="muted">({formatTime(i.invitedAt)})</span>{' '}
              <button type="button" className="primary small" disabled={accept.isPending} onClick={() => accept.mutate(i.id)}>
                <ButtonIcon icon={Check} />
                Accept
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <ErrorNote error={accept.error} />
    </>
  );
}
