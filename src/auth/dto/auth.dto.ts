import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';

import { decoratorStack } from '../../common/decorator-stack';
import { MAX_PASSWORD, NameField, NewPasswordField } from '../../common/dto-fields';
import { type Email, EmailField, ToEmail } from '../../shared/email';

export class RegisterDto {
  @EmailField('Unique, case-insensitively')
  email: Email;

  @NewPasswordField({ example: 'correct horse battery staple' })
  password: string;

  @NameField('Ann Lee')
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

/** A token from a mailed link: only its presence and length are checked here. */
const MailedTokenField = (description: string, example: string): PropertyDecorator =>
  decoratorStack(ApiProperty({ description, example }), IsString(), IsNotEmpty({ message: 'token must not be empty' }), MaxLength(MAX_TOKEN));

export class VerifyEmailDto {
  @MailedTokenField('The token from the link mailed to the address (`ev_…`)', 'ev_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG')
  token: string;
}

export class PasswordResetDto {
  @EmailField()
  email: Email;
}

export class PasswordResetConfirmDto {
  @MailedTokenField('The token from the mailed reset link (`pr_…`)', 'pr_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG')
  token: string;

  @NewPasswordField({ description: 'The new password' })
  password: string;
}
