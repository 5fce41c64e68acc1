import { Inject, Injectable, Optional } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

import { authError } from '../access/auth.errors';
import { checkRequirements } from '../access/authorize';
import { scopesForRole } from '../access/permissions';
import { AuditLogService } from '../audit/audit-log.service';
import { uniqueViolation } from '../common/db-errors';
import { notFound } from '../common/errors';
import { isId, newId } from '../common/ids';
import { Paginated, paginated } from '../common/pagination';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { MailService } from '../mail/mail.service';
import type { Email } from '../shared/email';
import type { Principal, Role } from '../shared/principal';
import { UsersRepository } from '../users/users.repository';
import { emailNotVerified, UsersService } from '../users/users.service';
import { assertKeepsAnOwner, assertMayGrantRole, assertMayManageMember, isSelf } from './member-rules';
import { MEMBER_TOKENS, type MemberTokens } from './member-tokens';
import { OwnerLeaves } from './owner-leaves';
import { InvitationView, invitationView, MemberView, memberView } from './workspace.view';
import type { WorkspaceMember } from './workspace-member.entity';
import { workspacesError } from './workspaces.errors';
import { type MemberListFilter, WorkspacesRepository } from './workspaces.repository';

/** A member (or an invitation) as the audit log names it: by the address, which an invitation has before any account. */
function memberTarget(member: Pick<WorkspaceMember, 'id' | 'email'>) {
  return { type: 'member', id: member.id, label: member.email };
}

