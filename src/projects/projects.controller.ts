import { Body, Controller, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';

import { CurrentPrincipal, Scopes } from '../auth/decorators';
import { ApiPaginatedOk, ApiProjectRoutes, DeleteRoute } from '../auth/openapi';
import { PageQueryDto } from '../common/pagination';
import { AppConfig } from '../config/app-config';
import { checkCustomDomain } from '../domains/custom-domain';
import type { Principal } from '../shared/principal';
import { requestTtl } from '../shared/ttl';
import { CreateProjectDto } from './dto/create-project.dto';
import { ProjectCreatedView, ProjectView } from './dto/project-views.dto';
import { UpdateProjectDto } from './dto/update-project.dto';
import { projectCreatedView, projectView } from './project.view';
import { type ProjectCreate, ProjectsService, type ProjectUpdate } from './projects.service';
import { requestNewSlug } from './request-slug';

@ApiProjectRoutes('projects')
@Controller('projects')
export class ProjectsController {
  constructor(
    private readonly projects: ProjectsService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @Scopes('read')
  @ApiOperation({ summary: 'List the workspace’s projects, newest first' })
  @ApiPaginatedOk(ProjectView)
  async list(@CurrentPrincipal() principal: Principal, @Query() query: PageQueryDto) {
    return this.projects.list(principal, query.page, query.limit);
  }

  @Post()
  @Scopes('admin')
  @ApiOperation({ summary: 'Create a project (slug derived from the name when absent)' })
  @ApiCreatedResponse({ type: ProjectCreatedView })
  async create(@CurrentPrincipal() principal: Principal, @Body() dto: CreateProjectDto) {
    // Parsed here, once: the service takes the typed values. Slug before TTL, as ever.
    const input: ProjectCreate = {
      ...dto,
      slug: dto.slug === undefined ? undefined : requestNewSlug(dto.slug, 'slug'),
      default_ttl: dto.default_ttl === undefined ? undefined : requestTtl(dto.default_ttl, 'default_ttl'),
    };
    return projectCreatedView(await this.projects.create(principal, input));
  }

  @Get(':projectId')
  @Scopes('read')
  @ApiOperation({ summary: 'Get a project' })
  @ApiOkResponse({ type: ProjectView })
  async get(@CurrentPrincipal() principal: Principal, @Param('projectId') projectId: string) {
    const project = await this.projects.findVisible(principal, projectId);
    return projectView(project, this.config, await this.projects.liveSummaries([project]));
  }

  @Patch(':projectId')
  @Scopes('admin')
  @ApiOperation({ summary: 'Update name, default_ttl, gate_type/password or custom_domain' })
  @ApiOkResponse({ type: ProjectView })
  async update(@CurrentPrincipal() principal: Principal, @Param('projectId') projectId: string, @Body() dto: UpdateProjectDto) {
    const input: ProjectUpdate = {
      ...dto,
      default_ttl: dto.default_ttl === undefined ? undefined : requestTtl(dto.default_ttl, 'default_ttl'),
      custom_domain: dto.custom_domain == null ? dto.custom_domain : checkCustomDomain(dto.custom_domain, this.config),
    };
    const project = await this.projects.update(principal, projectId, input);
    return projectView(project, this.config, await this.projects.liveSummaries([project]));
  }

  @DeleteRoute(':projectId', 'Delete a project with its deployments and leads; its slug is freed and its site stops at once')
  @Scopes('delete')
  async remove(@CurrentPrincipal() principal: Principal, @Param('projectId') projectId: string): Promise<void> {
    await this.projects.remove(principal, projectId);
  }
}
