import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';

import { SearchParam } from '../../common/list-search';
import { PageQueryDto } from '../../common/pagination';
import { type Role, ROLES } from '../../shared/principal';
import { MEMBER_STATUSES, type MemberStatus } from '../workspace-member.entity';

export const MAX_MEMBER_SEARCH = 100;

/**
 * GET /workspaces/:id/members narrowed: a company workspace has hundreds of people. The
 * list holds pending invitations beside members (one row each, `status` telling them
 * apart), so `status=invited` is the natural way to see who has not joined yet.
 */
export class ListMembersQueryDto extends PageQueryDto {
  @SearchParam(MAX_MEMBER_SEARCH, 'Only members whose email or account name contains this text (an invitation has only its email)', 'ann')
  search?: string;

  @ApiPropertyOptional({ enum: ROLES, description: 'Only members (and invitations) with this role' })
  @IsOptional()
  @IsIn(ROLES, { message: `role must be one of: ${ROLES.join(', ')}` })
  role?: Role;

  @ApiPropertyOptional({ enum: MEMBER_STATUSES, description: '`invited`: only pending invitations; `active`: only people who joined' })
  @IsOptional()
  @IsIn(MEMBER_STATUSES, { message: `status must be one of: ${MEMBER_STATUSES.join(', ')}` })
  status?: MemberStatus;
}
