import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsIn, MaxLength } from 'class-validator';
import { ROLES, type Role } from '../../auth/principal';

export class InviteMemberDto {
  @ApiProperty({ example: 'ann@example.com' })
  @MaxLength(254)
  @IsEmail({}, { message: 'email must be an email address' })
  email: string;

  @ApiProperty({ enum: ROLES, description: 'Only an owner can invite an owner' })
  @IsIn(ROLES, { message: `role must be one of: ${ROLES.join(', ')}` })
  role: Role;
}

export class UpdateMemberDto {
  @ApiProperty({ enum: ROLES, description: 'Only an owner can make or unmake an owner; the last owner keeps the role' })
  @IsIn(ROLES, { message: `role must be one of: ${ROLES.join(', ')}` })
  role: Role;
}
