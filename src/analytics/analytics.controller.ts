import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';

import { CurrentPrincipal } from '../access/decorators';
import { ApiProjectRoutes } from '../openapi/api-decorators';
import { Endpoint } from '../openapi/endpoint';
import type { Principal } from '../shared/principal';
import { AnalyticsService } from './analytics.service';
import { AnalyticsDto } from './analytics.view';
import { AnalyticsQueryDto } from './dto/analytics-query.dto';

@ApiProjectRoutes('analytics')
@Controller('projects')
export class AnalyticsController {
  constructor(private readonly analytics: AnalyticsService) {}

  @Get(':projectId/analytics')
  @Endpoint({ id: 'getProjectAnalytics', scopes: ['read'] })
  @ApiOperation({
    summary:
      'Site traffic of a project: totals, a time series, top pages, referrers and 404s, and the gate funnel (UTC; counts reach this up to ANALYTICS_FLUSH_SECONDS late, up to 2 minutes after a slow flush)',
  })
  @ApiOkResponse({ type: AnalyticsDto })
  get(@CurrentPrincipal() principal: Principal, @Param('projectId') projectId: string, @Query() query: AnalyticsQueryDto): Promise<AnalyticsDto> {
    return this.analytics.forProject(principal, projectId, query);
  }
}
