import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { Allow, ArrayMinSize, IsArray, IsIn, IsOptional, IsString, ValidateNested } from 'class-validator';
import { PROJECT_TYPES, ProjectType } from '../../projects/project.entity';

export const ENCODINGS = ['utf8', 'base64'] as const;

export class DeployFileDto {
  @ApiProperty({ example: 'index.html', description: 'Relative path; no `..`, no leading `/`, no backslashes' })
  // Checked by the deploy service, which names the entry (files[3].path) in its errors.
  @Allow()
  path: unknown;

  @ApiProperty({ example: '<h1>Hello</h1>' })
  @Allow()
  content: unknown;

  @ApiPropertyOptional({ enum: ENCODINGS, default: 'utf8' })
  @Allow()
  encoding?: unknown;
}

export class ProjectDeployDto {
  @ApiPropertyOptional({ enum: PROJECT_TYPES, example: 'static_file' })
  @IsOptional()
  @IsIn(PROJECT_TYPES)
  type?: ProjectType;

  @ApiProperty({ type: [DeployFileDto] })
  @IsArray()
  @ArrayMinSize(1, { message: 'files must contain at least one file' })
  @ValidateNested({ each: true })
  @Type(() => DeployFileDto)
  files: DeployFileDto[];

  @ApiPropertyOptional({ example: '7d', description: '`<n>h`, `<n>d` or `forever`; default: the project’s default_ttl' })
  @IsOptional()
  @IsString()
  ttl?: string;
}

export class LazyDeployDto extends ProjectDeployDto {
  @ApiProperty({ example: 'my-site', description: 'Project to deploy to; created in the token’s workspace when missing' })
  @IsString()
  project_slug: string;
}
