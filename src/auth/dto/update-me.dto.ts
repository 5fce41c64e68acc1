import { ApiPropertyOptional } from '@nestjs/swagger';

import { NameChecks } from '../../common/dto-fields';
import { OptionalNotNull } from '../../common/validation';
import { type Email, EmailChecks } from '../../shared/email';

export class UpdateMeDto {
  @ApiPropertyOptional({
    type: String,
    example: 'ann@example.org',
    description: 'The new address takes effect when the link mailed to it is followed (POST /auth/verify-email); the old one is told then',
  })
  @OptionalNotNull()
  @EmailChecks()
  email?: Email;

  @ApiPropertyOptional({ example: 'Ann Lee', maxLength: 100 })
  @OptionalNotNull()
  @NameChecks()
  name?: string;
}
