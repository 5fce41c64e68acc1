import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';

import { CurrentPrincipal } from '../access/decorators';
import { IdProperty, NullableStringProperty } from '../common/dto-fields';
import { LAZY_DEPLOY_ERRORS } from '../deployments/deploy-errors';
import { deployRequest } from '../deployments/deployments.controller';
import { LazyDeployDto } from '../deployments/dto/deploy.dto';
import { Endpoint } from '../openapi/endpoint';
import { requestSlug } from '../projects/request-slug';
import { TIERS } from '../quotas/plans';
import type { Principal } from '../shared/principal';
import { DeployPreflightService, type PreflightResult } from './preflight.service';

export class DeployPreflightView implements PreflightResult {
  @ApiProperty({ example: 'my-site' })
  project_slug: string;
  @NullableStringProperty({ example: 'proj_0123456789abcdefghijklmn', description: 'null: the deploy would create the project' })
  projectId: string | null;
  @IdProperty('ws')
  workspaceId: string;
  @ApiProperty()
  createsProject: boolean;
  @ApiProperty({ enum: TIERS })
  plan: PreflightResult['plan'];
  @ApiProperty({ type: 'integer', description: 'Bytes of the files the workspace does not store yet' })
  newBytes: number;
}

@ApiTags('deployments')
@ApiBearerAuth('bearer')
@Controller('v1/deployments/preflight')
export class DeployPreflightController {
  constructor(private readonly preflight: DeployPreflightService) {}

  @Post()
  // The deploy's own checks, answered before anything is uploaded or stored.
  @Endpoint({
    id: 'preflightDeployment',
    scopes: ['deploy'],
    credential: 'token',
    errors: LAZY_DEPLOY_ERRORS,
    audit: { none: 'a dry run: it answers what a deploy would do and stores nothing' },
  })
  @HttpCode(200)
  @ApiOperation({
    summary: 'Check a deploy without doing it: the body of POST /v1/deployments, its errors, nothing stored',
    description:
      'Answers 200 when the deploy would be accepted now (slug free or the token’s own, TTL valid and allowed, every file within the plan’s largest file, ' +
      'projects, deployments this month and storage within the plan), or the error the deploy would give. Digest entries need not be uploaded yet. ' +
      'Clients call it before uploading anything. Scope: deploy (API token).',
  })
  @ApiOkResponse({ type: DeployPreflightView })
  check(@CurrentPrincipal() principal: Principal, @Body() dto: LazyDeployDto): Promise<DeployPreflightView> {
    // Parsed as the deploy parses them, in the same order (ttl, then slug).
    const request = deployRequest(dto);
    return this.preflight.check(principal, requestSlug(dto.project_slug, 'project_slug'), request);
  }
}
