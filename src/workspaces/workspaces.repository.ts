import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

import { likeContaining } from '../common/list-search';
import { PAGE_TOTAL, preparedPage } from '../common/page-query';
import { GenerateSql } from '../database/generate-sql';
import { lazyHydrator } from '../database/hydrate';
import type { Role } from '../shared/principal';
import { type Plan, Workspace } from './workspace.entity';
import { type MemberStatus, WorkspaceMember } from './workspace-member.entity';

/** A page of rows and how many there are in all. */
export interface Page<T> {
  rows: T[];
  total: number;
}

const MEMBER = 'mem_sqlsnapshot0000000000000';

/** A user's active memberships with their workspaces, oldest workspace first (see `pageForUser`). */
const PAGE_FOR_USER = `
  SELECT c.${PAGE_TOTAL}, w.*
  FROM (SELECT count(*) AS ${PAGE_TOTAL} FROM workspace_members WHERE user_id = $1 AND status = 'active') c
  LEFT JOIN LATERAL (
    SELECT w.*, m.role AS member_role FROM workspace_members m JOIN workspaces w ON w.id = m.workspace_id
    WHERE m.user_id = $1 AND m.status = 'active' ORDER BY w.created_at, w.id LIMIT $2 OFFSET $3
  ) w ON true
  ORDER BY w.created_at, w.id`;

/** What narrows a page of the member list (GET /workspaces/:id/members). */
export interface MemberListFilter {
  /** Trimmed text matched anywhere in the email or the account's name, case-insensitively. */
  search?: string;
  role?: Role;
  status?: MemberStatus;
}

/**
 * The member's account name, looked up by the users primary key per member row: the cost
 * stays that of the workspace's own members however many accounts the service holds (a
 * join let the planner hash the whole users table).
 */
const USER_NAME = '(SELECT u.name FROM users u WHERE u.id = m.user_id)';

/**
 * `$1` workspace, `$2` limit, `$3` offset; further parameters only for the filters used, so
 * each combination is its own prepared statement with its own plan.
 */
function membersPageQuery(filter: MemberListFilter): { name: string; sql: string; extra: unknown[] } {
  const where = ['m.workspace_id = $1'];
  const extra: unknown[] = [];
  const name = ['members_page'];
  if (filter.search !== undefined) {
    extra.push(likeContaining(filter.search));
    const n = `$${3 + extra.length}`;
    where.push(`(m.email ILIKE ${n} OR ${USER_NAME} ILIKE ${n})`);
    name.push('search');
  }
  if (filter.role !== undefined) {
    extra.push(filter.role);
    where.push(`m.role = $${3 + extra.length}`);
    name.push('role');
  }
  if (filter.status !== undefined) {
    extra.push(filter.status);
    where.push(`m.status = $${3 + extra.length}`);
    name.push('status');
  }
  const conditions = where.join(' AND ');
  const sql = `
  SELECT c.${PAGE_TOTAL}, m.*
  FROM (SELECT count(*) AS ${PAGE_TOTAL} FROM workspace_members m WHERE ${conditions}) c
  LEFT JOIN LATERAL (
    SELECT m.*, ${USER_NAME} AS user_name FROM workspace_members m
    WHERE ${conditions}
    ORDER BY m.invited_at, m.id LIMIT $2 OFFSET $3
  ) m ON true
  ORDER BY m.invited_at, m.id`;
  return { name: name.join('_'), sql, extra };
}

/** Every query on workspaces and workspace_members (members and invitations). */
@Injectable()
export class WorkspacesRepository {
  private readonly hydrate = lazyHydrator(() => this.dataSource, Workspace);
  private readonly hydrateMember = lazyHydrator(() => this.dataSource, WorkspaceMember);

  constructor(private readonly dataSource: DataSource) {}

