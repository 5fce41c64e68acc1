import { Body, Controller, Get, HttpCode, HttpStatus, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { CurrentPrincipal } from '../access/decorators';
import { EmptyBodyDto } from '../common/empty-body.dto';
import { PageQueryDto } from '../common/pagination';
import { ApiPaginatedOk, DeleteRoute } from '../openapi/api-decorators';
import { Endpoint } from '../openapi/endpoint';
import type { Principal } from '../shared/principal';
import { ListMembersQueryDto } from './dto/list-members.dto';
import { InviteMemberDto, UpdateMemberDto } from './dto/member.dto';
import { CreateWorkspaceDto, UpdateWorkspaceDto } from './dto/workspace.dto';
import { MembersService } from './members.service';
import { InvitationView, MemberView, WorkspaceDetailView, WorkspaceView } from './workspace.view';
import { WorkspacesService } from './workspaces.service';

@ApiTags('workspaces')
@Controller('workspaces')
export class WorkspacesController {
  constructor(private readonly workspaces: WorkspacesService) {}

  @Get()
  @Endpoint({ id: 'listWorkspaces', workspaceOptional: true })
  @ApiOperation({ summary: "The caller's workspaces: a user's active memberships, or an API token's own workspace" })
  @ApiPaginatedOk(WorkspaceView)
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQueryDto) {
    return this.workspaces.list(principal, query.page, query.limit);
  }

  @Post()
  @Endpoint({ id: 'createWorkspace', credential: 'user', workspaceOptional: true, errors: { 404: ['not_found'] }, audit: 'workspace.created' })
  @ApiOperation({ summary: 'Create a workspace; the signed-in user becomes its owner' })
  @ApiCreatedResponse({ type: WorkspaceView })
  create(@CurrentPrincipal() principal: Principal, @Body() dto: CreateWorkspaceDto): Promise<WorkspaceView> {
    return this.workspaces.create(principal, dto.name);
  }

  @Get(':workspaceId')
  @Endpoint({ id: 'getWorkspace' })
  @ApiOperation({ summary: "A workspace with the caller's role in it, its plan's limits and its usage of them" })
  @ApiOkResponse({ type: WorkspaceDetailView })
  get(@CurrentPrincipal() principal: Principal, @Param('workspaceId') workspaceId: string): Promise<WorkspaceDetailView> {
    return this.workspaces.get(principal, workspaceId);
  }

  @Patch(':workspaceId')
  @Endpoint({ id: 'updateWorkspace', scopes: ['admin'], workspaceWide: true, audit: 'workspace.updated', errors: { 403: ['owner_required'] } })
  @ApiOperation({ summary: 'Rename a workspace, or (owners) set whether its members need a second factor' })
  @ApiOkResponse({ type: WorkspaceView })
  update(@CurrentPrincipal() principal: Principal, @Param('workspaceId') workspaceId: string, @Body() dto: UpdateWorkspaceDto): Promise<WorkspaceView> {
    return this.workspaces.update(principal, workspaceId, dto);
  }
}

@ApiTags('members')
@Controller('workspaces/:workspaceId/members')
export class MembersController {
  constructor(private readonly members: MembersService) {}

  @Get()
  @Endpoint({ id: 'listMembers', scopes: ['read'], workspaceWide: true })
  @ApiOperation({
    summary: 'Members and pending invitations of a workspace',
    description: 'Oldest invitation first; `search`, `role` and `status` narrow the list, and its total and pages count only what matches.',
  })
  @ApiPaginatedOk(MemberView)
  list(@CurrentPrincipal() principal: Principal, @Param('workspaceId') workspaceId: string, @Query() query: ListMembersQueryDto) {
    return this.members.list(principal, workspaceId, { search: query.search, role: query.role, status: query.status }, query.page, query.limit);
  }

  @Post()
  @Endpoint({
    id: 'inviteMember',
    scopes: ['admin'],
    audit: 'member.invited',
    workspaceWide: true,
    errors: { 403: ['insufficient_role', 'email_not_verified'], 409: ['already_member'] },
  })
  @ApiOperation({ summary: 'Invite someone by email as admin or viewer (an owner may also invite an owner)' })
  @ApiCreatedResponse({ type: MemberView })
  invite(@CurrentPrincipal() principal: Principal, @Param('workspaceId') workspaceId: string, @Body() dto: InviteMemberDto): Promise<MemberView> {
    return this.members.invite(principal, workspaceId, dto);
  }

  @Patch(':memberId')
  @Endpoint({
    id: 'updateMember',
    scopes: ['admin'],
    workspaceWide: true,
    errors: { 403: ['insufficient_role'], 409: ['last_owner'] },
    audit: 'member.role_changed',
  })
  @ApiOperation({ summary: "Change a member's role (owners only for the owner role; the last owner cannot be demoted)" })
  @ApiOkResponse({ type: MemberView })
  update(
    @CurrentPrincipal() principal: Principal,
    @Param('workspaceId') workspaceId: string,
    @Param('memberId') memberId: string,
    @Body() dto: UpdateMemberDto,
  ): Promise<MemberView> {
    return this.members.changeRole(principal, workspaceId, memberId, dto.role);
  }

  // No scope: a member may always remove themselves; removing someone else needs `admin` (checked in the service).
  @DeleteRoute(':memberId', 'Remove a member or withdraw an invitation; anyone may leave; the last owner cannot be removed')
  @Endpoint({
    id: 'removeMember',
    workspaceWide: true,
    errors: { 403: ['insufficient_role', 'insufficient_scope'], 409: ['last_owner'] },
    audit: 'member.removed',
  })
  async remove(@CurrentPrincipal() principal: Principal, @Param('workspaceId') workspaceId: string, @Param('memberId') memberId: string): Promise<void> {
    await this.members.remove(principal, workspaceId, memberId);
  }
}

@ApiTags('members')
@Controller('invitations')
export class InvitationsController {
  constructor(private readonly members: MembersService) {}

  @Get()
  @Endpoint({ id: 'listInvitations', credential: 'user', workspaceOptional: true })
  @ApiOperation({ summary: "Pending invitations to the signed-in user's email" })
  @ApiPaginatedOk(InvitationView)
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQueryDto) {
    return this.members.invitations(principal.userId!, query.page, query.limit);
  }

  @Post(':memberId/accept')
  @Endpoint({
    id: 'acceptInvitation',
    credential: 'user',
    workspaceOptional: true,
    errors: { 403: ['email_not_verified'], 409: ['already_member'] },
    audit: 'member.joined',
  })
  @HttpCode(HttpStatus.OK)
  @ApiOperation({ summary: 'Accept an invitation: the user becomes an active member with the invited role' })
  @ApiOkResponse({ type: InvitationView })
  accept(@CurrentPrincipal() principal: Principal, @Param('memberId') memberId: string, @Body() _body: EmptyBodyDto): Promise<InvitationView> {
    return this.members.accept(principal.userId!, memberId);
  }
}
