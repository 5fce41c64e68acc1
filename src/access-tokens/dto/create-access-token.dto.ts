import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayNotEmpty, ArrayUnique, IsArray, IsIn, IsISO8601, IsOptional, Matches } from 'class-validator';

import { NameField } from '../../common/dto-fields';
import { ID_BODY_LENGTH } from '../../common/ids';
import { type Scope, SCOPES } from '../../shared/principal';

export class CreateAccessTokenDto {
  @NameField('CI deploys')
  name: string;

  @ApiProperty({ enum: SCOPES, isArray: true, example: ['deploy'], description: 'At most the scopes the caller holds' })
  @IsArray()
  @ArrayNotEmpty({ message: 'scopes must name at least one scope' })
  @ArrayUnique({ message: 'scopes must not repeat a scope' })
  @IsIn(SCOPES, { each: true, message: `each scope must be one of: ${SCOPES.join(', ')}` })
  scopes: Scope[];

  @ApiPropertyOptional({ type: String, nullable: true, example: '2030-01-01T00:00:00.000Z', description: 'In the future; null or absent: never expires' })
  @IsOptional()
  @IsISO8601({ strict: true, strictSeparator: true }, { message: 'expires_at must be an ISO 8601 timestamp, e.g. 2030-01-01T00:00:00.000Z' })
  // Without a zone the instant would depend on the server's time zone.
  @Matches(/(Z|[+-]\d\d:?\d\d)$/i, { message: 'expires_at must end with a time zone (Z or an offset such as +02:00)' })
  expires_at?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'proj_0123456789abcdefghijklmn',
    description: 'Bind the token to this project of the workspace',
  })
  @IsOptional()
  @Matches(new RegExp(`^proj_[0-9a-z]{${ID_BODY_LENGTH}}$`), { message: 'projectId must be a project id (proj_...)' })
  projectId?: string | null;
}
