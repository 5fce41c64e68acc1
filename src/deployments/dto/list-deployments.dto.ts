import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';

import { trim } from '../../common/dto-fields';
import { PageQueryDto } from '../../common/pagination';
import { DEPLOYMENT_STATUSES, type DeploymentStatus } from '../deployment.entity';

export const MAX_DEPLOYMENT_SEARCH = 100;

export class ListDeploymentsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
    enum: DEPLOYMENT_STATUSES,
    description: 'Only deployments with this status, as the list shows it: a deployment past its `expires_at` is `expired` even before the sweeper marks it',
  })
  @IsOptional()
  @IsIn(DEPLOYMENT_STATUSES, { message: `status must be one of: ${DEPLOYMENT_STATUSES.join(', ')}` })
  status?: DeploymentStatus;

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: MAX_DEPLOYMENT_SEARCH,
    example: 'v12',
    description:
      'What a deployment history is searched by (trimmed, case-insensitive): a version number (`12` or `v12` finds version 12); ' +
      'who deployed (a whole `usr_…` or `tok_…` id finds what that user or token deployed); ' +
      'otherwise the start of a deployment id, with or without `dep_` (`dep_3kx`, `3kx`: the part a preview address shows)',
  })
  @IsOptional()
  @Transform(trim)
  @IsString({ message: 'search must be one text value' })
  @IsNotEmpty({ message: 'search must not be empty (omit it to list every deployment)' })
  @MaxLength(MAX_DEPLOYMENT_SEARCH, { message: `search must be at most ${MAX_DEPLOYMENT_SEARCH} characters` })
  search?: string;
}
