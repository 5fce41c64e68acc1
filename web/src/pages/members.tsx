import { useQuery } from '@tanstack/react-query';
import { LogOut, Trash2, UserPlus } from 'lucide-react';
import { type FormEvent, useState } from 'react';
import { useNavigate } from 'react-router';

import type { Schemas } from '../api';
import { toast } from '../components/design/toast';
import { LIST_PAGE, ListFilter, ListRange, ListSearch, ListToolbar, NoMatch, useListParams } from '../components/list';
import { Truncate } from '../components/truncate';
import { ButtonIcon, ConfirmMutation, Empty, ErrorNote, Field, FocusFormButton, Loading, Pager, SelectField, TableWrap } from '../components/ui';
import { useSetRequireTwoFactor } from '../hooks/api/two-factor';
import { useMe } from '../hooks/api/users';
import { type MemberListQuery, memberQueries, useInviteMember, useRemoveMember, workspaceQueries } from '../hooks/api/workspaces';
import { useSavingSwitch } from '../hooks/saving-switch';
import { formatTime } from '../locale';
import { useWorkspaceId } from '../workspace';

type Member = Schemas['MemberView'];
type Role = Schemas['InviteMemberDto']['role'];
type Status = NonNullable<MemberListQuery['status']>;
const ROLES: { value: Role | ''; label: string }[] = [
  { value: '', label: 'All roles' },
  { value: 'owner', label: 'Owners' },
  { value: 'admin', label: 'Admins' },
  { value: 'viewer', label: 'Viewers' },
];
const STATUSES: { value: Status | ''; label: string }[] = [
  // Short: the select shares a phone's row with the role filter.
  { value: '', label: 'Everyone' },
  { value: 'active', label: 'Joined' },
  { value: 'invited', label: 'Invitations' },
];
const ROLE_VALUES = ROLES.flatMap((r) => (r.value === '' ? [] : [r.value]));
const STATUS_VALUES = STATUSES.flatMap((s) => (s.value === '' ? [] : [s.value]));

/**
 * Who may do what (viewers read only, admins manage all but owners, the last owner
 * stays) is the API's to say: every control is offered, and a refusal shows the API's
 * own message where the user acted. Nothing here re-implements those rules.
 */
