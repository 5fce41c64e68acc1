import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional } from 'class-validator';

import { NameChecks, NameField } from '../../common/dto-fields';

export class CreateWorkspaceDto {
  @NameField('Acme')
  name: string;
}

export class UpdateWorkspaceDto {
  @ApiPropertyOptional({ example: 'Acme Inc', maxLength: 100 })
  @IsOptional()
  @NameChecks()
  name?: string;

  @ApiPropertyOptional({
    description: 'Owner only. Members must have a second factor (TOTP or a passkey) to act in this workspace with the dashboard; API tokens are unaffected',
  })
  @IsOptional()
  @IsBoolean({ message: 'requireTwoFactor must be true or false' })
  requireTwoFactor?: boolean;
}
