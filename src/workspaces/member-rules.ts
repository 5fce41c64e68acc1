import { authError } from '../access/auth.errors';
import type { Principal, Role } from '../shared/principal';
import type { MemberStatus } from './workspace-member.entity';
import { workspacesError } from './workspaces.errors';

/**
 * Who may do what to a member, beyond the route's scope. Admins manage admins and
 * viewers; owners are made, changed and removed by owners only; a workspace always
 * keeps at least one active owner.
 */

interface MemberLike {
  role: Role;
  status: MemberStatus;
  userId: string | null;
}

const isOwner = (principal: Principal) => principal.kind === 'user' && principal.role === 'owner';

export function isSelf(principal: Principal, member: MemberLike): boolean {
  return principal.kind === 'user' && member.userId !== null && member.userId === principal.userId;
}

/** Inviting someone as, or changing someone to, `role`. */
export function assertMayGrantRole(principal: Principal, role: Role): void {
  if (role === 'owner' && !isOwner(principal)) {
    throw authError('insufficient_role', 'Only a workspace owner (signed in, not with an API token) can make someone an owner');
  }
}

/** Changing or removing someone who is an owner (or was invited as one). */
export function assertMayManageMember(principal: Principal, member: MemberLike): void {
  if (member.role === 'owner' && !isOwner(principal)) {
    throw authError('insufficient_role', 'Only a workspace owner (signed in, not with an API token) can change or remove an owner');
  }
}

/**
 * 409 when the change (a new role, or `null` for removal) would take the role away
 * from the last active owner. `activeOwners` counts the workspace's active owners.
 */
export function assertKeepsAnOwner(member: MemberLike, newRole: Role | null, activeOwners: number): void {
  const losesOwner = member.status === 'active' && member.role === 'owner' && newRole !== 'owner';
  if (losesOwner && activeOwners <= 1) {
    throw workspacesError(
      'last_owner',
      newRole === null
        ? 'The last owner cannot be removed: make another member an owner first'
        : 'The last owner cannot be demoted: make another member an owner first',
    );
  }
}
