import { Body, Controller, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';

import { CurrentPrincipal } from '../access/decorators';
import { AppConfig } from '../config/app-config';
import { ApiPaginatedOk, ApiProjectRoutes, DeleteRoute } from '../openapi/api-decorators';
import { Endpoint } from '../openapi/endpoint';
import { checkCustomDomain } from '../shared/custom-domain/custom-domain';
import type { Principal } from '../shared/principal';
import { requestTtl } from '../shared/ttl';
import { CreateProjectDto } from './dto/create-project.dto';
import { ListProjectsQueryDto } from './dto/list-projects.dto';
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
  @Endpoint({ id: 'listProjects', scopes: ['read'] })
  @ApiOperation({ summary: 'List the workspace’s projects, newest first unless `sort` says otherwise; `search` and `status` narrow the list and its total' })
  @ApiPaginatedOk(ProjectView)
  async list(@CurrentPrincipal() principal: Principal, @Query() query: ListProjectsQueryDto) {
    return this.projects.list(principal, query);
  }

  @Post()
  @Endpoint({
    id: 'createProject',
    scopes: ['admin'],
    audit: 'project.created',
    errors: { 400: ['invalid_slug'], 402: ['quota_exceeded'], 403: ['forbidden'], 409: ['slug_taken'], 503: ['password_hashing_busy'] },
  })
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
  @Endpoint({ id: 'getProject', scopes: ['read'] })
  @ApiOperation({ summary: 'Get a project' })
  @ApiOkResponse({ type: ProjectView })
  async get(@CurrentPrincipal() principal: Principal, @Param('projectId') projectId: string) {
    const project = await this.projects.findVisible(principal, projectId);
    return projectView(project, this.config, await this.projects.liveSummaries([project]));
  }

  @Patch(':projectId')
  @Endpoint({
    id: 'updateProject',
    scopes: ['admin'],
    audit: 'project.updated',
    errors: { 400: ['invalid_slug', 'invalid_domain'], 402: ['quota_exceeded'], 409: ['slug_taken', 'domain_taken'], 503: ['password_hashing_busy'] },
  })
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
  @Endpoint({ id: 'deleteProject', scopes: ['delete'], audit: 'project.deleted' })
  async remove(@CurrentPrincipal() principal: Principal, @Param('projectId') projectId: string): Promise<void> {
    await this.projects.remove(principal, projectId);
  }
}
