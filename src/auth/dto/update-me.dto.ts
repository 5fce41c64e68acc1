import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, IsNotEmpty, IsString, MaxLength } from 'class-validator';

import { OptionalNotNull } from '../../common/validation';
import { type Email, ToEmail } from '../../users/email';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

export class UpdateMeDto {
  @ApiPropertyOptional({
    type: String,
    example: 'ann@example.org',
    description: 'The new address takes effect when the link mailed to it is followed (POST /auth/verify-email); the old one is told then',
  })
  @ToEmail()
  @OptionalNotNull()
  @MaxLength(254)
  @IsEmail({}, { message: 'email must be an email address' })
  email?: Email;

  @ApiPropertyOptional({ example: 'Ann Lee', maxLength: 100 })
  @OptionalNotNull()
  @Transform(trim)
  @IsString()
  @IsNotEmpty({ message: 'name must not be empty' })
  @MaxLength(100)
  name?: string;
}
