import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

import { decoratorStack } from '../../common/decorator-stack';
import { PageQueryDto } from '../../common/pagination';

const Time = (description: string): PropertyDecorator =>
  decoratorStack(
    ApiPropertyOptional({ description, example: '2026-11-01T00:00:00.000Z' }),
    IsOptional(),
    IsISO8601({ strict: true }, { message: '$property must be an ISO 8601 date or time, e.g. 2026-11-01 or 2026-11-01T00:00:00Z' }),
  );

const Id = (description: string): PropertyDecorator =>
  decoratorStack(ApiPropertyOptional({ description }), IsOptional(), IsString(), MaxLength(100, { message: '$property must be at most 100 characters' }));

const Action = (): PropertyDecorator =>
  decoratorStack(
    ApiPropertyOptional({ description: 'An action (`project.deleted`), or every action of a prefix ending in `.` (`project.`)', example: 'project.' }),
    IsOptional(),
    IsString(),
    MaxLength(100, { message: 'action must be at most 100 characters' }),
    Matches(/^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*\.?$/, {
      message: 'action must be an action such as project.deleted, or a prefix ending in a dot such as project.',
    }),
  );

/** The filters of the list and of the export (they read the same entries). */
export class AuditFilterQueryDto {
  @Time('Entries at or after this time')
  from?: string;

  @Time('Entries at or before this time')
  to?: string;

  @Id('Entries by this actor (`usr_…`, `tok_…`)')
  actor?: string;

  @Action()
  action?: string;

  @Id('Entries about this target (`proj_…`, `tok_…`, `usr_…`…)')
  target?: string;
}

/** `GET /workspaces/:workspaceId/audit-log`: the filters and the usual page. */
export class AuditLogQueryDto extends PageQueryDto {
  @Time('Entries at or after this time')
  from?: string;

  @Time('Entries at or before this time')
  to?: string;

  @Id('Entries by this actor (`usr_…`, `tok_…`)')
  actor?: string;

  @Action()
  action?: string;

  @Id('Entries about this target (`proj_…`, `tok_…`, `usr_…`…)')
  target?: string;
}
