import { Body, Controller, Get, HttpCode, HttpStatus, Param, Post, Query, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiProduces } from '@nestjs/swagger';
import type { Response } from 'express';

import { CurrentPrincipal } from '../access/decorators';
import { ApiProjectRoutes } from '../openapi/api-decorators';
import { Endpoint } from '../openapi/endpoint';
import type { Principal } from '../shared/principal';
import { buildView } from './build.view';
import { BuildsService } from './builds.service';
import { BuildListView, BuildView } from './dto/build-views.dto';
import { BuildListQueryDto, BuildLogQueryDto, CreateBuildDto } from './dto/builds.dto';

const TEXT = 'text/plain; charset=utf-8';

@ApiProjectRoutes('builds')
@Controller('projects/:projectId/builds')
export class BuildsController {
  constructor(private readonly builds: BuildsService) {}

  @Post()
  @Endpoint({
    id: 'createBuild',
    scopes: ['deploy'],
    audit: 'build.started',
    errors: { 400: ['invalid_ref'], 402: ['quota_exceeded'], 409: ['git_not_connected'], 503: ['builds_unavailable'] },
  })
  @HttpCode(HttpStatus.ACCEPTED)
  @ApiOperation({ summary: 'Build a branch, tag or commit of the connected repository (default the production branch) and deploy its output' })
  @ApiAcceptedResponse({ type: BuildView })
  async create(@CurrentPrincipal() principal: Principal, @Param('projectId') projectId: string, @Body() dto: CreateBuildDto): Promise<BuildView> {
    return buildView(await this.builds.start(principal, projectId, { ref: dto.ref, trigger: 'manual' }));
  }

  @Get()
  @Endpoint({ id: 'listBuilds', scopes: ['read'] })
  @ApiOperation({ summary: 'List the project’s builds, newest first' })
  @ApiOkResponse({ type: BuildListView })
  list(@CurrentPrincipal() principal: Principal, @Param('projectId') projectId: string, @Query() query: BuildListQueryDto) {
    return this.builds.list(principal, projectId, { branch: query.branch, status: query.status }, query.page, query.limit);
  }

  @Get(':buildId')
  @Endpoint({ id: 'getBuild', scopes: ['read'], errors: { 404: ['build_not_found'] } })
  @ApiOperation({ summary: 'Get a build' })
  @ApiOkResponse({ type: BuildView })
  async get(@CurrentPrincipal() principal: Principal, @Param('projectId') projectId: string, @Param('buildId') buildId: string): Promise<BuildView> {
    return buildView(await this.builds.get(principal, projectId, buildId));
  }

  @Post(':buildId/cancel')
  @Endpoint({ id: 'cancelBuild', scopes: ['deploy'], errors: { 404: ['build_not_found'], 409: ['build_finished'] }, audit: 'build.canceled' })
  @HttpCode(HttpStatus.ACCEPTED)
  @ApiOperation({ summary: 'Cancel a queued or running build; a running build’s processes are killed within seconds' })
  @ApiAcceptedResponse({ type: BuildView })
  async cancel(@CurrentPrincipal() principal: Principal, @Param('projectId') projectId: string, @Param('buildId') buildId: string): Promise<BuildView> {
    return buildView(await this.builds.cancel(principal, projectId, buildId));
  }

  @Get(':buildId/logs')
  @Endpoint({ id: 'getBuildLogs', scopes: ['read'], errors: { 404: ['build_not_found'] } })
  @ApiOperation({
    summary: 'The build’s log as text, one line per output line: `<ISO-8601 timestamp> [<phase>] <text>`; with follow=1 it streams until the build ends',
  })
  @ApiProduces(TEXT)
  @ApiOkResponse({ schema: { type: 'string' } })
  async logs(
    @CurrentPrincipal() principal: Principal,
    @Param('projectId') projectId: string,
    @Param('buildId') buildId: string,
    @Query() query: BuildLogQueryDto,
    @Res() res: Response,
  ): Promise<void> {
    if (query.follow !== '1' && query.follow !== 'true') {
      const text = await this.builds.log(principal, projectId, buildId);
      res.status(200).setHeader('Content-Type', TEXT).setHeader('Cache-Control', 'no-store').end(text);
      return;
    }
    // Looked up before the stream starts, so a 404 is still a JSON error.
    await this.builds.get(principal, projectId, buildId);
    res.status(200).setHeader('Content-Type', TEXT).setHeader('Cache-Control', 'no-store').setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    let closed = false;
    res.on('close', () => (closed = true));
    await this.builds.followLog(principal, projectId, buildId, {
      get closed() {
        return closed;
      },
      write: (text) => res.write(text),
    });
    res.end();
  }
}
