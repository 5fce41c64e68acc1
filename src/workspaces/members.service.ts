import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AccessTokensService } from '../access-tokens/access-tokens.service';
import { checkRequirements } from '../auth/authorize';
import { scopesForRole } from '../auth/permissions';
import type { Principal, Role } from '../auth/principal';
import { uniqueViolation } from '../common/db-errors';
import { notFound } from '../common/errors';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { MailService } from '../mail/mail.service';
import { User } from '../users/user.entity';
import { isId, newId } from '../common/ids';
import { Paginated, paginated } from '../common/pagination';
import { normalizeEmail } from '../users/email';
import { emailNotVerified, UsersService } from '../users/users.service';
import { assertKeepsAnOwner, assertMayGrantRole, assertMayManageMember, isSelf } from './member-rules';
import { WorkspaceMember } from './workspace-member.entity';
import { Workspace } from './workspace.entity';
import { invitationView, InvitationView, memberView, MemberView } from './workspace.view';
import { workspacesError } from './workspaces.errors';

@Injectable()
export class MembersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly users: UsersService,
    private readonly tokens: AccessTokensService,
    private readonly mail: MailService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  /** The user's role in the workspace if they are an active member there (the guard asks this on every JWT request). */
  async activeRole(workspaceId: string, userId: string): Promise<Role | null> {
    // Whatever the path held: no id, no member (and no query to fail on odd text).
    if (!isId('ws', workspaceId)) return null;
    const member = await this.dataSource.manager.findOne(WorkspaceMember, {
      select: { role: true },
      where: { workspaceId, userId, status: 'active' },
    });
    return member?.role ?? null;
  }

  async list(principal: Principal, workspaceId: string, page: number, limit: number): Promise<Paginated<MemberView>> {
    this.assertActsIn(principal, workspaceId);
    const [members, total] = await this.dataSource.manager.findAndCount(WorkspaceMember, {
      where: { workspaceId },
      order: { invitedAt: 'ASC', id: 'ASC' },
      skip: (page - 1) * limit,
      take: limit,
    });
    return paginated(members.map(memberView), total, page, limit);
  }

  async invite(principal: Principal, workspaceId: string, input: { email: string; role: Role }): Promise<MemberView> {
    this.assertActsIn(principal, workspaceId);
    assertMayGrantRole(principal, input.role);
    await this.users.assertVerifiedIfRequired(principal.userId, 'invite anyone');
    const email = normalizeEmail(input.email);
    const already = (status: string) =>
      workspacesError('already_member', `${email} is already ${status === 'active' ? 'a member of' : 'invited to'} this workspace`);
    return this.dataSource.transaction(async (m) => {
      await this.lockWorkspace(m, workspaceId);
      const existing = await m.findOneBy(WorkspaceMember, { workspaceId, email });
      if (existing) throw already(existing.status);
      const member = m.create(WorkspaceMember, { id: newId('mem'), workspaceId, email, role: input.role, status: 'invited', userId: null, joinedAt: null });
      try {
        await m.insert(WorkspaceMember, member);
      } catch (err) {
        if (uniqueViolation(err) === 'UQ_workspace_members_workspace_email') throw already('invited');
        throw err;
      }
      await this.mailInvitation(m, principal, workspaceId, email, input.role);
      return memberView(await m.findOneByOrFail(WorkspaceMember, { id: member.id }));
    });
  }

  async changeRole(principal: Principal, workspaceId: string, memberId: string, role: Role): Promise<MemberView> {
    this.assertActsIn(principal, workspaceId);
    return this.dataSource.transaction(async (m) => {
      await this.lockWorkspace(m, workspaceId);
      const member = await this.findMember(m, workspaceId, memberId);
      assertMayManageMember(principal, member);
      assertMayGrantRole(principal, role);
      if (member.role === role) return memberView(member);
      assertKeepsAnOwner(member, role, await this.activeOwners(m, workspaceId));
      member.role = role;
      await m.update(WorkspaceMember, { id: member.id }, { role });
      // Tokens may not hold more than their person now can.
      if (member.userId) await this.tokens.revokeForUser(m, workspaceId, member.userId, scopesForRole(role));
      return memberView(member);
    });
  }

  /** Admins remove others (owners only by owners); anyone may leave; the last owner may not. */
  async remove(principal: Principal, workspaceId: string, memberId: string): Promise<void> {
    this.assertActsIn(principal, workspaceId);
    await this.dataSource.transaction(async (m) => {
      await this.lockWorkspace(m, workspaceId);
      const member = await this.findMember(m, workspaceId, memberId);
      if (!isSelf(principal, member)) {
        checkRequirements({ isPublic: false, kind: null, scopes: ['admin'], roles: [], workspaceOptional: false, workspaceWide: true, workspaceIn: null, roleRefusal: null }, principal);
        assertMayManageMember(principal, member);
      }
      assertKeepsAnOwner(member, null, await this.activeOwners(m, workspaceId));
      await m.delete(WorkspaceMember, { id: member.id });
      // Someone who left must not keep acting through the tokens they made.
      if (member.userId) await this.tokens.revokeForUser(m, workspaceId, member.userId, []);
    });
  }

  /** Pending invitations addressed to the user's email, in any workspace. */
  async invitations(userId: string, page: number, limit: number): Promise<Paginated<InvitationView>> {
    const user = await this.users.findById(userId);
    // An invitation is for whoever reads mail at the address, not whoever registered it
    // first: an unverified account sees none (its user object says emailVerified: false).
    if (!user || !user.emailVerifiedAt) return paginated([], 0, page, limit);
    const [members, total] = await this.dataSource.manager.findAndCount(WorkspaceMember, {
      where: { email: user.email, status: 'invited' },
      relations: { workspace: true },
      order: { invitedAt: 'ASC', id: 'ASC' },
      skip: (page - 1) * limit,
      take: limit,
    });
    return paginated(
      members.map((member) => invitationView(member, member.workspace!)),
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
        const invited = await m.existsBy(WorkspaceMember, { id: memberId, email: user.email, status: 'invited' });
        if (invited) throw emailNotVerified('accept an invitation');
      }
      // One conditional update: two accepts racing cannot both win, and someone
      // else's invitation is as unknown as a made-up id.
      const accepted = user
        ? await m.update(WorkspaceMember, { id: memberId, email: user.email, status: 'invited' }, { status: 'active', userId, joinedAt: new Date() })
        : { affected: 0 };
      if (!accepted.affected) throw notFound('Invitation', memberId);
      const member = await m.findOneOrFail(WorkspaceMember, { where: { id: memberId }, relations: { workspace: true } });
      return invitationView(member, member.workspace!);
    });
  }

  /** Tells the invitee, in the inviting transaction: with an account they accept in the dashboard, without one they sign up first. */
  private async mailInvitation(m: EntityManager, principal: Principal, workspaceId: string, email: string, role: Role): Promise<void> {
    const workspace = await m.findOneByOrFail(Workspace, { id: workspaceId });
    const inviter = principal.userId ? await m.findOneBy(User, { id: principal.userId }) : null;
    const hasAccount = await m.existsBy(User, { email });
    const link = hasAccount ? `${this.config.apiBaseUrl}/app/invitations` : `${this.config.apiBaseUrl}/app/register?email=${encodeURIComponent(email)}`;
    await this.mail.queue(
      m,
      email,
      { template: 'invitation', data: { workspace: workspace.name, inviter: inviter ? inviter.name : `An API token of ${workspace.name}`, role, link, hasAccount } },
      this.clock.now(),
    );
  }

  /** Serialises member changes of one workspace, so two owners cannot remove each other at once. */
  private async lockWorkspace(m: EntityManager, workspaceId: string): Promise<void> {
    const found = await m.findOne(Workspace, { select: { id: true }, where: { id: workspaceId }, lock: { mode: 'pessimistic_write' } });
    if (!found) throw notFound('Workspace', workspaceId);
  }

  private async findMember(m: EntityManager, workspaceId: string, memberId: string): Promise<WorkspaceMember> {
    const member = await m.findOneBy(WorkspaceMember, { id: memberId, workspaceId });
    if (!member) throw notFound('Member', memberId);
    return member;
  }

  private activeOwners(m: EntityManager, workspaceId: string): Promise<number> {
    return m.countBy(WorkspaceMember, { workspaceId, role: 'owner', status: 'active' });
  }

  /** The guard matched the path to the caller; this keeps a service call from ever crossing workspaces. */
  private assertActsIn(principal: Principal, workspaceId: string): void {
    if (principal.workspaceId !== workspaceId) throw notFound('Workspace', workspaceId);
  }
}
