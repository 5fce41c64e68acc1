import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { CredentialKind, CurrentPrincipal, Scopes } from '../auth/decorators';
import { ApiPaginatedOk, ApiWorkspaceHeader, DeleteRoute } from '../auth/openapi';
import { PageQueryDto } from '../common/pagination';
import type { Principal } from '../shared/principal';
import { AccessTokenView, CreatedAccessTokenView, TokenContextView } from './access-token.view';
import { AccessTokensService } from './access-tokens.service';
import { CreateAccessTokenDto } from './dto/create-access-token.dto';

@ApiTags('access tokens')
@ApiWorkspaceHeader()
@Controller('access-tokens')
export class AccessTokensController {
  constructor(private readonly tokens: AccessTokensService) {}

  @Post()
  @Scopes('admin')
  @ApiOperation({
    summary: 'Create an API token',
    description:
      "The secret (`token`) is in this response only. Scopes cannot exceed the caller's; a project-bound token can only create tokens bound to its project.",
  })
  @ApiCreatedResponse({ type: CreatedAccessTokenView })
  create(@CurrentPrincipal() principal: Principal, @Body() dto: CreateAccessTokenDto): Promise<CreatedAccessTokenView> {
    return this.tokens.create(principal, dto);
  }

  @Get()
  @Scopes('read')
  @ApiOperation({ summary: "List the workspace's live API tokens (never their secrets)" })
  @ApiPaginatedOk(AccessTokenView)
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQueryDto) {
    return this.tokens.list(principal, query.page, query.limit);
  }

  @DeleteRoute(':tokenId', 'Revoke an API token; it stops working on the very next request')
  @Scopes('admin')
  async revoke(@CurrentPrincipal() principal: Principal, @Param('tokenId') tokenId: string): Promise<void> {
    await this.tokens.revoke(principal, tokenId);
  }
}

@ApiTags('access tokens')
@Controller('v1/me')
export class MeController {
  constructor(private readonly tokens: AccessTokensService) {}

  @Get()
  @CredentialKind('token')
  @ApiOperation({ summary: 'The workspace, scopes and project binding of the calling API token' })
  @ApiOkResponse({ type: TokenContextView })
  me(@CurrentPrincipal() principal: Principal): TokenContextView {
    return this.tokens.context(principal);
  }
}
