import { ApiProperty } from '@nestjs/swagger';
import { IsIn } from 'class-validator';

import { type Email, EmailField } from '../../shared/email';
import { type Role, ROLES } from '../../shared/principal';

export class InviteMemberDto {
  @EmailField()
  email: Email;

  @ApiProperty({ enum: ROLES, description: 'Only an owner can invite an owner' })
  @IsIn(ROLES, { message: `role must be one of: ${ROLES.join(', ')}` })
  role: Role;
}

export class UpdateMemberDto {
  @ApiProperty({ enum: ROLES, description: 'Only an owner can make or unmake an owner; the last owner keeps the role' })
  @IsIn(ROLES, { message: `role must be one of: ${ROLES.join(', ')}` })
  role: Role;
}
