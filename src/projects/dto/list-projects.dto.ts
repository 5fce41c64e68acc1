import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';

import { trim } from '../../common/dto-fields';
import { PageQueryDto } from '../../common/pagination';

/**
 * The orders of the project list. `lastDeploy` is the live deployment's creation time, the
 * age the list shows beside each project, so the order matches what the reader sees;
 * projects with nothing live come last both ways.
 */
export const PROJECT_SORTS = ['name', '-name', 'lastDeploy', '-lastDeploy'] as const;
export type ProjectSort = (typeof PROJECT_SORTS)[number];

/** What a reader filters the list by: sites that are up, and projects serving nothing (never deployed, or their live deployment archived or expired). */
export const PROJECT_STATUSES = ['live', 'none'] as const;
export type ProjectStatus = (typeof PROJECT_STATUSES)[number];

export const MAX_PROJECT_SEARCH = 100;

export class ListProjectsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
    minLength: 1,
    maxLength: MAX_PROJECT_SEARCH,
    example: 'docs',
    description: 'Only projects whose name, slug or custom domain contains this text (case-insensitive, trimmed; `%` and `_` match themselves)',
  })
  @IsOptional()
  @Transform(trim)
  @IsString({ message: 'search must be one text value' })
  @IsNotEmpty({ message: 'search must not be empty (omit it to list every project)' })
  @MaxLength(MAX_PROJECT_SEARCH, { message: `search must be at most ${MAX_PROJECT_SEARCH} characters` })
  search?: string;

  @ApiPropertyOptional({
    enum: PROJECT_SORTS,
    description:
      'Order: `name` A–Z, `-name` Z–A, `lastDeploy` oldest live deployment first, `-lastDeploy` newest first (projects with nothing live last); default newest project first',
  })
  @IsOptional()
  @IsIn(PROJECT_SORTS, { message: `sort must be one of: ${PROJECT_SORTS.join(', ')}` })
  sort?: ProjectSort;

  @ApiPropertyOptional({
    enum: PROJECT_STATUSES,
    description:
      '`live`: only projects whose site is served (a live deployment, not expired); `none`: only projects serving nothing (never deployed, archived or expired)',
  })
  @IsOptional()
  @IsIn(PROJECT_STATUSES, { message: `status must be one of: ${PROJECT_STATUSES.join(', ')}` })
  status?: ProjectStatus;
}
