import { ApiProperty } from '@nestjs/swagger';

import { IdProperty, NullableStringProperty } from '../common/dto-fields';
import { iso } from '../common/time';
import { PlanLimitsView, WorkspaceUsageView } from '../quotas/usage.view';
import { type Role, ROLES } from '../shared/principal';
import { type Plan, PLANS, type Workspace } from './workspace.entity';
import type { MemberStatus, WorkspaceMember } from './workspace-member.entity';

export class WorkspaceView {
  @IdProperty('ws')
  id: string;
  @ApiProperty({ example: 'Acme' })
  name: string;
  @ApiProperty({ enum: PLANS })
  plan: Plan;
  @ApiProperty({ example: '2025-01-01T00:00:00.000Z' })
  createdAt: string;
  @ApiProperty({ enum: ROLES, nullable: true, type: String, description: "The caller's role; null for an API token" })
  role: Role | null;
  @ApiProperty({ description: 'Members need a second factor to act here with the dashboard (owners set it)' })
  requireTwoFactor: boolean;
}

export function workspaceView(workspace: Workspace, role: Role | null): WorkspaceView {
  return {
    id: workspace.id,
    name: workspace.name,
    plan: workspace.plan,
    createdAt: iso(workspace.createdAt),
    role,
    requireTwoFactor: workspace.requireTwoFactor,
  };
}

/** GET /workspaces/:id: the workspace with its plan's limits and what it uses of them. */
export class WorkspaceDetailView extends WorkspaceView {
  @ApiProperty({ type: PlanLimitsView })
  limits: PlanLimitsView;
  @ApiProperty({ type: WorkspaceUsageView })
  usage: WorkspaceUsageView;
}

export class MemberView {
  @IdProperty('mem')
  id: string;
  @ApiProperty({ example: 'ann@example.com' })
  email: string;
  @ApiProperty({ enum: ROLES })
  role: Role;
  @ApiProperty({ enum: ['invited', 'active'], description: '`invited` until the invited person accepts' })
  status: MemberStatus;
  @ApiProperty({ example: '2025-01-01T00:00:00.000Z' })
  invitedAt: string;
  @NullableStringProperty({ example: '2025-01-02T00:00:00.000Z' })
  joinedAt: string | null;
  @NullableStringProperty({ description: 'Null until the invitation is accepted' })
  userId: string | null;
  @NullableStringProperty({ example: 'Ann Lee', description: "The member's account name; null for an invitation, which has only its email" })
  name: string | null;
}

/** `name` defaults to the loaded account's (`member.user`); an invitation has none. */
export function memberView(member: WorkspaceMember, name: string | null = member.user?.name ?? null): MemberView {
  return {
    id: member.id,
    email: member.email,
    role: member.role,
    status: member.status,
    invitedAt: iso(member.invitedAt),
    joinedAt: iso(member.joinedAt),
    userId: member.userId,
    name,
  };
}

export class InvitationView extends MemberView {
  @IdProperty('ws')
  workspaceId: string;
  @ApiProperty({ example: 'Acme' })
  workspaceName: string;
}

export function invitationView(member: WorkspaceMember, workspace: Workspace): InvitationView {
  return { ...memberView(member), workspaceId: workspace.id, workspaceName: workspace.name };
}
