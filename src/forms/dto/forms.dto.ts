import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';

import { PageQueryDto } from '../../common/pagination';

/** The longest search: longer than any field a form keeps is pointless. */
export const MAX_SEARCH_LENGTH = 200;

function SearchField(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      description: 'Only submissions with a value containing this text, case-insensitively (every character literal)',
      maxLength: MAX_SEARCH_LENGTH,
    }),
    IsOptional(),
    IsString(),
    MaxLength(MAX_SEARCH_LENGTH, { message: `search must be at most ${MAX_SEARCH_LENGTH} characters` }),
  );
}

function SpamField(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ enum: ['true', 'false'], description: '`true`: only spam; `false`: only what is not spam; absent: both' }),
    IsOptional(),
    IsIn(['true', 'false'], { message: 'spam must be true or false' }),
  );
}

/** `GET /projects/:projectId/forms/:formId/submissions`. */
export class SubmissionsQueryDto extends PageQueryDto {
  @SearchField()
  search?: string;

  @SpamField()
  spam?: 'true' | 'false';
}

/** `GET /projects/:projectId/forms/:formId/submissions/export`. */
export class SubmissionsExportQueryDto {
  @SearchField()
  search?: string;

  @SpamField()
  spam?: 'true' | 'false';
}

/** `PATCH /projects/:projectId/forms/:formId/submissions/:submissionId`. */
export class UpdateSubmissionDto {
  @ApiProperty({ description: 'true: mark as spam; false: mark as not spam (ham)' })
  @IsBoolean({ message: 'spam must be a boolean (true or false)' })
  spam: boolean;
}

/** The `spam` query parameter as a filter. */
export function spamFilter(spam: 'true' | 'false' | undefined): boolean | undefined {
  return spam === undefined ? undefined : spam === 'true';
}