export function Members() {
  const workspaceId = useWorkspaceId();
  const list = useListParams();
  const role = list.pick('role', ROLE_VALUES);
  const status = list.pick('status', STATUS_VALUES);
  const query: MemberListQuery = {
    page: list.page,
    limit: LIST_PAGE,
    ...(list.search !== undefined ? { search: list.search } : {}),
    ...(role ? { role } : {}),
    ...(status ? { status } : {}),
  };
  const me = useMe();
  const navigate = useNavigate();
  const members = useQuery(memberQueries.list(workspaceId, query));
  const [removing, setRemoving] = useState<Member | null>(null);
  const isMe = (m: Member | null) => m !== null && m.userId !== null && m.userId === me.data?.id;
  const remove = useRemoveMember(workspaceId, {
    onSuccess: (_r, { member, self }) => {
      toast(self ? 'You left the workspace' : `${member.email} removed`);
      setRemoving(null);
      // Left the workspace: nothing here is ours to see any more.
      if (self) void navigate('/', { replace: true });
    },
  });
  const filtered = query.search !== undefined || query.role !== undefined || query.status !== undefined;
  const meta = members.data?.meta;

  return (
    <>
      <h1>Members</h1>
      <TwoFactorPolicy workspaceId={workspaceId} />
      <Invite workspaceId={workspaceId} />
      <h2>People in this workspace</h2>
      <ListToolbar label="Members">
        <ListSearch list={list} label="Search members" placeholder="Email or name" />
        <ListFilter list={list} param="role" label="Filter by role" value={role} options={ROLES} />
        <ListFilter list={list} param="status" label="Show" value={status} options={STATUSES} />
      </ListToolbar>
      {members.isPending ? <Loading what="members" /> : null}
      <ErrorNote error={members.error} />
      {meta && meta.total === 0 && !filtered ? <Empty title="No members">The people who can see and change this workspace show here.</Empty> : null}
      {meta && meta.total === 0 && filtered ? (
        <NoMatch search={query.search} noun="member or invitation" onClear={() => list.update({ q: '', role: '', status: '' })} />
      ) : null}
      {members.data && members.data.data.length > 0 && meta ? (
        <TableWrap label="Members">
          <table aria-busy={members.isPlaceholderData}>
            <caption className="muted">
              <ListRange meta={meta} shown={members.data.data.length} noun={['person', 'people']} search={query.search} pending={members.isPlaceholderData} />
            </caption>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Status</th>
                <th scope="col" className="hide-narrow">
                  Since
                </th>
                <th scope="col">
                  <span className="skip">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {members.data.data.map((m) => (
                <tr key={m.id}>
                  <td>
                    <Truncate value={m.email} label="email" />
                    {isMe(m) ? <span className="muted"> (you)</span> : null}
                    {m.name ? <div className="muted">{m.name}</div> : null}
                  </td>
                  <td>{m.role}</td>
                  <td>
                    <span className={`badge ${m.status}`}>{m.status}</span>
                  </td>
                  <td className="hide-narrow">{formatTime(m.joinedAt ?? m.invitedAt)}</td>
                  <td>
                    <button
                      type="button"
                      className="small"
                      onClick={() => setRemoving(m)}
                      aria-label={isMe(m) ? 'Leave the workspace' : m.status === 'invited' ? `Withdraw the invitation of ${m.email}` : `Remove ${m.email}`}
                    >
                      <ButtonIcon icon={isMe(m) ? LogOut : Trash2} />
                      {isMe(m) ? 'Leave' : m.status === 'invited' ? 'Withdraw' : 'Remove'}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
      {meta ? (
        <Pager page={meta.page} totalPages={meta.totalPages} onPage={(page) => list.update({ page: String(page) }, true)} label="Pages of members" />
      ) : null}
      {/* A workspace always has its owner: "empty" here is the owner alone. */}
      {!filtered && meta?.total === 1 && isMe(members.data?.data[0] ?? null) ? (
        <Empty
          title="Just you so far"
          action={
            <FocusFormButton form="invite-member" icon={UserPlus}>
              Invite someone
            </FocusFormButton>
          }
        >
          Invite the people you work with: admins deploy and manage the workspace, viewers see it.
        </Empty>
      ) : null}
      <ConfirmMutation
        target={removing}
        mutation={remove}
        variables={(m) => ({ member: m, self: isMe(m) })}
        onClose={() => setRemoving(null)}
        title={
          isMe(removing)
            ? 'Leave this workspace?'
            : removing?.status === 'invited'
              ? `Withdraw the invitation of ${removing.email}?`
              : `Remove ${removing?.email ?? ''}?`
        }
        confirmLabel={isMe(removing) ? 'Leave' : removing?.status === 'invited' ? 'Withdraw' : 'Remove'}
        danger
      >
        <p>
          {isMe(removing)
            ? 'You lose access to its projects, and the API tokens you made in it stop working.'
            : 'They lose access at once, and the API tokens they made here stop working.'}
        </p>
      </ConfirmMutation>
    </>
  );
}

function Invite({ workspaceId }: { workspaceId: string }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [sent, setSent] = useState<string | null>(null);
  const invite = useInviteMember(workspaceId, {
    onSuccess: (m) => {
      toast(`${m.email} invited`);
      setSent(`${m.email} is invited as ${m.role}: they accept from the link mailed to them.`);
      setEmail('');
    },
  });
  return (
    <form
      id="invite-member"
      className="panel"
      aria-label="Invite someone"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        setSent(null);
        invite.mutate({ email, role });
      }}
    >
      <div className="row">
        <Field label="Email to invite" type="email" required autoComplete="off" value={email} onChange={(e) => setEmail(e.target.value)} />
        <SelectField label="Role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
          <option value="viewer">viewer (reads only)</option>
          <option value="admin">admin (manages projects, members and tokens)</option>
          <option value="owner">owner (also billing)</option>
        </SelectField>
        <div className="field">
          <button type="submit" className="primary" disabled={invite.isPending}>
            <ButtonIcon icon={UserPlus} />
            {invite.isPending ? 'Inviting…' : 'Invite'}
          </button>
        </div>
      </div>
      <ErrorNote error={invite.error} />
      {sent ? (
        <p role="status" className="note ok">
          {sent}
        </p>
      ) : null}
    </form>
  );
}

/** The owners' policy (issue 32): members without a second factor are held at their Security page until they enrol. */
function TwoFactorPolicy({ workspaceId }: { workspaceId: string }) {
  const workspace = useQuery(workspaceQueries.detail(workspaceId));
  const set = useSetRequireTwoFactor(workspaceId);
  const { checked: on, toggle } = useSavingSwitch(workspace.data?.requireTwoFactor ?? false, set);
  if (!workspace.data || workspace.data.role !== 'owner') return null;
  return (
    <div className="panel">
      <div className="field">
        <label>
          <input type="checkbox" checked={on} disabled={set.isPending} onChange={(e) => toggle(e.target.checked)} /> Require two-factor sign-in
        </label>
        <p className="muted">
          Members without an authenticator app or a passkey can still sign in, but not act in this workspace until they set one up. API tokens are not affected.
        </p>
      </div>
      <ErrorNote error={set.error} />
    </div>
  );
}
