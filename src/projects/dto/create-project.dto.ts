import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength, MinLength, ValidateIf } from 'class-validator';

import { OptionalChoiceField, OptionalStringField } from '../../common/dto-fields';
import { GATE_TYPES, GateType, PROJECT_TYPES, ProjectType } from '../project.entity';

export class CreateProjectDto {
  @ApiProperty({ example: 'Marketing site', maxLength: 100 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  name: string;

  @OptionalStringField({ example: 'marketing-site', description: 'DNS label, globally unique; derived from the name when absent' })
  slug?: string;

  @OptionalChoiceField(PROJECT_TYPES, { default: 'static_file' })
  type?: ProjectType;

  @OptionalStringField({ example: '7d', description: '`<n>h`, `<n>d` or `forever`; default `7d`' })
  default_ttl?: string;

  @OptionalChoiceField(GATE_TYPES, { default: 'none' })
  gate_type?: GateType;

  @ApiPropertyOptional({ writeOnly: true, minLength: 8, description: 'Required with gate_type=password; never returned' })
  @ValidateIf((o: CreateProjectDto) => o.password !== undefined || o.gate_type === 'password')
  @IsString({ message: 'password is required when gate_type is password' })
  @MinLength(8, { message: 'password must be at least 8 characters' })
  @MaxLength(256)
  password?: string;
}
