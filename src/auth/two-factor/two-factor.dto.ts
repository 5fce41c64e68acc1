import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsDefined,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  Validate,
  type ValidationArguments,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';

import { MAX_PASSWORD } from '../../common/dto-fields';

/** A TOTP code (six digits) or a recovery code, as typed: spaces and dashes allowed. */
export const MAX_CODE = 32;

export class TotpCodeDto {
  @ApiProperty({ description: 'The six digits your authenticator app shows', example: '123456' })
  @IsString()
  @IsNotEmpty({ message: 'code must not be empty' })
  @MaxLength(MAX_CODE)
  code: string;
}

export class DisableTotpDto {
  @ApiProperty({ example: 'correct horse battery staple' })
  @IsString()
  @IsNotEmpty({ message: 'password must not be empty' })
  @MaxLength(MAX_PASSWORD)
  password: string;

  @ApiProperty({ description: 'A current TOTP code or an unused recovery code', example: '123456' })
  @IsString()
  @IsNotEmpty({ message: 'code must not be empty' })
  @MaxLength(MAX_CODE)
  code: string;
}

export class RecoveryCodesDto {
  @ApiProperty({ description: 'A current TOTP code or an unused recovery code', example: '123456' })
  @IsString()
  @IsNotEmpty({ message: 'code must not be empty' })
  @MaxLength(MAX_CODE)
  code: string;
}

@ValidatorConstraint({ name: 'exactlyOneAnswer' })
class ExactlyOneAnswer implements ValidatorConstraintInterface {
  validate(_: unknown, args?: ValidationArguments): boolean {
    const dto = (args?.object ?? {}) as SecondFactorDto;
    return [dto.totp, dto.recoveryCode, dto.passkey].filter((v) => v !== undefined).length === 1;
  }

  defaultMessage(): string {
    return 'send exactly one of totp, recoveryCode and passkey';
  }
}

export class SecondFactorDto {
  @ApiProperty({ description: 'The challenge POST /auth/login answered with (second_factor_required)' })
  @IsString()
  @IsNotEmpty({ message: 'challenge must not be empty' })
  @MaxLength(128)
  @Validate(ExactlyOneAnswer)
  challenge: string;

  @ApiPropertyOptional({ description: 'A current TOTP code', example: '123456' })
  @IsOptional()
  @IsString()
  @IsNotEmpty({ message: 'totp must not be empty' })
  @MaxLength(MAX_CODE)
  totp?: string;

  @ApiPropertyOptional({ description: 'An unused recovery code (each works once)', example: 'abcde-fghjk' })
  @IsOptional()
  @IsString()
  @IsNotEmpty({ message: 'recoveryCode must not be empty' })
  @MaxLength(MAX_CODE)
  recoveryCode?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'A WebAuthn authentication response (@simplewebauthn/browser startAuthentication) to options from POST /auth/passkeys/authentication-options',
  })
  @IsOptional()
  @IsDefined()
  @IsObject({ message: 'passkey must be a WebAuthn authentication response object' })
  passkey?: Record<string, unknown>;
}