  @GenerateSql({ params: (f) => [f.manager, { id: 'ws_sqlsnapshot00000000000000', name: 'Fixture' }] })
  insert(manager: EntityManager, row: Pick<Workspace, 'id' | 'name'>): Promise<Workspace> {
    return manager.save(manager.create(Workspace, row));
  }

  @GenerateSql({ params: (f) => [f.manager, f.workspaceId] })
  findById(manager: EntityManager, id: string): Promise<Workspace | null> {
    return manager.findOneBy(Workspace, { id });
  }

  /**
   * The names and addresses of the workspace's active owners, in the caller's transaction:
   * account mails (billing, usage alerts, a webhook turned off) go to them.
   */
  @GenerateSql({ params: (f) => [f.manager, f.workspaceId] })
  activeOwners(manager: EntityManager, workspaceId: string): Promise<{ email: string; name: string }[]> {
    return manager.query(
      `SELECT u.email, u.name FROM workspace_members wm JOIN users u ON u.id = wm.user_id
        WHERE wm.workspace_id = $1 AND wm.role = 'owner' AND wm.status = 'active' ORDER BY u.email`,
      [workspaceId],
    );
  }

  /** For a workspace the caller already knows exists (its own, or one it holds locked). */
  @GenerateSql({ params: (f) => [f.manager, f.workspaceId] })
  getById(manager: EntityManager, id: string): Promise<Workspace> {
    return manager.findOneByOrFail(Workspace, { id });
  }

  /** Writes the workspace's changed columns (its name). */
  @GenerateSql({ params: (f) => [Object.assign(new Workspace(), { id: f.workspaceId, name: 'Fixture' })] })
  save(workspace: Workspace, manager: EntityManager = this.dataSource.manager): Promise<Workspace> {
    return manager.save(workspace);
  }

  /** The same in the caller's transaction (with the change's audit entry). */
  @GenerateSql({ params: (f) => [f.manager, Object.assign(new Workspace(), { id: f.workspaceId, name: 'Fixture' })] })
  saveIn(manager: EntityManager, workspace: Workspace): Promise<Workspace> {
    return manager.save(workspace);
  }

  /** The tier billing puts the workspace on (a no-op when it is on it already). */
  @GenerateSql({ params: (f) => [f.manager, 'ws_none', 'pro', new Date(0)] })
  async setPlan(manager: EntityManager, id: string, plan: Plan, now: Date): Promise<void> {
    await manager.query('UPDATE workspaces SET plan = $2, updated_at = $3 WHERE id = $1 AND plan <> $2', [id, plan, now]);
  }

