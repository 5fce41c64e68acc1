import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { CurrentPrincipal } from '../access/decorators';
import { ApiPaginatedOk, ApiWorkspaceHeader, DeleteRoute } from '../openapi/api-decorators';
import { Endpoint } from '../openapi/endpoint';
import type { Principal } from '../shared/principal';
import { AccessTokenView, CreatedAccessTokenView, TokenContextView } from './access-token.view';
import { AccessTokensService } from './access-tokens.service';
import { CreateAccessTokenDto } from './dto/create-access-token.dto';
import { ListAccessTokensQueryDto } from './dto/list-access-tokens.dto';

@ApiTags('access tokens')
@ApiWorkspaceHeader()
@Controller('access-tokens')
export class AccessTokensController {
  constructor(private readonly tokens: AccessTokensService) {}

  @Post()
  @Endpoint({
    id: 'createAccessToken',
    scopes: ['admin'],
    audit: 'token.created',
    errors: { 403: ['insufficient_scope', 'token_outlives_creator', 'project_bound_token', 'reauthentication_required'], 404: ['not_found'] },
  })
  @ApiOperation({
    summary: 'Create an API token',
    description:
      "The secret (`token`) is in this response only. Scopes cannot exceed the caller's; a project-bound token can only create tokens bound to its project. " +
      'Created in a signed-in session, it needs a sign-in of the last 15 minutes (403 `reauthentication_required`: POST /auth/reauthenticate), since a token outlives the session; an API token creating one does not.',
  })
  @ApiCreatedResponse({ type: CreatedAccessTokenView })
  create(@CurrentPrincipal() principal: Principal, @Body() dto: CreateAccessTokenDto): Promise<CreatedAccessTokenView> {
    return this.tokens.create(principal, dto);
  }

  @Get()
  @Endpoint({ id: 'listAccessTokens', scopes: ['read'] })
  @ApiOperation({
    summary: "List the workspace's live API tokens (never their secrets)",
    description: 'Newest first; `search` and `status` narrow the list, and its total and pages count only what matches.',
  })
  @ApiPaginatedOk(AccessTokenView)
  list(@CurrentPrincipal() principal: Principal, @Query() query: ListAccessTokensQueryDto) {
    return this.tokens.list(principal, { search: query.search, status: query.status }, query.page, query.limit);
  }

  @DeleteRoute(':tokenId', 'Revoke an API token; it stops working on the very next request')
  @Endpoint({ id: 'revokeAccessToken', scopes: ['admin'], audit: 'token.revoked' })
  async revoke(@CurrentPrincipal() principal: Principal, @Param('tokenId') tokenId: string): Promise<void> {
    await this.tokens.revoke(principal, tokenId);
  }
}

@ApiTags('access tokens')
@Controller('v1/me')
export class MeController {
  constructor(private readonly tokens: AccessTokensService) {}

  @Get()
  @Endpoint({ id: 'getTokenContext', credential: 'token' })
  @ApiOperation({ summary: 'The workspace, scopes and project binding of the calling API token' })
  @ApiOkResponse({ type: TokenContextView })
  me(@CurrentPrincipal() principal: Principal): TokenContextView {
    return this.tokens.context(principal);
  }
}
