import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';

import { MAX_LIMIT, PageQueryDto } from '../../common/pagination';
import { MAX_EMAIL_LENGTH } from '../email-address';

/** `search`: a substring of the email, case-insensitively. */
function SearchField(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      description: 'Only leads whose email contains this text, case-insensitively (every character literal)',
      maxLength: MAX_EMAIL_LENGTH,
    }),
    IsOptional(),
    IsString(),
    MaxLength(MAX_EMAIL_LENGTH, { message: `search must be at most ${MAX_EMAIL_LENGTH} characters (no email is longer)` }),
  );
}

/** `GET /projects/:projectId/gate/leads`: the shared page parser, limit default 20. */
export class ProjectLeadsQueryDto extends PageQueryDto {
  @SearchField()
  search?: string;
}

/** `GET /projects/gate/leads`: limit default 25, optionally one project. */
export class WorkspaceLeadsQueryDto extends PageQueryDto {
  @SearchField()
  search?: string;

  // Same rules as every list (inherited); only the default differs.
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: 25 })
  override limit: number = 25;

  @ApiPropertyOptional({ description: 'Only this project’s leads (`proj_…`)' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  projectId?: string;
}

/** `GET /projects/:projectId/gate/leads/export`. */
export class LeadsExportQueryDto {
  @SearchField()
  search?: string;
}
