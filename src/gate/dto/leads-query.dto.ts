import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { MAX_EMAIL_LENGTH } from '../email-address';

/** Keeps OFFSET within PostgreSQL's bigint whatever the limit. */
export const MAX_PAGE = 2_147_483_647;
export const MAX_LEADS_LIMIT = 100;

class SearchQueryDto {
  @ApiPropertyOptional({
    description: 'Only leads whose email contains this text, case-insensitively (every character literal)',
    maxLength: MAX_EMAIL_LENGTH,
  })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_EMAIL_LENGTH, { message: `search must be at most ${MAX_EMAIL_LENGTH} characters (no email is longer)` })
  search?: string;
}

class PagedSearchQueryDto extends SearchQueryDto {
  @ApiPropertyOptional({ minimum: 1, default: 1 })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'page must be a positive integer' })
  @Min(1, { message: 'page must be a positive integer' })
  @Max(MAX_PAGE, { message: `page must be at most ${MAX_PAGE}` })
  page: number = 1;
}

/** `GET /projects/:projectId/gate/leads`: limit default 20. */
export class ProjectLeadsQueryDto extends PagedSearchQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: MAX_LEADS_LIMIT, default: 20 })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be a positive integer' })
  @Min(1, { message: 'limit must be a positive integer' })
  @Max(MAX_LEADS_LIMIT, { message: `limit must be at most ${MAX_LEADS_LIMIT}` })
  limit: number = 20;
}

/** `GET /projects/gate/leads`: limit default 25, optionally one project. */
export class WorkspaceLeadsQueryDto extends PagedSearchQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: MAX_LEADS_LIMIT, default: 25 })
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be a positive integer' })
  @Min(1, { message: 'limit must be a positive integer' })
  @Max(MAX_LEADS_LIMIT, { message: `limit must be at most ${MAX_LEADS_LIMIT}` })
  limit: number = 25;

  @ApiPropertyOptional({ description: 'Only this project’s leads (`proj_…`)' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  projectId?: string;
}

/** `GET /projects/:projectId/gate/leads/export`. */
export class LeadsExportQueryDto extends SearchQueryDto {}
