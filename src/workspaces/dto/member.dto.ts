import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsIn, MaxLength } from 'class-validator';

import { type Role, ROLES } from '../../auth/principal';
import { type Email, ToEmail } from '../../users/email';

export class InviteMemberDto {
  @ApiProperty({ type: String, example: 'ann@example.com' })
  @ToEmail()
  @MaxLength(254)
  @IsEmail({}, { message: 'email must be an email address' })
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