@Injectable()
export class MembersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly workspaces: WorkspacesRepository,
    private readonly users: UsersService,
    private readonly userRows: UsersRepository,
    @Inject(MEMBER_TOKENS) private readonly tokens: MemberTokens,
    private readonly mail: MailService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly audit: AuditLogService,
    // Bound by src/sso; absent in an app built without it.
    @Optional() private readonly ownerLeaves?: OwnerLeaves,
  ) {}

  /** The user's role in the workspace if they are an active member there (the guard asks this on every JWT request). */
  async activeRole(workspaceId: string, userId: string): Promise<Role | null> {
    // Whatever the path held: no id, no member (and no query to fail on odd text).
    if (!isId('ws', workspaceId)) return null;
    return this.workspaces.activeRole(workspaceId, userId);
  }

  /** The same with the workspace's policy `requireTwoFactor` (the guard's lookup). */
  async activeMembership(workspaceId: string, userId: string): Promise<{ role: Role; requireTwoFactor: boolean } | null> {
    if (!isId('ws', workspaceId)) return null;
    return this.workspaces.activeMembership(workspaceId, userId);
  }

  async list(principal: Principal, workspaceId: string, filter: MemberListFilter, page: number, limit: number): Promise<Paginated<MemberView>> {
    this.assertActsIn(principal, workspaceId);
    const { rows, total } = await this.workspaces.pageMembers(workspaceId, filter, page, limit);
    return paginated(
      rows.map((row) => memberView(row.member, row.name)),
      total,
      page,
      limit,
    );
  }

  async invite(principal: Principal, workspaceId: string, input: { email: Email; role: Role }): Promise<MemberView> {
    this.assertActsIn(principal, workspaceId);
    assertMayGrantRole(principal, input.role);
    await this.users.assertVerifiedIfRequired(principal.userId, 'invite anyone');
    const email = input.email;
    const already = (status: string) =>
      workspacesError('already_member', `${email} is already ${status === 'active' ? 'a member of' : 'invited to'} this workspace`);
    return this.dataSource.transaction(async (m) => {
      await this.lockWorkspace(m, workspaceId);
      const existing = await this.workspaces.findMemberByEmail(m, workspaceId, email);
      if (existing) throw already(existing.status);
      const member = { id: newId('mem'), workspaceId, email, role: input.role, status: 'invited' as const, userId: null, joinedAt: null };
      try {
        await this.workspaces.insertMember(m, member);
      } catch (err) {
        if (uniqueViolation(err) === 'UQ_workspace_members_workspace_email') throw already('invited');
        throw err;
      }
      await this.mailInvitation(m, principal, workspaceId, email, input.role);
      await this.audit.record(m, { workspaceId, action: 'member.invited', target: memberTarget(member), changes: ['email', 'role'] });
      return memberView(await this.workspaces.getMember(m, member.id));
    });
  }

  async changeRole(principal: Principal, workspaceId: string, memberId: string, role: Role): Promise<MemberView> {
    this.assertActsIn(principal, workspaceId);
    return this.dataSource.transaction(async (m) => {
      await this.lockWorkspace(m, workspaceId);
      const actor = await this.actorNow(m, principal, workspaceId);
      const member = await this.findMember(m, workspaceId, memberId);
      assertMayManageMember(actor, member);
      assertMayGrantRole(actor, role);
      await this.audit.record(m, { workspaceId, action: 'member.role_changed', target: memberTarget(member), changes: ['role'] });
      if (member.role === role) return memberView(member);
      assertKeepsAnOwner(member, role, await this.activeOwners(m, workspaceId));
      const wasOwner = member.role === 'owner';
      member.role = role;
      await this.workspaces.setRole(m, member.id, role);
      // Tokens may not hold more than their person now can.
      if (member.userId) await this.tokens.revokeForUser(m, workspaceId, member.userId, scopesForRole(role));
      if (wasOwner && member.userId && member.status === 'active') await this.ownerLeaves?.ownerLeft(m, workspaceId, member.userId);
      return memberView(member);
    });
  }

  /**
   * A signed-in actor as they stand now, read under the workspace's lock: the guard read
   * their role before the request waited for it, and an owner demoted (or a member removed)
   * meanwhile must not act with the role they lost. A token's powers are its scopes, and a
   * token revoked meanwhile is refused at its next request.
   */
  private async actorNow(m: EntityManager, principal: Principal, workspaceId: string): Promise<Principal> {
    if (principal.kind !== 'user' || !principal.userId) return principal;
    const role = await this.workspaces.activeRole(workspaceId, principal.userId, m);
    if (!role) throw authError('not_a_member', `You are no longer a member of workspace ${workspaceId}`);
    return { ...principal, role, scopes: scopesForRole(role) };
  }

  /** Admins remove others (owners only by owners); anyone may leave; the last owner may not. */
  async remove(principal: Principal, workspaceId: string, memberId: string): Promise<void> {
    this.assertActsIn(principal, workspaceId);
    await this.dataSource.transaction(async (m) => {
      await this.lockWorkspace(m, workspaceId);
      const member = await this.findMember(m, workspaceId, memberId);
      if (!isSelf(principal, member)) {
        const actor = await this.actorNow(m, principal, workspaceId);
        checkRequirements(
          { isPublic: false, kind: null, scopes: ['admin'], roles: [], workspaceOptional: false, workspaceWide: true, workspaceIn: null, roleRefusal: null },
          actor,
        );
        assertMayManageMember(actor, member);
      }
      assertKeepsAnOwner(member, null, await this.activeOwners(m, workspaceId));
      // Before the row goes, so what it ends is audited in this workspace too.
      if (member.role === 'owner' && member.userId && member.status === 'active') await this.ownerLeaves?.ownerLeft(m, workspaceId, member.userId);
      await this.workspaces.deleteMember(m, member.id);
      // Someone who left must not keep acting through the tokens they made.
      if (member.userId) await this.tokens.revokeForUser(m, workspaceId, member.userId, []);
      await this.audit.record(m, { workspaceId, action: 'member.removed', target: memberTarget(member) });
    });
  }

  /** Pending invitations addressed to the user's email, in any workspace. */
  async invitations(userId: string, page: number, limit: number): Promise<Paginated<InvitationView>> {
    const user = await this.users.findById(userId);
    // An invitation is for whoever reads mail at the address, not whoever registered it
    // first: an unverified account sees none (its user object says emailVerified: false).
    if (!user || !user.emailVerifiedAt) return paginated([], 0, page, limit);
    const { rows, total } = await this.workspaces.pageInvitations(user.email, page, limit);
    return paginated(
      rows.map((member) => invitationView(member, member.workspace!)),
      total,
      page,
      limit,
    );
  }

  /**
   * Only the person who reads mail at the invited address may take the invitation:
   * the account's address must equal the invited one (both normalised) and be
   * verified, or whoever registered that address first would join with its role.
   */
  async accept(userId: string, memberId: string): Promise<InvitationView> {
    return this.dataSource.transaction(async (m) => {
      const user = await this.users.findById(userId, m);
      if (user && !user.emailVerifiedAt) {
        if (await this.workspaces.invitationExists(m, memberId, user.email)) throw emailNotVerified('accept an invitation');
      }
      // One conditional update: two accepts racing cannot both win, and someone
      // else's invitation is as unknown as a made-up id.
      const accepted = user
        ? await this.workspaces.acceptInvitation(m, memberId, user.email, userId, new Date()).catch((err: unknown) => {
            // Already a member of that workspace (by another row): the invitation adds nothing.
            if (uniqueViolation(err) === 'UQ_workspace_members_workspace_user') {
              throw workspacesError('already_member', `You are already a member of the workspace invitation ${memberId} is for`);
            }
            throw err;
          })
        : false;
      if (!accepted) throw notFound('Invitation', memberId);
      const member = await this.workspaces.getMemberWithWorkspace(m, memberId);
      await this.audit.record(m, { workspaceId: member.workspaceId, action: 'member.joined', target: memberTarget(member) });
      return invitationView(member, member.workspace!);
    });
  }

  /** Tells the invitee, in the inviting transaction: with an account they accept in the dashboard, without one they sign up first. */
  private async mailInvitation(m: EntityManager, principal: Principal, workspaceId: string, email: Email, role: Role): Promise<void> {
    const workspace = await this.workspaces.getById(m, workspaceId);
    const inviter = principal.userId ? await this.userRows.findById(m, principal.userId) : null;
    const hasAccount = await this.userRows.emailTaken(m, email);
    const link = hasAccount ? `${this.config.apiBaseUrl}/app/invitations` : `${this.config.apiBaseUrl}/app/register?email=${encodeURIComponent(email)}`;
    await this.mail.queue(
      m,
      email,
      {
        template: 'invitation',
        data: { workspace: workspace.name, inviter: inviter ? inviter.name : `An API token of ${workspace.name}`, role, link, hasAccount },
      },
      this.clock.now(),
    );
  }

  /** Serialises member changes of one workspace, so two owners cannot remove each other at once. */
  private async lockWorkspace(m: EntityManager, workspaceId: string): Promise<void> {
    if (!(await this.workspaces.lock(m, workspaceId))) throw notFound('Workspace', workspaceId);
  }

  private async findMember(m: EntityManager, workspaceId: string, memberId: string): Promise<WorkspaceMember> {
    const member = await this.workspaces.findMember(m, workspaceId, memberId);
    if (!member) throw notFound('Member', memberId);
    return member;
  }

  private activeOwners(m: EntityManager, workspaceId: string): Promise<number> {
    return this.workspaces.countActiveOwners(m, workspaceId);
  }

  /** The guard matched the path to the caller; this keeps a service call from ever crossing workspaces. */
  private assertActsIn(principal: Principal, workspaceId: string): void {
    if (principal.workspaceId !== workspaceId) throw notFound('Workspace', workspaceId);
  }
}
