import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsBoolean, IsEmail, IsIn, IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

import { trim } from '../../common/dto-fields';
import { OptionalNotNull } from '../../common/validation';
import { SSO_ROLES, type SsoRole } from '../sso.entities';

export const MAX_SSO_DOMAINS = 20;

export class PutSsoDto {
  @ApiProperty({ example: 'https://login.example.com', maxLength: 500, description: 'The OpenID provider’s issuer; its discovery document is fetched at once' })
  @Transform(trim)
  @IsString()
  @IsNotEmpty({ message: 'issuer must not be empty' })
  @MaxLength(500)
  @Matches(/^https?:\/\/[^\s]+$/i, { message: 'issuer must be an https:// URL (the provider’s issuer identifier)' })
  issuer: string;

  @ApiProperty({ example: 'statichost', maxLength: 255 })
  @Transform(trim)
  @IsString()
  @IsNotEmpty({ message: 'clientId must not be empty' })
  @MaxLength(255)
  clientId: string;

  @ApiPropertyOptional({ maxLength: 1024, description: 'Required the first time; kept when omitted later. Stored encrypted, never returned' })
  @OptionalNotNull()
  @IsString()
  @IsNotEmpty({ message: 'clientSecret must not be empty (omit it to keep the current one)' })
  @MaxLength(1024)
  clientSecret?: string;

  @ApiProperty({ example: ['example.com'], isArray: true, type: String, maxItems: MAX_SSO_DOMAINS })
  @ArrayMinSize(1, { message: 'emailDomains must list at least one email domain' })
  @ArrayMaxSize(MAX_SSO_DOMAINS)
  @IsString({ each: true })
  @MaxLength(253, { each: true })
  emailDomains: string[];

  @ApiProperty({ enum: SSO_ROLES, description: 'The role of a person SSO adds to the workspace' })
  @IsIn(SSO_ROLES)
  defaultRole: SsoRole;

  @ApiProperty({ description: 'Members whose email is in a verified domain must sign in through SSO (the owner who sets it keeps a password sign-in)' })
  @IsBoolean()
  enforce: boolean;
}

export class SsoStartQueryDto {
  @ApiPropertyOptional({ example: 'ada@example.com', description: 'Sign in with the SSO of the workspace that verified this email’s domain' })
  @IsOptional()
  @IsEmail({}, { message: 'email must be an email address' })
  @MaxLength(320)
  email?: string;

  @ApiPropertyOptional({ example: 'ws_0123456789abcdefghijklmn', description: 'Or: sign in with this workspace’s SSO' })
  @IsOptional()
  @IsString()
  @Matches(/^ws_[A-Za-z0-9_-]{1,64}$/, { message: 'workspace must be a workspace id (ws_…)' })
  workspace?: string;
}
