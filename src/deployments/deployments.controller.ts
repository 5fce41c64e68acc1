import { Body, Controller, Get, Param, Patch, Post, Query, UseInterceptors } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { CurrentPrincipal } from '../access/decorators';
import { IdempotencyClaimOf, IdempotencyInterceptor } from '../common/idempotency/idempotency.interceptor';
import { completeKeyWith, IdempotencyClaim, IdempotencyService } from '../common/idempotency/idempotency.service';
import { Clock } from '../common/time';
import { AppConfig } from '../config/app-config';
import { ApiProjectRoutes } from '../openapi/api-decorators';
import { Endpoint } from '../openapi/endpoint';
import type { Project } from '../projects/project.entity';
import { requestSlug } from '../projects/request-slug';
import type { Principal } from '../shared/principal';
import { requestTtl } from '../shared/ttl';
import { type DeployRequest, DeployResult, DeployService } from './deploy.service';
import { DEPLOY_ERRORS, LAZY_DEPLOY_ERRORS } from './deploy-errors';
import { Deployment } from './deployment.entity';
import { deploymentDetailView, deploymentView, lazyDeployView, previewUrl, projectDeploymentView } from './deployment.view';
import { DeploymentsService } from './deployments.service';
import { LazyDeployDto, ProjectDeployDto } from './dto/deploy.dto';
import { DeploymentDetailView, DeploymentListView, DeploymentView, LazyDeploymentView } from './dto/deployment-views.dto';
import { ListDeploymentsQueryDto } from './dto/list-deployments.dto';

const IDEMPOTENCY_HEADER = {
  name: 'Idempotency-Key',
  required: false,
  description: 'Repeat a request safely: the same key and body within 24 h returns the first response; another body is a 422',
};

/** The address a deploy answers with: the site when the deployment went live, else its preview. */
function deployedUrl(config: AppConfig, project: Project, d: Deployment): string {
  return d.status === 'live' ? config.siteUrl(project.slug) : previewUrl(config, project, d);
}

/** A deploy body with its ttl parsed, here where it enters; the 400 names `ttl`. */
export function deployRequest(dto: ProjectDeployDto): DeployRequest {
  return { type: dto.type, files: dto.files, publish: dto.publish, ttl: dto.ttl === undefined ? undefined : requestTtl(dto.ttl, 'ttl') };
}

@ApiTags('deployments')
@ApiBearerAuth('bearer')
@Controller('v1/deployments')
export class LazyDeployController {
  constructor(
    private readonly deploys: DeployService,
    private readonly config: AppConfig,
    private readonly idempotency: IdempotencyService,
  ) {}

  @Post()
  @Endpoint({ id: 'deployLazy', scopes: ['deploy'], credential: 'token', errors: LAZY_DEPLOY_ERRORS, audit: 'deployment.created' })
  @UseInterceptors(IdempotencyInterceptor)
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiOperation({ summary: 'Deploy files to a project by slug; an unknown slug creates the project in the token’s workspace' })
  @ApiCreatedResponse({ type: LazyDeploymentView })
  async deploy(@CurrentPrincipal() principal: Principal, @Body() dto: LazyDeployDto, @IdempotencyClaimOf() claim?: IdempotencyClaim) {
    const view = ({ deployment, project }: DeployResult) => lazyDeployView(deployment, deployedUrl(this.config, project, deployment));
    // TTL before slug, the order a deploy's 400s have always come in.
    const request = deployRequest(dto);
    const target = { slug: requestSlug(dto.project_slug, 'project_slug') };
    return view(await this.deploys.deploy(principal, target, request, completeKeyWith(this.idempotency, claim, view)));
  }
}

@ApiProjectRoutes('deployments')
@Controller('projects/:projectId/deployments')
export class DeploymentsController {
  constructor(
    private readonly deploys: DeployService,
    private readonly deployments: DeploymentsService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly idempotency: IdempotencyService,
  ) {}

  @Post()
  @Endpoint({ id: 'deployProject', scopes: ['deploy'], errors: DEPLOY_ERRORS, audit: 'deployment.created' })
  @UseInterceptors(IdempotencyInterceptor)
  @ApiHeader(IDEMPOTENCY_HEADER)
  @ApiOperation({ summary: 'Deploy files to this project; the new deployment becomes live (unless `publish: false`)' })
  @ApiCreatedResponse({ type: DeploymentView })
  async deploy(
    @CurrentPrincipal() principal: Principal,
    @Param('projectId') projectId: string,
    @Body() dto: ProjectDeployDto,
    @IdempotencyClaimOf() claim?: IdempotencyClaim,
  ) {
    const now = this.clock.now();
    const view = ({ deployment, project }: DeployResult) =>
      deploymentView(deployment, deployedUrl(this.config, project, deployment), previewUrl(this.config, project, deployment), now);
    return view(await this.deploys.deploy(principal, { projectId }, deployRequest(dto), completeKeyWith(this.idempotency, claim, view)));
  }

  @Get()
  @Endpoint({ id: 'listDeployments', scopes: ['read'] })
  @ApiOperation({ summary: 'List the project’s deployments, newest first; `status` and `search` narrow it, and the total and pages count only what matches' })
  @ApiOkResponse({ type: DeploymentListView })
  async list(@CurrentPrincipal() principal: Principal, @Param('projectId') projectId: string, @Query() query: ListDeploymentsQueryDto) {
    const { page, limit, status, search } = query;
    return this.deployments.list(principal, projectId, { page, limit, status, search });
  }

  @Get(':deploymentId')
  @Endpoint({ id: 'getDeployment', scopes: ['read'] })
  @ApiOperation({ summary: 'Get a deployment with its file list' })
  @ApiOkResponse({ type: DeploymentDetailView })
  async get(@CurrentPrincipal() principal: Principal, @Param('projectId') projectId: string, @Param('deploymentId') deploymentId: string) {
    const { files, ...found } = await this.deployments.get(principal, projectId, deploymentId);
    return deploymentDetailView(this.view(found), files);
  }

  @Patch(':deploymentId/promote')
  @Endpoint({ id: 'promoteDeployment', scopes: ['deploy'], errors: { 409: ['deployment_expired'] }, audit: 'deployment.promoted' })
  @ApiOperation({ summary: 'Make this deployment the live one (rollback); nothing is copied' })
  @ApiOkResponse({ type: DeploymentView })
  async promote(@CurrentPrincipal() principal: Principal, @Param('projectId') projectId: string, @Param('deploymentId') deploymentId: string) {
    return this.view(await this.deployments.promote(principal, projectId, deploymentId));
  }

  @Patch(':deploymentId/archive')
  @Endpoint({ id: 'archiveDeployment', scopes: ['delete'], errors: { 409: ['deployment_expired'] }, audit: 'deployment.archived' })
  @ApiOperation({ summary: 'Archive this deployment; archiving the live one takes the site offline' })
  @ApiOkResponse({ type: DeploymentView })
  async archive(@CurrentPrincipal() principal: Principal, @Param('projectId') projectId: string, @Param('deploymentId') deploymentId: string) {
    return this.view(await this.deployments.archive(principal, projectId, deploymentId));
  }

  private view({ project, deployment }: { project: Project; deployment: Deployment }) {
    return projectDeploymentView(this.config, project, deployment, this.clock.now());
  }
}
