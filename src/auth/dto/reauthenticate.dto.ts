import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsNotEmpty,
  IsObject,
  IsString,
  MaxLength,
  Validate,
  ValidateIf,
  type ValidationArguments,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';

import { MAX_PASSWORD } from '../../common/dto-fields';
import { OptionalNotNull } from '../../common/validation';
import { MAX_CODE } from '../two-factor/two-factor.dto';

@ValidatorConstraint({ name: 'passwordOrPasskey' })
class PasswordOrPasskey implements ValidatorConstraintInterface {
  validate(_: unknown, args?: ValidationArguments): boolean {
    const dto = (args?.object ?? {}) as ReauthenticateDto;
    if (dto.passkey !== undefined) return dto.code === undefined;
    return dto.password !== undefined;
  }

  defaultMessage(): string {
    return 'send password (with code when your account has TOTP on, or with passkey as its second factor), or passkey alone; never code with passkey';
  }
}

/** POST /auth/reauthenticate: what a sign-in of this account asks for, again. */
export class ReauthenticateDto {
  @ApiPropertyOptional({
    example: 'correct horse battery staple',
    description: 'Your password; with `code` when your account has TOTP on, or with `passkey` answering as its second factor',
  })
  @ValidateIf((dto: ReauthenticateDto) => dto.passkey === undefined || dto.password !== undefined)
  @IsString()
  @IsNotEmpty({ message: 'password must not be empty' })
  @MaxLength(MAX_PASSWORD)
  @Validate(PasswordOrPasskey)
  password?: string;

  @ApiPropertyOptional({ description: 'With `password`: a current TOTP code or an unused recovery code', example: '123456' })
  @OptionalNotNull()
  @IsString()
  @IsNotEmpty({ message: 'code must not be empty' })
  @MaxLength(MAX_CODE)
  code?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      'A WebAuthn authentication response (@simplewebauthn/browser startAuthentication) to options from POST /auth/passkeys/authentication-options, made with one of your passkeys: ' +
      'alone, the authenticator must have verified you (PIN, biometrics); with `password`, it answers as the second factor of a sign-in',
  })
  @ValidateIf((dto: ReauthenticateDto) => dto.passkey !== undefined)
  @IsObject({ message: 'passkey must be a WebAuthn authentication response object' })
  @Validate(PasswordOrPasskey)
  passkey?: Record<string, unknown>;
}
