import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { Allow, ArrayMinSize, IsArray, IsBoolean, IsOptional, IsString } from 'class-validator';

import { OptionalChoiceField, OptionalStringField } from '../../common/dto-fields';
import { PROJECT_TYPES, ProjectType } from '../../projects/project.entity';

export const ENCODINGS = ['utf8', 'base64'] as const;

const PATH_DOC = { example: 'index.html', description: 'Relative path; no `..`, no leading `/`, no backslashes' };

/** A file sent inline, as the spec shows (documentation of one `files` entry shape). */
export class InlineDeployFileDto {
  @ApiProperty(PATH_DOC)
  path: string;

  @ApiProperty({ example: '<h1>Hello</h1>', description: 'The file’s text, or its bytes in base64 with `encoding: base64`' })
  content: string;

  @ApiPropertyOptional({ enum: ENCODINGS, default: 'utf8' })
  encoding?: (typeof ENCODINGS)[number];
}

/** A file named by the hash of bytes uploaded before (documentation of the other `files` entry shape). */
export class DigestDeployFileDto {
  @ApiProperty(PATH_DOC)
  path: string;

  @ApiProperty({
    example: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    pattern: '^[0-9a-fA-F]{64}$',
    description:
      'SHA-256 of a blob this workspace uploaded with `PUT /v1/blobs/{sha256}` or already deployed; any other hash: 400 `missing_blobs` listing them',
  })
  sha256: string;

  @ApiProperty({ type: 'integer', example: 5120, minimum: 0, description: 'The blob’s size in bytes; must match it' })
  size: number;
}

/**
 * What the validation pipe lets through for one `files` entry: either shape. The
 * deploy service checks it (src/deployments/file-entry.ts) and names the entry
 * (files[3].path) in its errors.
 */
export class DeployFileDto {
  @Allow()
  path: unknown;

  @Allow()
  content?: unknown;

  @Allow()
  encoding?: unknown;

  @Allow()
  sha256?: unknown;

  @Allow()
  size?: unknown;
}

@ApiExtraModels(InlineDeployFileDto, DigestDeployFileDto)
export class ProjectDeployDto {
  @OptionalChoiceField(PROJECT_TYPES, { example: 'static_file' })
  type?: ProjectType;

  @ApiProperty({
    type: 'array',
    items: { oneOf: [{ $ref: getSchemaPath(InlineDeployFileDto) }, { $ref: getSchemaPath(DigestDeployFileDto) }] },
    description:
      'Each file inline (`path`, `content`, `encoding`) or, for large deploys, by digest (`path`, `sha256`, `size`) after uploading its bytes with ' +
      '`PUT /v1/blobs/{sha256}`; the two may be mixed. A deploy naming blobs the workspace does not have answers 400 `missing_blobs` with their hashes in `missing`.',
  })
  @IsArray()
  @ArrayMinSize(1, { message: 'files must contain at least one file' })
  // Entries are checked by the deploy service (assertFileObject, describeFileEntry), which names them.
  files: DeployFileDto[];

  @OptionalStringField({ example: '7d', description: '`<n>h`, `<n>d` or `forever`; default: the project’s default_ttl' })
  ttl?: string;

  @ApiPropertyOptional({
    default: true,
    description:
      '`false`: the deployment is created and served at its `previewUrl` only, and the project’s live deployment stays as it is; ' +
      '`url` in the response is then the preview address. Promote it later to make it live.',
  })
  @IsOptional()
  @IsBoolean()
  publish?: boolean;
}

export class LazyDeployDto extends ProjectDeployDto {
  @ApiProperty({ example: 'my-site', description: 'Project to deploy to; created in the token’s workspace when missing' })
  @IsString()
  project_slug: string;
}
