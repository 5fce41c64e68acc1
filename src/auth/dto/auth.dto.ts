import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, IsNotEmpty, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';

import { type Email, ToEmail } from '../../users/email';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

/** Long enough for any passphrase, short enough that hashing it costs nothing extra. */
const MAX_PASSWORD = 256;

export class RegisterDto {
  @ApiProperty({ type: String, example: 'ann@example.com', description: 'Unique, case-insensitively' })
  @ToEmail()
  @MaxLength(254)
  @IsEmail({}, { message: 'email must be an email address' })
  email: Email;

  @ApiProperty({ minLength: 8, maxLength: MAX_PASSWORD, example: 'correct horse battery staple' })
  @IsString()
  @MinLength(8, { message: 'password must be at least 8 characters' })
  @MaxLength(MAX_PASSWORD)
  password: string;

  @ApiProperty({ example: 'Ann Lee', maxLength: 100 })
  @Transform(trim)
  @IsString()
  @IsNotEmpty({ message: 'name must not be empty' })
  @MaxLength(100)
  name: string;
}

export class LoginDto {
  @ApiProperty({ type: String, example: 'ann@example.com' })
  @ToEmail()
  @IsString()
  @IsNotEmpty({ message: 'email must not be empty' })
  @MaxLength(254)
  email: Email;

  @ApiProperty({ example: 'correct horse battery staple' })
  @IsString()
  @IsNotEmpty({ message: 'password must not be empty' })
  @MaxLength(MAX_PASSWORD)
  password: string;
}

export class RefreshDto {
  @ApiPropertyOptional({
    description:
      'The refresh token from register, login or the previous refresh. Required unless the request is in cookie mode (`X-Session-Mode: cookie`), which reads the cookie instead',
  })
  @IsOptional()
  @IsString()
  @IsNotEmpty({ message: 'refreshToken must not be empty' })
  @MaxLength(200)
  refreshToken?: string;
}

/** Mailed tokens are checked by the service, which names what is wrong with one (malformed, used, expired). */
const MAX_TOKEN = 200;

export class VerifyEmailDto {
  @ApiProperty({ description: 'The token from the link mailed to the address (`ev_…`)', example: 'ev_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG' })
  @IsString()
  @IsNotEmpty({ message: 'token must not be empty' })
  @MaxLength(MAX_TOKEN)
  token: string;
}

export class PasswordResetDto {
  @ApiProperty({ type: String, example: 'ann@example.com' })
  @ToEmail()
  @MaxLength(254)
  @IsEmail({}, { message: 'email must be an email address' })
  email: Email;
}

export class PasswordResetConfirmDto {
  @ApiProperty({ description: 'The token from the mailed reset link (`pr_…`)', example: 'pr_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG' })
  @IsString()
  @IsNotEmpty({ message: 'token must not be empty' })
  @MaxLength(MAX_TOKEN)
  token: string;

  @ApiProperty({ minLength: 8, maxLength: MAX_PASSWORD, description: 'The new password' })
  @IsString()
  @MinLength(8, { message: 'password must be at least 8 characters' })
  @MaxLength(MAX_PASSWORD)
  password: string;
}