  /**
   * Serialises member changes of one workspace, so two owners cannot remove each other
   * at once. False when there is no such workspace.
   */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.workspaceId] })
  async lock(manager: EntityManager, id: string): Promise<boolean> {
    return !!(await manager.findOne(Workspace, { select: { id: true }, where: { id }, lock: { mode: 'pessimistic_write' } }));
  }

  /** The workspaces the user is an active member of, with their role there, oldest first; prepared (common/page-query.ts). */
  @GenerateSql({ params: (f) => [f.userId, 1, 20] })
  async pageForUser(userId: string, page: number, limit: number): Promise<Page<{ workspace: Workspace; role: Role }>> {
    const { rows, total } = await preparedPage(this.dataSource, 'workspaces_page_for_user', PAGE_FOR_USER, [userId, limit, (page - 1) * limit]);
    return { rows: rows.map((row) => ({ workspace: this.hydrate(row), role: row.member_role as Role })), total };
  }

  @GenerateSql({ params: (f) => [f.workspaceId, f.userId] })
  async activeRole(workspaceId: string, userId: string, manager: EntityManager = this.dataSource.manager): Promise<Role | null> {
    const member = await manager.findOne(WorkspaceMember, {
      select: { role: true },
      where: { workspaceId, userId, status: 'active' },
    });
    return member?.role ?? null;
  }

  /**
   * The user's role as an active member, with the workspace's two-factor policy: the
   * guard's one lookup per workspace and user (cached per auth epoch).
   */
  @GenerateSql({ params: (f) => [f.workspaceId, f.userId] })
  async activeMembership(workspaceId: string, userId: string): Promise<{ role: Role; requireTwoFactor: boolean } | null> {
    const rows: { role: Role; require_two_factor: boolean }[] = await this.dataSource.manager.query(
      `SELECT m.role, w.require_two_factor FROM workspace_members m JOIN workspaces w ON w.id = m.workspace_id
        WHERE m.workspace_id = $1 AND m.user_id = $2 AND m.status = 'active'`,
      [workspaceId, userId],
    );
    return rows[0] ? { role: rows[0].role, requireTwoFactor: rows[0].require_two_factor } : null;
  }

  /**
   * A page of the workspace's members and invitations, oldest invitation first, narrowed by
   * `filter`, with the exact total of the narrowed list and each member's account name
   * (null for an invitation). Prepared, one statement per combination of filters
   * (common/page-query.ts), by UQ_workspace_members_workspace_email.
   */
  @GenerateSql(
    { name: 'workspace', params: (f) => [f.workspaceId, {}, 1, 20] },
    { name: 'search, role, invited', params: (f) => [f.workspaceId, { search: 'ann_50%', role: 'admin', status: 'invited' }, 1, 20] },
  )
  async pageMembers(
    workspaceId: string,
    filter: MemberListFilter,
    page: number,
    limit: number,
  ): Promise<Page<{ member: WorkspaceMember; name: string | null }>> {
    const query = membersPageQuery(filter);
    const { rows, total } = await preparedPage(this.dataSource, query.name, query.sql, [workspaceId, limit, (page - 1) * limit, ...query.extra]);
    return { rows: rows.map((row) => ({ member: this.hydrateMember(row), name: (row.user_name as string | null) ?? null })), total };
  }

  @GenerateSql({ params: (f) => [f.manager, f.workspaceId, MEMBER] })
  /** With its account's name (the member's view shows it); nothing else of the account is read. */
  findMember(manager: EntityManager, workspaceId: string, memberId: string): Promise<WorkspaceMember | null> {
    return manager
      .createQueryBuilder(WorkspaceMember, 'm')
      .leftJoin('m.user', 'u')
      .addSelect(['u.id', 'u.name'])
      .where('m.id = :memberId AND m.workspace_id = :workspaceId', { memberId, workspaceId })
      .getOne();
  }

  @GenerateSql({ params: (f) => [f.manager, f.workspaceId, f.email] })
  findMemberByEmail(manager: EntityManager, workspaceId: string, email: string): Promise<WorkspaceMember | null> {
    return manager.findOneBy(WorkspaceMember, { workspaceId, email });
  }

  @GenerateSql({ params: (f) => [f.manager, MEMBER] })
  getMember(manager: EntityManager, memberId: string): Promise<WorkspaceMember> {
    return manager.findOneByOrFail(WorkspaceMember, { id: memberId });
  }

  /** The member with its workspace and its account's name, for an invitation's view. */
  @GenerateSql({ params: (f) => [f.manager, MEMBER] })
  getMemberWithWorkspace(manager: EntityManager, memberId: string): Promise<WorkspaceMember> {
    return manager
      .createQueryBuilder(WorkspaceMember, 'm')
      .innerJoinAndSelect('m.workspace', 'w')
      .leftJoin('m.user', 'u')
      .addSelect(['u.id', 'u.name'])
      .where('m.id = :memberId', { memberId })
      .getOneOrFail();
  }

  /** Fails with UQ_workspace_members_workspace_email when the address is already there. */
  @GenerateSql({
    params: (f) => [f.manager, { id: MEMBER, workspaceId: f.workspaceId, email: f.email, role: 'viewer', status: 'invited', userId: null, joinedAt: null }],
  })
  async insertMember(
    manager: EntityManager,
    row: Pick<WorkspaceMember, 'id' | 'workspaceId' | 'email' | 'role' | 'status' | 'userId' | 'joinedAt'> & Partial<Pick<WorkspaceMember, 'invitedAt'>>,
  ): Promise<void> {
    await manager.insert(WorkspaceMember, row);
  }

  @GenerateSql({ params: (f) => [f.manager, MEMBER, 'admin'] })
  async setRole(manager: EntityManager, memberId: string, role: Role): Promise<void> {
    await manager.update(WorkspaceMember, { id: memberId }, { role });
  }

  @GenerateSql({ params: (f) => [f.manager, MEMBER] })
  async deleteMember(manager: EntityManager, memberId: string): Promise<void> {
    await manager.delete(WorkspaceMember, { id: memberId });
  }

  @GenerateSql({ params: (f) => [f.manager, f.workspaceId] })
  countActiveOwners(manager: EntityManager, workspaceId: string): Promise<number> {
    return manager.countBy(WorkspaceMember, { workspaceId, role: 'owner', status: 'active' });
  }

  /** Pending invitations addressed to `email`, in any workspace, with their workspace. */
  @GenerateSql({ params: (f) => [f.email, 1, 20] })
  async pageInvitations(email: string, page: number, limit: number): Promise<Page<WorkspaceMember>> {
    const [rows, total] = await this.dataSource.manager.findAndCount(WorkspaceMember, {
      where: { email, status: 'invited' },
      relations: { workspace: true },
      order: { invitedAt: 'ASC', id: 'ASC' },
      skip: (page - 1) * limit,
      take: limit,
    });
    return { rows, total };
  }

  @GenerateSql({ params: (f) => [f.manager, MEMBER, f.email] })
  invitationExists(manager: EntityManager, memberId: string, email: string): Promise<boolean> {
    return manager.existsBy(WorkspaceMember, { id: memberId, email, status: 'invited' });
  }

  /**
   * A confirmed change of a person's address: their memberships carry the new one, so an
   * invitation of that address or a sign-in through SSO as the old one (now free for someone
   * else) is matched by address as it is. An invitation of the new address to a workspace they
   * are already in is dropped (returned, for the audit log): they are a member there. Their
   * workspaces are locked first, in id order, as inviting locks one: an invitation of the new
   * address committing meanwhile is seen, not collided with.
   */
  @GenerateSql({ inTransaction: true, params: (f) => [f.manager, f.userId, 'new@example.com'] })
  async followEmailChange(manager: EntityManager, userId: string, email: string): Promise<{ id: string; workspace_id: string; email: string }[]> {
    await manager.query(
      `SELECT w.id FROM workspaces w WHERE w.id IN (SELECT workspace_id FROM workspace_members WHERE user_id = $1) ORDER BY w.id FOR UPDATE`,
      [userId],
    );
    const [dropped]: [{ id: string; workspace_id: string; email: string }[], number] = await manager.query(
      `DELETE FROM workspace_members i WHERE i.status = 'invited' AND i.email = $2
         AND EXISTS (SELECT 1 FROM workspace_members a WHERE a.workspace_id = i.workspace_id AND a.user_id = $1)
       RETURNING i.id, i.workspace_id, i.email`,
      [userId, email],
    );
    await manager.query('UPDATE workspace_members SET email = $2 WHERE user_id = $1', [userId, email]);
    return dropped;
  }

  /**
   * One conditional update: two accepts racing cannot both win, and an invitation to
   * another address is as unknown as a made-up id. False when nothing was accepted.
   */
  @GenerateSql({ params: (f) => [f.manager, MEMBER, f.email, f.userId, new Date(0)] })
  async acceptInvitation(manager: EntityManager, memberId: string, email: string, userId: string, joinedAt: Date): Promise<boolean> {
    const accepted = await manager.update(WorkspaceMember, { id: memberId, email, status: 'invited' }, { status: 'active', userId, joinedAt });
    return !!accepted.affected;
  }
}
