import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';

import { CurrentPrincipal } from '../access/decorators';
import { PageQueryDto } from '../common/pagination';
import { ApiProjectRoutes } from '../openapi/api-decorators';
import { Endpoint } from '../openapi/endpoint';
import type { Principal } from '../shared/principal';
import { PreviewListView } from './dto/preview-views.dto';
import { PreviewsService } from './previews.service';

@ApiProjectRoutes('previews')
@Controller('projects/:projectId/previews')
export class PreviewsController {
  constructor(private readonly previews: PreviewsService) {}

  @Get()
  @Endpoint({ id: 'listPreviews', scopes: ['read'] })
  @ApiOperation({ summary: 'List the project’s live branch and pull request preview addresses, the most recently updated first' })
  @ApiOkResponse({ type: PreviewListView })
  list(@CurrentPrincipal() principal: Principal, @Param('projectId') projectId: string, @Query() query: PageQueryDto) {
    return this.previews.list(principal, projectId, query.page, query.limit);
  }
}
