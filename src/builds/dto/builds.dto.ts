import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';

import { PageQueryDto } from '../../common/pagination';
import { BUILD_STATUSES, type BuildStatus } from '../build.entity';

export class CreateBuildDto {
  @ApiPropertyOptional({ example: 'main', description: 'Branch, tag or full commit id to build; default the production branch' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  ref?: string;
}

export class BuildListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ example: 'main', description: 'Only builds of this branch' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  branch?: string;

  @ApiPropertyOptional({ enum: BUILD_STATUSES, description: 'Only builds in this status' })
  @IsOptional()
  @IsIn(BUILD_STATUSES)
  status?: BuildStatus;
}

export class BuildLogQueryDto {
  @ApiPropertyOptional({ enum: ['0', '1'], description: '1: keep the answer open and stream new lines until the build ends' })
  @IsOptional()
  @IsIn(['0', '1', 'true', 'false'])
  follow?: string;
}
