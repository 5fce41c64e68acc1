import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

import { authError } from '../access/auth.errors';
import { AuditLogService, changedFields } from '../audit/audit-log.service';
import { badRequest, notFound } from '../common/errors';
import { FreshReads } from '../common/fresh-read';
import { newId } from '../common/ids';
import { Paginated, paginated } from '../common/pagination';
import { QuotaService } from '../quotas/quota.service';
import { planLimitsView, workspaceUsageView } from '../quotas/usage.view';
import type { Principal } from '../shared/principal';
import { UsersService } from '../users/users.service';
import type { UpdateWorkspaceDto } from './dto/workspace.dto';
import type { Workspace } from './workspace.entity';
import { WorkspaceDetailView, WorkspaceView, workspaceView } from './workspace.view';
import { WorkspacesRepository } from './workspaces.repository';

/** A workspace as the audit log names it. */
export function workspaceTarget(workspace: Pick<Workspace, 'id' | 'name'>) {
  return { type: 'workspace', id: workspace.id, label: workspace.name };
}

@Injectable()
export class WorkspacesService {
  private readonly pagesForUser = new FreshReads<Paginated<WorkspaceView>>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly workspaces: WorkspacesRepository,
    private readonly users: UsersService,
    private readonly quotas: QuotaService,
    private readonly audit: AuditLogService,
  ) {}

  /** A new workspace with `owner` as its one active owner, inside the caller's transaction. */
  async createWithOwner(manager: EntityManager, owner: { id: string; email: string }, name: string): Promise<Workspace> {
    const workspace = await this.workspaces.insert(manager, { id: newId('ws'), name });
    await this.workspaces.insertMember(manager, {
      id: newId('mem'),
      workspaceId: workspace.id,
      userId: owner.id,
      email: owner.email,
      role: 'owner',
      status: 'active',
      invitedAt: workspace.createdAt,
      joinedAt: workspace.createdAt,
    });
    // The owner is the actor on sign-up too, where the request has no caller yet.
    await this.audit.record(manager, {
      workspaceId: workspace.id,
      action: 'workspace.created',
      actor: { type: 'user', id: owner.id },
      target: workspaceTarget(workspace),
      changes: ['name'],
    });
    return workspace;
  }

  async create(principal: Principal, name: string): Promise<WorkspaceView> {
    return this.dataSource.transaction(async (m) => {
      const user = await this.users.findById(principal.userId!, m);
      // The JWT outlived its account: nothing to create a workspace for.
      if (!user) throw notFound('User', principal.userId);
      return workspaceView(await this.createWithOwner(m, user, name), 'owner');
    });
  }

  /** A user's workspaces are those they are an active member of; a token's is its own. */
  async list(principal: Principal, page: number, limit: number): Promise<Paginated<WorkspaceView>> {
    if (principal.kind === 'token') {
      const own = await this.workspaces.getById(this.dataSource.manager, principal.workspaceId!);
      return paginated(page === 1 ? [workspaceView(own, null)] : [], 1, page, limit);
    }
    // Identical lists asked for at the same time share one read (as ProjectsService.list).
    return this.pagesForUser.get(JSON.stringify([principal.userId, page, limit]), async () => {
      const { rows, total } = await this.workspaces.pageForUser(principal.userId!, page, limit);
      return paginated(
        rows.map(({ workspace, role }) => workspaceView(workspace, role)),
        total,
        page,
        limit,
      );
    });
  }

  /** The guard has already checked that the caller belongs to `workspaceId`. */
  async get(principal: Principal, workspaceId: string): Promise<WorkspaceDetailView> {
    const workspace = await this.find(principal, workspaceId);
    // The plan in force (a cancelled one ends at its period's end, before the sweeper writes it back).
    const [plan, usage] = await Promise.all([this.quotas.planOf(workspaceId), this.quotas.usage(workspaceId)]);
    return {
      ...workspaceView(workspace, principal.role ?? null),
      plan: plan.tier,
      limits: planLimitsView(plan.limits),
      usage: workspaceUsageView(usage, plan.limits),
    };
  }

  /**
   * A PATCH: the name, and (owners only) the two-factor policy, with `workspace.updated`
   * naming the fields set, in one transaction.
   */
  async update(principal: Principal, workspaceId: string, dto: UpdateWorkspaceDto): Promise<WorkspaceView> {
    const changes = changedFields(dto);
    if (changes.length === 0) throw badRequest('Send at least one of name, requireTwoFactor');
    const workspace = await this.find(principal, workspaceId);
    if (dto.requireTwoFactor !== undefined && principal.role !== 'owner') {
      throw authError(
        'owner_required',
        `Only an owner of workspace ${workspaceId} can change requireTwoFactor; your role is ${principal.role ?? 'none (an API token)'}`,
      );
    }
    const saved = await this.dataSource.transaction(async (m) => {
      // Changed on the row as it stands under the lock: a rename saving a copy read before an
      // owner's policy change committed would write the old requireTwoFactor back.
      await this.workspaces.lock(m, workspace.id);
      const current = await this.find(principal, workspaceId, m);
      if (dto.name !== undefined) current.name = dto.name;
      if (dto.requireTwoFactor !== undefined) current.requireTwoFactor = dto.requireTwoFactor;
      const row = await this.workspaces.saveIn(m, current);
      await this.audit.record(m, { workspaceId, action: 'workspace.updated', target: workspaceTarget(row), changes });
      return row;
    });
    return workspaceView(saved, principal.role ?? null);
  }

  private async find(principal: Principal, workspaceId: string, manager: EntityManager = this.dataSource.manager): Promise<Workspace> {
    const workspace = principal.workspaceId === workspaceId ? await this.workspaces.findById(manager, workspaceId) : null;
    if (!workspace) throw notFound('Workspace', workspaceId);
    return workspace;
  }
}
