import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean } from 'class-validator';

import { WorkspaceRefDto } from './billing.dto';

export class SetSpendCapDto extends WorkspaceRefDto {
  @ApiProperty({
    example: true,
    description: 'true: pause the sites (503) once this month’s bandwidth reaches the limit; false: keep serving (overage is billed)',
  })
  @IsBoolean({ message: 'pauseSitesAtLimit must be true or false' })
  pauseSitesAtLimit: boolean;
}
