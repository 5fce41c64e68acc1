import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsIn, IsInt, IsObject, IsOptional, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';

import { decoratorStack } from '../../../common/decorator-stack';
import { NameChecks } from '../../../common/dto-fields';

/** Far above any real authenticator's output (attestation objects with certificate chains run to a few KB). */
const MAX_FIELD = 16_384;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

const Base64url = (description: string, optional = false): PropertyDecorator =>
  decoratorStack(
    optional ? ApiPropertyOptional({ description, maxLength: MAX_FIELD }) : ApiProperty({ description, maxLength: MAX_FIELD }),
    ...(optional ? [IsOptional()] : []),
    IsString(),
    MaxLength(MAX_FIELD),
    Matches(BASE64URL, { message: '$property must be base64url (A-Z, a-z, 0-9, - and _, no padding)' }),
  );

class CredentialBaseDto {
  @Base64url('The credential id')
  id: string;

  @Base64url('The credential id, again (WebAuthn sends both)')
  rawId: string;

  @ApiProperty({ enum: ['public-key'] })
  @IsIn(['public-key'])
  type: 'public-key';

  @ApiPropertyOptional({ enum: ['platform', 'cross-platform'] })
  @IsOptional()
  @IsIn(['platform', 'cross-platform'])
  authenticatorAttachment?: 'platform' | 'cross-platform';

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'As the browser returns them' })
  @IsObject()
  clientExtensionResults: Record<string, unknown>;
}

export class AttestationResponseDto {
  @Base64url('The client data the browser signed over (type, challenge, origin)')
  clientDataJSON: string;

  @Base64url('The authenticator’s attestation object (CBOR)')
  attestationObject: string;

  @Base64url('The authenticator data', true)
  authenticatorData?: string;

  @ApiPropertyOptional({ type: [String], example: ['internal', 'hybrid'] })
  @IsOptional()
  @ArrayMaxSize(10)
  @IsString({ each: true })
  @MaxLength(32, { each: true })
  transports?: string[];

  @ApiPropertyOptional({ type: 'integer', example: -7 })
  @IsOptional()
  @IsInt()
  publicKeyAlgorithm?: number;

  @Base64url('The public key (SPKI)', true)
  publicKey?: string;
}

/** What `startRegistration` of @simplewebauthn/browser returns. */
export class RegistrationResponseDto extends CredentialBaseDto {
  @ApiProperty({ type: AttestationResponseDto })
  @IsObject()
  @ValidateNested()
  @Type(() => AttestationResponseDto)
  response: AttestationResponseDto;
}

export class AssertionResponseDto {
  @Base64url('The client data the browser signed over (type, challenge, origin)')
  clientDataJSON: string;

  @Base64url('The authenticator data')
  authenticatorData: string;

  @Base64url('The signature over the authenticator data and the client data’s hash')
  signature: string;

  @Base64url('The user handle the passkey was created with', true)
  userHandle?: string;
}

/** What `startAuthentication` of @simplewebauthn/browser returns. */
export class AuthenticationResponseDto extends CredentialBaseDto {
  @ApiProperty({ type: AssertionResponseDto })
  @IsObject()
  @ValidateNested()
  @Type(() => AssertionResponseDto)
  response: AssertionResponseDto;
}

export class RegisterPasskeyDto {
  @ApiProperty({ type: RegistrationResponseDto, description: 'The answer to the options of POST /auth/passkeys/registration-options' })
  @IsObject()
  @ValidateNested()
  @Type(() => RegistrationResponseDto)
  response: RegistrationResponseDto;

  @ApiPropertyOptional({ example: 'Work laptop', maxLength: 100, description: 'Default: the browser family it was registered from, e.g. “Chrome passkey”' })
  @IsOptional()
  @NameChecks()
  name?: string;
}

export class RenamePasskeyDto {
  @ApiProperty({ example: 'Work laptop', maxLength: 100 })
  @NameChecks()
  name: string;
}

export class PasskeySignInDto {
  @ApiProperty({ type: AuthenticationResponseDto, description: 'The answer to the options of POST /auth/passkeys/authentication-options' })
  @IsObject()
  @ValidateNested()
  @Type(() => AuthenticationResponseDto)
  response: AuthenticationResponseDto;
}
