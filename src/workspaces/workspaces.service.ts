import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import type { Principal } from '../auth/principal';
import { QuotaService } from '../billing/quota.service';
import { planLimitsView, workspaceUsageView } from '../billing/usage.view';
import { notFound } from '../common/errors';
import { newId } from '../common/ids';
import { pageWithTotal } from '../common/page-query';
import { Paginated, paginated } from '../common/pagination';
import { UsersService } from '../users/users.service';
import { WorkspaceMember } from './workspace-member.entity';
import { Workspace } from './workspace.entity';
import { WorkspaceDetailView, workspaceView, WorkspaceView } from './workspace.view';

@Injectable()
export class WorkspacesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly users: UsersService,
    private readonly quotas: QuotaService,
  ) {}

  /** A new workspace with `owner` as its one active owner, inside the caller's transaction. */
  async createWithOwner(manager: EntityManager, owner: { id: string; email: string }, name: string): Promise<Workspace> {
    const workspace = await manager.save(manager.create(Workspace, { id: newId('ws'), name }));
    await manager.insert(WorkspaceMember, {
      id: newId('mem'),
      workspaceId: workspace.id,
      userId: owner.id,
      email: owner.email,
      role: 'owner',
      status: 'active',
      invitedAt: workspace.createdAt,
      joinedAt: workspace.createdAt,
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
      const own = await this.dataSource.manager.findOneByOrFail(Workspace, { id: principal.workspaceId! });
      return paginated(page === 1 ? [workspaceView(own, null)] : [], 1, page, limit);
    }
    const query = this.dataSource.manager
      .createQueryBuilder(Workspace, 'w')
      .innerJoin(WorkspaceMember, 'm', 'm.workspace_id = w.id')
      .select(['w.id', 'w.name', 'w.plan', 'w.createdAt', 'w.updatedAt'])
      .addSelect('m.role', 'member_role')
      .where('m.user_id = :userId AND m.status = :status', { userId: principal.userId, status: 'active' });
    const { entities, raw, total } = await pageWithTotal(query.orderBy('w.created_at', 'ASC').addOrderBy('w.id', 'ASC'), page, limit);
    return paginated(
      entities.map((w, i) => workspaceView(w, raw[i].member_role as WorkspaceView['role'])),
      total,
      page,
      limit,
    );
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

  async rename(principal: Principal, workspaceId: string, name: string): Promise<WorkspaceView> {
    const workspace = await this.find(principal, workspaceId);
    workspace.name = name;
    return workspaceView(await this.dataSource.manager.save(workspace), principal.role ?? null);
  }

  private async find(principal: Principal, workspaceId: string): Promise<Workspace> {
    const workspace =
      principal.workspaceId === workspaceId ? await this.dataSource.manager.findOneBy(Workspace, { id: workspaceId }) : null;
    if (!workspace) throw notFound('Workspace', workspaceId);
    return workspace;
  }
}
