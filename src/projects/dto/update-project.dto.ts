import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsOptional, IsString, MaxLength, MinLength, ValidateIf } from 'class-validator';

import { OptionalNotNull } from '../../common/validation';
import { GATE_TYPES, GateType } from '../project.entity';

export class UpdateProjectDto {
  @ApiPropertyOptional({ maxLength: 100 })
  @OptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  name?: string;

  @ApiPropertyOptional({ example: '30d' })
  @OptionalNotNull()
  @IsString()
  default_ttl?: string;

  @ApiPropertyOptional({ enum: GATE_TYPES })
  @OptionalNotNull()
  @IsIn(GATE_TYPES)
  gate_type?: GateType;

  @ApiPropertyOptional({ writeOnly: true, minLength: 8 })
  @OptionalNotNull()
  @IsString()
  @MinLength(8, { message: 'password must be at least 8 characters' })
  @MaxLength(256)
  password?: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'www.example.com',
    description: 'Host name to serve the project at once verified; null detaches it',
  })
  @ValidateIf((o: UpdateProjectDto) => o.custom_domain !== null)
  @IsOptional()
  @IsString()
  @MaxLength(253)
  custom_domain?: string | null;
}
