import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';

import { SearchParam } from '../../common/list-search';
import { PageQueryDto } from '../../common/pagination';

export const MAX_TOKEN_SEARCH = 100;

/**
 * Whether a live (unrevoked) token still works: the list keeps expired tokens until
 * someone revokes them, and "which of our CI tokens ran out" is what a reader looks for.
 */
export const TOKEN_STATES = ['active', 'expired'] as const;
export type TokenState = (typeof TOKEN_STATES)[number];

export class ListAccessTokensQueryDto extends PageQueryDto {
  @SearchParam(MAX_TOKEN_SEARCH, 'Only tokens whose name or visible prefix (`sk_live_…`) contains this text', 'ci')
  search?: string;

  @ApiPropertyOptional({
    enum: TOKEN_STATES,
    description: '`active`: tokens that still work (no expiry, or one in the future); `expired`: tokens past their `expires_at`, not yet revoked',
  })
  @IsOptional()
  @IsIn(TOKEN_STATES, { message: `status must be one of: ${TOKEN_STATES.join(', ')}` })
  status?: TokenState;
}
